package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// SampleFiles returns the contents of every samples YAML file of the corpus,
// in path order, to seed fuzz targets. It skips like Dir when the corpus is absent.
func SampleFiles(t testing.TB) [][]byte {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(Dir(t), "samples"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".yaml" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	out := make([][]byte, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}
