package planner

import (
	"context"
	"encoding/json"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// namePending gives resources whose Azure name is another resource's status
// value (azureNameFromConfig) their name when that resource already exists:
// its status holds it. Those still waiting stay Pending, planned as blocked.
func namePending(ctx context.Context, g *graph.Graph, r Reader) {
	for _, n := range g.Nodes {
		src := n.NameSource()
		if src == nil || src.To == nil || src.To.ID == "" {
			continue
		}
		resp, err := r.Get(ctx, src.To.ID, src.To.Kind.APIVersion)
		if err != nil {
			continue // not there yet, or unreadable: the reason stays
		}
		var body map[string]any
		if json.Unmarshal(resp.Body, &body) != nil {
			continue
		}
		key := mapString(src.Ref.Node, "key")
		e, ok := src.To.Export(mapString(src.Ref.Node, "name"), key)
		if !ok {
			continue
		}
		if v, ok, err := e.Value(src.To, key, convert.Status(src.To.Kind, body)); ok && err == nil {
			if err := g.Name(n, v); err != nil {
				n.Pending = err.Error()
			}
		}
	}
}

func mapString(n *yaml.Node, key string) string {
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Value
		}
	}
	return ""
}
