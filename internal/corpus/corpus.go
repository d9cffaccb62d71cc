// Package corpus locates the read-only ASO corpus (../shared/aso beside the
// repository, or $AZK_CORPUS) for tests, finds its samples folders as the
// operator's test harness does, and reads its HTTP recordings.
package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/testkit"
)

// Dir returns the corpus directory: $AZK_CORPUS (a relative path from the
// module root), else ../shared/aso beside the module root. It skips the test with a clear message when the corpus is absent,
// so a fresh clone without it still passes.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := locate()
	if err != nil {
		t.Skipf("ASO corpus not found (%v; set AZK_CORPUS to its path): skipping", err)
	}
	return dir
}

// locate finds the corpus directory: $AZK_CORPUS when set (a relative path
// from the module root), else ../shared/aso beside the module root.
func locate() (string, error) {
	dir, ok := testkit.EnvPath("AZK_CORPUS")
	if !ok {
		root, err := testkit.ModuleRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "..", "shared", "aso")
	}
	if _, err := os.Stat(filepath.Join(dir, "crds")); err != nil {
		return "", fmt.Errorf("no crds/ under %s", dir)
	}
	return dir, nil
}
