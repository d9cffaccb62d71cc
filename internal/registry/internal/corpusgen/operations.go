package corpusgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// supportedOperations lists, under the corpus, the ARM operations the
// operator's generated code says each group, version and kind supports
// (tab-separated; "#" starts a comment line).
var supportedOperations = filepath.Join("operator", "supported-operations.tsv")

// markNoDelete sets Kind.NoDelete for the kinds whose supported operations
// lack delete. A corpus without the list marks none.
func markNoDelete(corpus string, kinds []*registry.Kind) error {
	file := filepath.Join(corpus, supportedOperations)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	noDelete := map[registry.GVK]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			return fmt.Errorf("%s:%d: %d columns, want group, version, kind and operations", file, i+1, len(cols))
		}
		gvk := registry.GVK{Group: cols[0], Version: cols[1], Kind: cols[2]}
		noDelete[gvk] = !slices.Contains(strings.Split(cols[3], ","), "delete")
	}
	for _, k := range kinds {
		k.NoDelete = noDelete[k.GVK]
	}
	return nil
}
