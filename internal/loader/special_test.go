//go:build unix

package loader

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin loads opts, failing the test when Load does not return within
// a bound (a FIFO used to block it for ever).
func loadWithin(t *testing.T, opts Options) (*Result, []string) {
	t.Helper()
	type loaded struct {
		res   *Result
		diags []string
	}
	done := make(chan loaded, 1)
	go func() {
		res, diags := Load(opts)
		done <- loaded{res, render(diags)}
	}()
	select {
	case l := <-done:
		return l.res, l.diags
	case <-time.After(20 * time.Second):
		t.Fatal("Load did not return: it blocked on a special file")
		return nil, nil
	}
}

// specialFiles makes, in dir, a FIFO, a socket and links to character
// devices, each under a manifest's name, beside one ordinary manifest.
func specialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "socket.yaml"))
	if err != nil {
		t.Skipf("cannot make a socket here: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	for _, dev := range []string{"zero", "null"} {
		if err := os.Symlink("/dev/"+dev, filepath.Join(dir, dev+".yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "rg.yaml"), []byte(rgDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"fifo.yaml":   "is a named pipe (FIFO), not a regular file",
		"socket.yaml": "is a socket, not a regular file",
		"zero.yaml":   "is a symbolic link to /dev/zero, a character device, not a regular file",
		"null.yaml":   "is a symbolic link to /dev/null, a character device, not a regular file",
	}
}

// TestOnlyRegularFilesAreRead: devices, FIFOs and sockets named as
// manifests, directly, through a symbolic link or inside a folder, are
// refused with the file and the reason, and nothing blocks or fills memory
// (issue 22, item 4: a link to /dev/zero exhausted memory, a FIFO hung).
func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	want := specialFiles(t, dir)
	t.Run("inside a folder", func(t *testing.T) {
		res, diags := loadWithin(t, Options{Paths: []string{dir}})
		for name, reason := range want {
			mustReport(t, diags, "error: "+filepath.Join(dir, name)+": "+reason+": refusing to read it")
		}
		if len(diags) != len(want) {
			t.Errorf("%d diagnostics, want %d:\n%s", len(diags), len(want), strings.Join(diags, "\n"))
		}
		check(t, "resources", summarize(res.Resources), []string{"resources.azure.com/ResourceGroup/default/rg @ " + filepath.Join(dir, "rg.yaml") + ":1"})
	})
	for name, reason := range want {
		t.Run("named directly: "+name, func(t *testing.T) {
			file := filepath.Join(dir, name)
			_, diags := loadWithin(t, Options{Paths: []string{file}})
			check(t, "diagnostics", diags, []string{"error: " + file + ": " + reason + ": refusing to read it"})
		})
	}
	t.Run("a device named directly", func(t *testing.T) {
		_, diags := loadWithin(t, Options{Paths: []string{"/dev/zero"}})
		check(t, "diagnostics", diags, []string{"error: /dev/zero: is a character device, not a regular file: refusing to read it"})
	})
}

// TestKustomizeReadsOnlyRegularFiles: the files kustomize reads are held
// to the same rule: a FIFO listed as a resource is refused, not waited on.
func TestKustomizeReadsOnlyRegularFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"kustomization.yaml": "resources:\n- rg.yaml\n- fifo.yaml\n", "rg.yaml": rgDoc})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	res, diags := loadWithin(t, Options{Kustomize: []string{dir}})
	mustReport(t, diags, filepath.Join(dir, "fifo.yaml")+": is a named pipe (FIFO), not a regular file: refusing to read it")
	if len(res.Resources) != 0 {
		t.Errorf("kustomize output was used: %v", summarize(res.Resources))
	}
}
