package loader

import (
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/diag"
)

// A value an overlay's patch sets is attributed to the patch (file and
// line, or the kustomization's line of an inline patch); one no patch sets
// to the base file's line.
func TestFieldSetterNamesThePatchThatSetsAValue(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base/kustomization.yaml": "resources:\n- network.yaml\n",
		"base/network.yaml": `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet
spec:
  location: westeurope
  owner: {name: rg}
  addressSpace:
    addressPrefixes: [10.0.0.0/16]
  tags:
    team: platform
    env: dev
`,
		"overlays/prod/kustomization.yaml": `resources:
- ../../base
namePrefix: prod-
patches:
- path: tags.yaml
- target:
    kind: VirtualNetwork
    name: vnet
  patch: |-
    - op: replace
      path: /spec/location
      value: northeurope
`,
		"overlays/prod/tags.yaml": `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet
spec:
  tags:
    env: prod
`,
	})
	overlay := filepath.Join(dir, "overlays", "prod")
	res, diags := Load(Options{Kustomize: []string{overlay}})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 {
		t.Fatalf("resources %v", summarize(res.Resources))
	}
	vnet := res.Resources[0]
	for _, c := range []struct {
		path    []string
		want    diag.Source
		byPatch bool
	}{
		{[]string{"spec", "tags", "env"}, diag.Source{File: filepath.Join(overlay, "tags.yaml"), Line: 7}, true},
		{[]string{"spec", "tags"}, diag.Source{File: filepath.Join(overlay, "tags.yaml"), Line: 6}, true},
		{[]string{"spec", "location"}, diag.Source{File: filepath.Join(overlay, "kustomization.yaml"), Line: 10}, true},
		{[]string{"spec", "tags", "team"}, diag.Source{File: filepath.Join(dir, "base", "network.yaml"), Line: 11}, false},
		{[]string{"spec", "addressSpace", "addressPrefixes"}, diag.Source{File: filepath.Join(dir, "base", "network.yaml"), Line: 9}, false},
	} {
		got, byPatch := FieldSetter(vnet, c.path)
		if got != c.want || byPatch != c.byPatch {
			t.Errorf("FieldSetter(%v) = %s, %v; want %s, %v", c.path, got, byPatch, c.want, c.byPatch)
		}
	}
}
