package corpus

import (
	"net/url"
	"strings"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// Sources answers what converting the recording's samples needs the way Azure
// answered the operator in the recording: secrets as the recordings redact
// them, a resource's status from its last successful GET, reads as they were
// just before the resource's first PUT, and the built-in roles the samples use.
func (r *Recording) Sources() convert.Sources {
	return convert.Sources{
		LookupEnv: func(key string) (string, bool) {
			return "{PASSWORD}", strings.HasPrefix(key, "AZK_SECRET_")
		},
		Status: func(n *graph.Node) map[string]any {
			path, ok := r.Resolve(n.ID)
			if !ok {
				return nil
			}
			if body := r.LastGet(path); body != nil {
				return convert.Status(n.Kind, body)
			}
			return nil
		},
		Get: func(id, _ string) (map[string]any, error) {
			path, ok := r.Resolve(id)
			if !ok {
				return nil, nil
			}
			return r.StateBeforePut(path), nil
		},
		RoleDefinitionID: builtInRole,
	}
}

// builtInRole resolves the built-in role names the samples use by their
// published role definition IDs.
func builtInRole(name string) (string, bool) {
	ids := map[string]string{
		"reader":      "acdd72a7-3385-48ef-bd42-f606fba81ae7",
		"contributor": "b24988ac-6180-42a0-ab88-20f7382dd24c",
		"owner":       "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
	}
	id, ok := ids[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return "/subscriptions/" + Subscription + "/providers/Microsoft.Authorization/roleDefinitions/" + id, true
}

// APIVersion is the api-version query parameter of a URL.
func APIVersion(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("api-version")
}
