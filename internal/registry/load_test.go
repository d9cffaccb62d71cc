package registry

import (
	"io/fs"
	"sync"
	"testing"
)

// TestConcurrentLookupsShareOneDecode runs first lookups of one group from
// several goroutines (run with -race): all see the same decoded schema.
func TestConcurrentLookupsShareOneDecode(t *testing.T) {
	dir, err := fs.Sub(data, "data")
	if err != nil {
		t.Fatal(err)
	}
	r, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	gvk := r.All()[0]
	specs := make([]*Field, 8)
	var wg sync.WaitGroup
	for i := range specs {
		wg.Go(func() {
			k, ok := r.Lookup(gvk.Group, gvk.Version, gvk.Kind)
			if ok {
				specs[i] = k.Spec
			}
		})
	}
	wg.Wait()
	for i, s := range specs {
		if s == nil || s != specs[0] {
			t.Fatalf("lookup %d of %v got spec %p, lookup 0 got %p", i, gvk, s, specs[0])
		}
	}
}

func TestVersionOrder(t *testing.T) {
	want := []string{"v1", "v1api20200801preview", "v20200801preview", "v1api20200801", "v1api20201101", "v20201101", "v20250301"}
	for i := range want {
		for j := range want {
			if (i < j) != versionLess(want[i], want[j]) {
				t.Errorf("versionLess(%q, %q) = %v", want[i], want[j], !(i < j))
			}
		}
	}
}
