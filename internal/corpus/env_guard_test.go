package corpus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/testkit"
)

// TestRelativeCorpusIsFromTheModuleRoot: AZK_CORPUS=../shared/aso names the
// corpus beside the module root, as the README's commands (run from the
// root) mean it, although go test runs this test in internal/corpus.
func TestRelativeCorpusIsFromTheModuleRoot(t *testing.T) {
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	fake := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fake, "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, fake)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZK_CORPUS", rel)
	if got := corpus.Dir(t); got != filepath.Join(root, rel) {
		t.Errorf("AZK_CORPUS=%s: Dir = %s, want %s", rel, got, fake)
	}
}

// TestREADMERecordingsExample: the README's AZK_RECORDINGS=../shared/aso/recordings
// names the corpus's recordings (when the corpus is there).
func TestREADMERecordingsExample(t *testing.T) {
	t.Setenv("AZK_CORPUS", "")
	want := filepath.Join(corpus.Dir(t), "recordings")
	t.Setenv("AZK_RECORDINGS", "../shared/aso/recordings")
	got, ok := testkit.EnvPath("AZK_RECORDINGS")
	if !ok {
		t.Fatal("AZK_RECORDINGS is set but not read")
	}
	if _, err := os.Stat(got); err != nil {
		t.Fatalf("AZK_RECORDINGS=../shared/aso/recordings resolves to %s: %v", got, err)
	}
	if same, _ := sameDir(got, want); !same {
		t.Errorf("AZK_RECORDINGS=../shared/aso/recordings resolves to %s, not the corpus's %s", got, want)
	}
}

func sameDir(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}
