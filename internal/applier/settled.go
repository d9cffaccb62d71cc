package applier

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/planner"
)

// settled is the resource id as its write left it: the operation's final
// answer when that is the resource itself (a synchronous answer, the GET
// that ends an Azure-AsyncOperation, a Location's final 200), which saves a
// read; else a GET.
func (a *applier) settled(ctx context.Context, r *planner.Resource, id string, final *arm.Response) (map[string]any, error) {
	if final != nil && len(final.Body) > 0 {
		var body map[string]any
		if json.Unmarshal(final.Body, &body) == nil {
			if got, _ := body["id"].(string); strings.EqualFold(strings.TrimSuffix(got, "/"), strings.TrimSuffix(id, "/")) {
				a.keepStatus(r, body)
				return body, nil
			}
		}
	}
	return a.readBack(ctx, r, id)
}
