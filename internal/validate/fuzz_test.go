package validate_test

import (
	"bytes"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/validate"
)

// FuzzSpec: checking any loaded manifest against its kind's schema returns
// (no panic), every problem names a line, and every reference found points
// into the object.
func FuzzSpec(f *testing.F) {
	f.Add([]byte("apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata: {name: v}\nspec:\n  owner: {armId: \"/subscriptions/x/resourceGroups/victim-rg?api-version=2020-06-01&x=\"}\n  addressSpace: {addressPrefixes: 10.0.0.0/16}\n  location: &l westus2\n  tags: {a: *l}\n"))
	for _, s := range corpus.SampleFiles(f) {
		f.Add(s)
	}
	reg := registry.Default()
	f.Fuzz(func(t *testing.T, data []byte) {
		res, _ := loader.Load(loader.Options{Paths: []string{"-"}, Stdin: bytes.NewReader(data)})
		for _, o := range res.Resources {
			k, ok := reg.Lookup(o.Group(), o.Version(), o.Kind)
			if !ok {
				continue
			}
			refs, diags := validate.Spec(o, k)
			for _, d := range diags {
				if d.Severity == diag.SeverityError && d.Source.Line <= 0 {
					t.Fatalf("%s: an error without a line: %v", o.Address(), d)
				}
			}
			for _, r := range refs {
				if r.Node == nil || r.Path == "" {
					t.Fatalf("%s: a reference without its node or path: %+v", o.Address(), r)
				}
			}
		}
	})
}
