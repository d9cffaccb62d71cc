package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestOfflineCommandsFetchNothing: validate, render, graph and export read
// a kustomization naming an http resource without touching the network:
// it is refused at its file and line, the error names
// --allow-remote-bases, and the server gets no request; with the flag,
// kustomize fetches it (issue 22, item 3).
func TestOfflineCommandsFetchNothing(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write([]byte("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: remote-rg\nspec:\n  location: westus2\n"))
	}))
	defer server.Close()
	dir := t.TempDir()
	kustomization := filepath.Join(dir, "kustomization.yaml")
	if err := os.WriteFile(kustomization, []byte("resources:\n- "+server.URL+"/rg.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, flags := emulatorAt(t)
	for _, args := range [][]string{
		{"validate", "-k", dir},
		{"render", "-k", dir},
		{"graph", "-k", dir},
		append([]string{"export", "--out-dir", t.TempDir(), "-k", dir}, flags...),
	} {
		_, errOut, code := azk(t, "", args...)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", args[0], code)
		}
		mustContain(t, args[0], errOut, kustomization+":2: "+server.URL+"/rg.yaml is remote: kustomize would fetch it from the network, which azk does only with --allow-remote-bases")
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the offline commands sent %d requests", n)
	}
	out, errOut, code := azk(t, "", "render", "-k", dir, "--allow-remote-bases")
	if code != 0 || !strings.Contains(out, "remote-rg") || requests.Load() != 1 {
		t.Errorf("render --allow-remote-bases: exit %d, %d requests\n%s\n%s", code, requests.Load(), out, errOut)
	}
}

// TestPlanBaseIsNoGitOption: plan --base refuses a value git would take
// for an option before anything runs: --output=FILE truncated FILE
// (issue 22, item 2).
func TestPlanBaseIsNoGitOption(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := copyExample(t, "quickstart")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=azk", "-c", "user.email=azk@example.com", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Chdir(repo)
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"--output=" + victim, "--remote=" + repo} {
		_, errOut, code := azk(t, "", "plan", "--base="+base, ".")
		if code != 1 || !strings.Contains(errOut, "--base "+base+": not a directory, and a git revision does not start with \"-\"") {
			t.Errorf("--base %s: exit %d\n%s", base, code, errOut)
		}
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep me" {
		t.Errorf("the victim file now holds %q", data)
	}
}
