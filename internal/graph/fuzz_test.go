package graph_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// FuzzBuild: whatever the manifests, building the graph returns, and every
// ARM ID it gives a resource is one armid accepts and prints the same: no
// input (armId, name, config map, credential Secret) can put a query, a
// fragment, an escape or a relative segment into a request path. Resources
// come after what they depend on.
func FuzzBuild(f *testing.F) {
	victim := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/victim-rg"
	f.Add([]byte(rg + "---\n" + strings.Replace(vnet, "    name: rg1\n", "    armId: "+victim+"?api-version=2020-06-01&x=\n", 1)))
	f.Add([]byte(rg + "---\n" + pgServer + "---\n" + pgAdmin + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-settings\ndata:\n  principalId: \"a?b=#c\"\n"))
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: other\nstringData:\n  AZURE_SUBSCRIPTION_ID: \"x/resourceGroups/victim-rg?\"\n---\n" +
		strings.Replace(rg, "  name: rg1\n", "  name: rg1\n  annotations:\n    serviceoperator.azure.com/credential-from: other\n", 1)))
	for _, s := range corpus.SampleFiles(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, _ := loader.Load(loader.Options{Paths: []string{"-"}, Stdin: bytes.NewReader(data)})
		g, _ := graph.Build(res, graph.Options{Subscription: "00000000-0000-0000-0000-000000000001"})
		placed := map[*graph.Node]bool{}
		for _, n := range g.Nodes {
			for _, d := range n.DependsOn() {
				if !placed[d] {
					t.Fatalf("%s comes before %s, which it depends on", n.Address(), d.Address())
				}
			}
			placed[n] = true
			if n.ID == "" {
				continue
			}
			id, err := armid.Parse(n.ID)
			if err != nil || id.String() != n.ID {
				t.Fatalf("%s has the ARM ID %q: %v", n.Address(), n.ID, err)
			}
		}
	})
}
