package extensions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
)

// TestCatalogueListsEveryExtension: docs/operator-fidelity.md has a row for
// every extension file of the operator's customizations in the corpus.
func TestCatalogueListsEveryExtension(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(t), "operator", "customizations", "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Skipf("no operator customizations in the corpus (%v)", err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operator-fidelity.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		rel := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		if !strings.Contains(string(doc), "| `"+rel+"` |") {
			t.Errorf("%s is not in docs/operator-fidelity.md", rel)
		}
	}
}
