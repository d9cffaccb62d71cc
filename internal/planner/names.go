package planner

import (
	"context"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
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
		e, ok := src.To.Export(mapString(src.Ref.Node, "name"), mapString(src.Ref.Node, "key"))
		if !ok || e.From != "status" {
			continue
		}
		if v, ok := armjson.Lookup(convert.Status(src.To.Kind, body), e.Path); ok && v != nil {
			if err := g.Name(n, fmt.Sprint(v)); err != nil {
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
