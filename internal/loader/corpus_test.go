package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/testkit"
)

// corpusDir finds the ASO corpus: $AZK_CORPUS (a relative path from the
// module root), else ../shared/aso next to the module root. It skips the
// test when the corpus is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	if dir, ok := testkit.EnvPath("AZK_CORPUS"); ok {
		return dir
	}
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Skip("ASO corpus not found: no go.mod above the test directory")
	}
	corpus := filepath.Join(root, "..", "shared", "aso")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("ASO corpus not found at %s (set AZK_CORPUS to its location)", corpus)
	}
	return corpus
}

// TestCorpusSamples loads every sample file of the corpus on its own and
// expects no diagnostic and at least one object from each.
func TestCorpusSamples(t *testing.T) {
	samples := filepath.Join(corpusDir(t), "samples")
	var files, objects int
	err := filepath.WalkDir(samples, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestFile(path) {
			return err
		}
		files++
		res, diags := Load(Options{Paths: []string{path}})
		for _, d := range diags {
			t.Errorf("%s: %v", d.Severity, d)
		}
		n := len(res.Resources) + len(res.Secrets) + len(res.ConfigMaps)
		if n == 0 {
			t.Errorf("%s: no objects loaded", path)
		}
		objects += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no sample files under %s", samples)
	}
	t.Logf("loaded %d objects from %d sample files", objects, files)
}

// TestCorpusSampleFolders loads each samples/<group>/<version> folder (with
// its refs/) as one set, the way the operator's tests apply them. Folders
// that mix versions of a kind, or samples that reuse a name, are genuine
// duplicates; the only diagnostics allowed are duplicate errors.
func TestCorpusSampleFolders(t *testing.T) {
	samples := filepath.Join(corpusDir(t), "samples")
	folders, err := filepath.Glob(filepath.Join(samples, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) == 0 {
		t.Fatalf("no sample folders under %s", samples)
	}
	var objects, duplicates int
	for _, folder := range folders {
		res, diags := Load(Options{Paths: []string{folder}})
		for _, d := range diags {
			if d.Severity != diag.SeverityError || !strings.HasPrefix(d.Message, "duplicate object, first defined at ") {
				t.Errorf("%s: %v", d.Severity, d)
				continue
			}
			duplicates++
			t.Logf("corpus duplicate: %v", d)
		}
		objects += len(res.Resources) + len(res.Secrets) + len(res.ConfigMaps)
	}
	t.Logf("loaded %d objects from %d sample folders, %d duplicates", objects, len(folders), duplicates)
}
