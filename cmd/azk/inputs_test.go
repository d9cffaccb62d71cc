package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateInputsAsUsersPassThem: a symbolic link to a folder is read
// as the folder; an input holding nothing is an error, not "0 resources valid".
func TestValidateInputsAsUsersPassThem(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(abs, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	if out, errOut, code := azk(t, "", "validate", link, "--subscription", emulatorSubscription); code != 0 || out != "9 resources valid\n" {
		t.Errorf("validate LINK: exit %d, %q, %q", code, out, errOut)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	out, errOut, code := azk(t, "", "validate", empty)
	if code != 1 || out != "" || !strings.Contains(errOut, "Error: "+empty+": holds no ASO resource, Secret or ConfigMap") {
		t.Errorf("validate EMPTYDIR: exit %d, %q, %q", code, out, errOut)
	}
}
