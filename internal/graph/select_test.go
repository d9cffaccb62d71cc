package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// TestSelectKeepsThePolicySources: a selection (--target, --selector) decides
// policies as the whole input does, from the input's Namespaces and the
// operator-wide default, and leaves the input's own graph as it was.
func TestSelectKeepsThePolicySources(t *testing.T) {
	namespace := `apiVersion: v1
kind: Namespace
metadata:
  name: team
  annotations:
    serviceoperator.azure.com/reconcile-policy: skip
`
	inTeam := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg2
  namespace: team
spec:
  location: westus2
`
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, []byte(rg+"---\n"+vnet+"---\n"+namespace+"---\n"+inTeam), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	g, diags := graph.Build(res, graph.Options{Subscription: "00000000-0000-0000-0000-000000000001", DefaultReconcilePolicy: graph.PolicyDetachOnDelete})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	var team, vnet1 *graph.Node
	for _, n := range g.Nodes {
		switch n.Address() {
		case "resources.azure.com/ResourceGroup/team/rg2":
			team = n
		case "network.azure.com/VirtualNetwork/default/vnet1":
			vnet1 = n
		}
	}
	if team == nil || vnet1 == nil {
		t.Fatalf("nodes %v", g.Nodes)
	}
	selected := g.Select([]*graph.Node{team, vnet1}, graph.WithDependencies)
	if policy, ok := selected.NamespacePolicy(team); !ok || policy != graph.PolicySkip {
		t.Errorf("the selection's namespace policy of %s: %q, %v; want skip", team.Address(), policy, ok)
	}
	if selected.DefaultPolicy != graph.PolicyDetachOnDelete {
		t.Errorf("the selection's default policy: %q", selected.DefaultPolicy)
	}
	if len(g.Outside) != 0 || len(selected.Nodes) != 3 {
		t.Errorf("selected %d nodes, the input's graph has %d outside", len(selected.Nodes), len(g.Outside))
	}
}
