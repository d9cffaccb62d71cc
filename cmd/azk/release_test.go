package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// scripts/release.sh builds, for this machine's platform, an archive named
// as the action's install step expects, listed in checksums.txt, holding a
// static binary that prints the version it was given; and the action's
// install step downloads it, verifies it and puts it on PATH, and refuses
// an archive its checksum does not match.
func TestReleaseScript(t *testing.T) {
	built := hostRelease(t)
	// A copy: the test tampers with the archive, and the workflow test
	// installs from the original.
	dist := filepath.Join(t.TempDir(), releaseTestVersion)
	if err := os.CopyFS(dist, os.DirFS(built)); err != nil {
		t.Fatal(err)
	}
	const version = releaseTestVersion
	archive := "azk_0.0.0-test_linux_" + runtime.GOARCH + ".tar.gz"
	sums := checksumsIn(t, filepath.Join(dist, "checksums.txt"))
	data, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); len(sums) != 1 || sums[archive] != hex.EncodeToString(sum[:]) {
		t.Fatalf("checksums.txt %v, want only %s with its SHA-256 %x", sums, archive, sum)
	}
	binary := filepath.Join(t.TempDir(), "azk")
	extractFile(t, data, "azk", binary)
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is not static", p.Type)
		}
	}
	if f.Section(".dynamic") != nil || f.Section(".symtab") != nil {
		t.Errorf("the binary has a .dynamic or .symtab section: want a static, stripped binary")
	}
	if out, err := exec.Command(binary, "version").Output(); err != nil || !strings.HasPrefix(string(out), "azk "+version+"\n") {
		t.Errorf("azk version: %v\n%s", err, out)
	}

	// The action's install step, from action.yml, with its release URL
	// pointed at a server of dist.
	releases := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(dist))))
	t.Cleanup(releases.Close)
	// gh answers the releases query of a major tag with the test's release.
	gh := t.TempDir()
	if err := os.WriteFile(filepath.Join(gh, "gh"), []byte("#!/bin/sh\ncase \"$*\" in \"api repos/azkcli/azk/releases?per_page=100 --jq \"*'startswith(\"v0.\")'*) echo "+version+" ;; *) echo \"gh $*: unexpected\" >&2; exit 1 ;; esac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	install := func(actionRef, versionInput string) (string, error) {
		var action actionFile
		readYAML(t, "../../action.yml", &action)
		var step *ghStep
		for i := range action.Runs.Steps {
			if action.Runs.Steps[i].ID == "install" {
				step = &action.Runs.Steps[i]
			}
		}
		if step == nil || step.Env["AZK_RELEASES"] != "https://github.com/azkcli/azk/releases/download" {
			t.Fatalf("action.yml: no install step downloading GitHub releases: %+v", step)
		}
		scope := expressionScope{values: map[string]string{"inputs.version": versionInput, "inputs.binary": "", "inputs.github-token": "token"}}
		runner := t.TempDir()
		env := append(os.Environ(), "RUNNER_TEMP="+runner, "RUNNER_OS=Linux", "RUNNER_ARCH="+map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH],
			"GITHUB_ACTION_PATH=/actions/azkcli/azk/"+actionRef, "PATH="+gh+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_OUTPUT="+filepath.Join(runner, "output"), "GITHUB_PATH="+filepath.Join(runner, "path"))
		for k, v := range step.Env {
			env = append(env, k+"="+scope.interpolate(t, v))
		}
		env = append(env, "AZK_RELEASES="+releases.URL)
		cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
		cmd.Dir, cmd.Env = runner, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), err
		}
		dirs := readLines(t, filepath.Join(runner, "path"))
		if len(dirs) != 1 {
			t.Fatalf("GITHUB_PATH %v, want the folder of azk", dirs)
		}
		got, err := exec.Command(filepath.Join(dirs[0], "azk"), "version").Output()
		return string(got), err
	}
	if out, err := install("main", version); err != nil || !strings.HasPrefix(out, "azk "+version+"\n") {
		t.Errorf("the installed azk (version input): %v\n%s", err, out)
	}
	if out, err := install("v0", ""); err != nil || !strings.HasPrefix(out, "azk "+version+"\n") {
		t.Errorf("the installed azk (azkcli/azk@v0, the newest v0 release): %v\n%s", err, out)
	}
	tampered := append([]byte(nil), data...)
	tampered[len(tampered)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(dist, archive), tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := install("main", version); err == nil || !strings.Contains(out, archive+": FAILED") {
		t.Errorf("install of an archive whose checksum does not match: %v\n%s", err, out)
	}
}

// releaseTestVersion is the version the tests' release build is stamped with.
const releaseTestVersion = "v0.0.0-test"

// hostReleaseBuild is scripts/release.sh's output for this machine's
// platform, built once: TestReleaseScript checks it and the workflow test
// installs azk from it, so the static build (a compile of its own, -trimpath
// shares no cache with the tests') is paid once.
var hostReleaseBuild struct {
	sync.Once
	dir, dist string
	out       []byte
	err       error
}

// hostRelease is the folder holding the release archive for this platform
// and checksums.txt, built on first use and removed by TestMain.
func hostRelease(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a release binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the release tests read the binary as ELF")
	}
	for _, tool := range []string{"bash", "tar", "sha256sum", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the release script and the action's install step need it", tool)
		}
	}
	b := &hostReleaseBuild
	b.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "azk-release-"); b.err != nil {
			return
		}
		b.dist = filepath.Join(b.dir, releaseTestVersion)
		script := exec.Command("bash", "../../scripts/release.sh")
		script.Env = append(os.Environ(), "VERSION="+releaseTestVersion, "TARGETS=linux/"+runtime.GOARCH, "DIST="+b.dist)
		b.out, b.err = script.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("release.sh: %v\n%s", b.err, b.out)
	}
	return b.dist
}

// removeHostRelease removes what hostRelease built, if it ran.
func removeHostRelease() {
	if hostReleaseBuild.dir != "" {
		os.RemoveAll(hostReleaseBuild.dir)
	}
}

// hostReleaseBinary extracts the release's azk into dir.
func hostReleaseBinary(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(hostRelease(t), "azk_"+strings.TrimPrefix(releaseTestVersion, "v")+"_linux_"+runtime.GOARCH+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "azk")
	extractFile(t, data, "azk", binary)
	return binary
}

// checksumsIn reads sha256sum's "HASH  NAME" lines.
func checksumsIn(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		sum, name, ok := strings.Cut(s.Text(), "  ")
		if !ok {
			t.Fatalf("checksums.txt: %q is not HASH  NAME", s.Text())
		}
		sums[name] = sum
	}
	return sums
}

// extractFile writes the file name of the .tar.gz data to dest.
func extractFile(t *testing.T, data []byte, name, dest string) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("the archive holds no %s", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != name {
			continue
		}
		out, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		return
	}
}
