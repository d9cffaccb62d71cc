package planner

import (
	"context"
	"encoding/json"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// namePending gives resources whose Azure name is another resource's status
// value (azureNameFromConfig) their name when that resource already exists:
// its status holds it. Those still waiting are named by apply, once it has
// created that resource. It returns the names that are not valid Azure names.
func namePending(ctx context.Context, g *graph.Graph, r Reader) map[*graph.Node]error {
	bad := map[*graph.Node]error{}
	for _, n := range g.Nodes {
		src := n.NameSource()
		if src == nil || src.To == nil || src.To.ID == "" {
			continue
		}
		resp, err := r.Get(ctx, src.To.ID, src.To.Kind.APIVersion)
		if err != nil {
			continue // not there yet, or unreadable: it stays pending
		}
		var body map[string]any
		if json.Unmarshal(resp.Body, &body) != nil {
			continue
		}
		if _, err := g.NameFromStatus(n, convert.Status(src.To.Kind, body)); err != nil {
			bad[n] = err
		}
	}
	return bad
}
