package applier_test

import (
	"testing"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/testkit"
)

// TestDestroyHonoursNamespaceAndDefaultPolicies: destroy leaves in Azure
// what its Namespace marks detach-on-delete, and what the operator-wide
// default marks so, as the operator would on deletion.
func TestDestroyHonoursNamespaceAndDefaultPolicies(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	docs := `apiVersion: v1
kind: Namespace
metadata:
  name: keep
  annotations:
    serviceoperator.azure.com/reconcile-policy: detach-on-delete
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: ns-policy
  namespace: keep
spec:
  location: westus2
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: default-policy
spec:
  location: westus2
`
	path := writeManifests(t, docs)
	const nsGroup, defaultGroup = "resources.azure.com/ResourceGroup/keep/ns-policy", "resources.azure.com/ResourceGroup/default/default-policy"
	for _, tc := range []struct {
		defaultPolicy string
		want          map[string]applier.DestroyAction
	}{
		{"", map[string]applier.DestroyAction{nsGroup: applier.DestroyDetach, defaultGroup: applier.DestroyDelete}},
		{"detach-on-delete", map[string]applier.DestroyAction{nsGroup: applier.DestroyDetach, defaultGroup: applier.DestroyDetach}},
	} {
		res, diags := loader.Load(loader.Options{Paths: []string{path}})
		g, more := graph.Build(res, graph.Options{Subscription: subscription, DefaultReconcilePolicy: tc.defaultPolicy})
		if err := append(diags, more...).Err(); err != nil {
			t.Fatal(err)
		}
		e.applied(t, g)
		p, err := applier.PlanDestroy(testkit.Context(t), g, e.client)
		if err != nil {
			t.Fatal(err)
		}
		if got := deletions(p); len(got) != 2 || got[nsGroup] != tc.want[nsGroup] || got[defaultGroup] != tc.want[defaultGroup] {
			t.Errorf("default %q: %v, want %v", tc.defaultPolicy, got, tc.want)
		}
	}
}
