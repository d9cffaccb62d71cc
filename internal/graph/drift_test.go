package graph_test

import (
	"testing"
)

// TestDriftAnnotationIsChecked: azk.azkcli.io/drift on a resource or a
// Namespace names merge, enforce or reflect; anything else is an error with
// file, line, resource and field, and the nearest policy.
func TestDriftAnnotationIsChecked(t *testing.T) {
	ns := `apiVersion: v1
kind: Namespace
metadata:
  name: team
  annotations:
    azk.azkcli.io/drift: reflekt
`
	group := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg2
  namespace: team
  annotations:
    azk.azkcli.io/drift: enforced
spec:
  location: westus2
`
	ok := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg3
  annotations:
    azk.azkcli.io/drift: merge
spec:
  location: westus2
`
	g, diags, file := build(t, ns, group, ok)
	const field = "metadata.annotations.azk.azkcli.io/drift"
	want := map[string]struct {
		line int
		msg  string
	}{
		"v1/Namespace/default/team":                  {6, `unknown drift policy "reflekt": use merge, enforce or reflect (did you mean "reflect"?)`},
		"resources.azure.com/ResourceGroup/team/rg2": {14, `unknown drift policy "enforced": use merge, enforce or reflect (did you mean "enforce"?)`},
	}
	if len(diags) != len(want) {
		t.Errorf("diagnostics %v, want %d", diags, len(want))
	}
	for _, d := range diags {
		w, found := want[d.Resource]
		if !found || d.Field != field || d.Source.File != file || d.Source.Line != w.line || d.Message != w.msg {
			t.Errorf("got %s:%d %s %s: %q\nwant line %d: %q", d.Source.File, d.Source.Line, d.Resource, d.Field, d.Message, w.line, w.msg)
		}
	}
	if len(g.Nodes) != 2 {
		t.Fatalf("%d nodes", len(g.Nodes))
	}
	if v, ok := g.NamespaceDrift(g.Nodes[0]); !ok || v != "reflekt" {
		t.Errorf("NamespaceDrift %q %v", v, ok)
	}
}
