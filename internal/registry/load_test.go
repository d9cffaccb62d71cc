package registry

import (
	"io/fs"
	"slices"
	"sync"
	"testing"
)

// TestConcurrentLookupsShareOneDecode runs first lookups of one group from
// several goroutines (run with -race): all see the same decoded schema.
func TestConcurrentLookupsShareOneDecode(t *testing.T) {
	r := loadEmbedded(t)
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

// TestBodyFactsLoadWithTheGroup: body facts are not in the index; a lookup
// brings them with the schemas, shared by kinds of one ARM type and version.
func TestBodyFactsLoadWithTheGroup(t *testing.T) {
	r := loadEmbedded(t)
	if k := r.kinds[GVK{"compute.azure.com", "v1api20220301", "VirtualMachine"}]; k.Body != nil {
		t.Error("body facts decoded with the index")
	}
	a, _ := r.Lookup("compute.azure.com", "v1api20220301", "VirtualMachine")
	b, _ := r.Lookup("compute.azure.com", "v20220301", "VirtualMachine")
	if a.Body == nil || a.Body != b.Body {
		t.Fatalf("body facts %p and %p, want one shared value", a.Body, b.Body)
	}
	if !slices.Contains(a.Body.Sensitive, "properties.osProfile.adminPassword") {
		t.Errorf("sensitive: %v", a.Body.Sensitive)
	}
}

// loadEmbedded is a fresh registry over the embedded data: nothing decoded
// but the index.
func loadEmbedded(t *testing.T) *Registry {
	t.Helper()
	dir, err := fs.Sub(data, "data")
	if err != nil {
		t.Fatal(err)
	}
	r, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
