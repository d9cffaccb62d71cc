// Package clienttest drives the emulator with clients nobody on the project
// wrote, built from the Go module proxy at pinned versions. It holds tests
// only, in a package of its own so that their build and run time does not
// count against another package's test timeout.
package clienttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// goClient is a Go program built from the module proxy.
type goClient struct {
	// name is the executable's file name.
	name string
	// module and version are what is built; pkg is its main package.
	module, version, pkg string
	// replace holds the replacements the module's own go.mod makes with
	// paths inside its repository, which a module zip does not carry: each
	// module path with the version the proxy serves it at.
	replace map[string]string
}

// terraformInternal is the commit of Terraform v1.11.4 (2025-04-09
// 13:10:05 UTC) as a pseudo-version: its go.mod replaces its nested
// modules with their folders, which the module zip leaves out, and the
// proxy serves them at that commit.
const terraformInternal = "v0.0.0-20250409131005-35645b8fca68"

var (
	terraform = goClient{
		name: "terraform", module: "github.com/hashicorp/terraform", version: "v1.11.4", pkg: "github.com/hashicorp/terraform",
		replace: map[string]string{},
	}
	azapi = goClient{
		name: "terraform-provider-azapi_v1.15.0", module: "github.com/Azure/terraform-provider-azapi", version: "v1.15.0",
		pkg: "github.com/Azure/terraform-provider-azapi",
	}
)

func init() {
	for _, nested := range []string{"legacy", "backend/remote-state/azure", "backend/remote-state/consul", "backend/remote-state/cos",
		"backend/remote-state/gcs", "backend/remote-state/kubernetes", "backend/remote-state/oss", "backend/remote-state/pg", "backend/remote-state/s3"} {
		terraform.replace["github.com/hashicorp/terraform/internal/"+nested] = terraformInternal
	}
	// The nested modules require Terraform itself at a version no proxy
	// serves (v0.0.0-00010101000000-000000000000): every version is this one.
	terraform.replace[terraform.module] = terraform.version
}

// goEnv is the environment of the go commands building clients: the
// module proxy and checksum database as configured, this toolchain, no
// workspace, no cgo (the clients need none, and it keeps the build
// portable and quicker).
func goEnv() []string {
	env := []string{"GOTOOLCHAIN=local", "GOWORK=off", "CGO_ENABLED=0", "GOFLAGS=-mod=mod -buildvcs=false"}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "GOFLAGS" && name != "GOTOOLCHAIN" && name != "GOWORK" && name != "CGO_ENABLED" {
			env = append(env, kv)
		}
	}
	return env
}

// goCommand runs the go command in dir and returns its combined output.
func goCommand(ctx context.Context, dir string, args ...string) ([]byte, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir, cmd.Env = dir, goEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.Bytes(), err
}

// clientCache is where built clients are kept across runs: beside the
// module cache's downloads, so that clearing the module cache clears them.
func clientCache(ctx context.Context) (string, error) {
	out, err := goCommand(ctx, os.TempDir(), "env", "GOMODCACHE")
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %v: %s", err, out)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cache", "azk-clients"), nil
}

// executable returns the path of c built for this platform, building it
// from the module proxy on first use. A run that cannot download the
// module (no proxy, GOFLAGS=-mod=vendor, GOPROXY=off) skips the test.
func (c goClient) executable(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if deadline, ok := t.Deadline(); ok {
		// Leave the test time to report a build cut short.
		ctx, cancel = context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	}
	defer cancel()
	cache, err := clientCache(ctx)
	if err != nil {
		t.Skipf("no Go toolchain to build %s@%s with: %v", c.module, c.version, err)
	}
	dir := filepath.Join(cache, strings.ReplaceAll(c.module, "/", "_")+"@"+c.version, runtime.GOOS+"_"+runtime.GOARCH)
	exe := filepath.Join(dir, c.name)
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	work := t.TempDir()
	if out, err := goCommand(ctx, work, "mod", "download", c.module+"@"+c.version); err != nil {
		t.Skipf("the Go module proxy does not serve %s@%s here, so it cannot be built: %v\n%s", c.module, c.version, err, out)
	}
	gomod := fmt.Sprintf("module azk.local/build/%s\n\ngo 1.23\n\nrequire %s %s\n", c.name, c.module, c.version)
	for path, version := range c.replace {
		gomod += fmt.Sprintf("\nreplace %s => %s %s\n", path, path, version)
	}
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Built beside its final name and renamed into place, so that a run cut
	// short or a concurrent one never leaves a partial executable there.
	partial, err := os.CreateTemp(dir, c.name+".partial-*")
	if err != nil {
		t.Fatal(err)
	}
	partial.Close()
	defer os.Remove(partial.Name())
	start := time.Now()
	if out, err := goCommand(ctx, work, "build", "-trimpath", "-ldflags=-s -w", "-o", partial.Name(), c.pkg); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("building %s@%s was cut short by the test's deadline after %s: the packages compiled so far stay in the Go build cache, so a rerun (or a longer -timeout) carries on from them",
				c.module, c.version, time.Since(start).Round(time.Second))
		}
		t.Fatalf("building %s@%s: %v\n%s", c.module, c.version, err, out)
	}
	if err := os.Rename(partial.Name(), exe); err != nil {
		t.Fatal(err)
	}
	t.Logf("built %s@%s in %s into %s", c.module, c.version, time.Since(start).Round(time.Second), exe)
	return exe
}
