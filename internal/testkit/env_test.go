package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnvPathIsFromTheModuleRoot: go test runs in the package's folder
// (internal/testkit here), yet a relative AZK_CORPUS or AZK_RECORDINGS
// names a folder from the module root, where the README's commands run.
func TestEnvPathIsFromTheModuleRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(wd)) // internal/testkit is two levels down
	if got, err := ModuleRoot(); err != nil || got != root {
		t.Fatalf("ModuleRoot() = %q, %v; want %q", got, err, root)
	}
	t.Setenv("AZK_RECORDINGS", "../shared/aso/recordings")
	if got, ok := EnvPath("AZK_RECORDINGS"); !ok || got != filepath.Join(root, "..", "shared", "aso", "recordings") {
		t.Errorf("relative: EnvPath = %q, %v; want it under %s/..", got, ok, root)
	}
	abs := t.TempDir()
	t.Setenv("AZK_RECORDINGS", abs)
	if got, ok := EnvPath("AZK_RECORDINGS"); !ok || got != abs {
		t.Errorf("absolute: EnvPath = %q, %v; want %q", got, ok, abs)
	}
	t.Setenv("AZK_RECORDINGS", "")
	if got, ok := EnvPath("AZK_RECORDINGS"); ok {
		t.Errorf("unset: EnvPath = %q, want none", got)
	}
}
