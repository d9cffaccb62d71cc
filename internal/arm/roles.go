package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// RoleDefinitionsAPIVersion is the Microsoft.Authorization api-version used to look roles up.
const RoleDefinitionsAPIVersion = "2022-04-01"

// roleCache maps subscription and lower-cased role name to the role
// definition's ARM ID, for the run.
type roleCache struct {
	mu  sync.Mutex
	ids map[string]string
}

func (r *roleCache) get(key string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.ids[key]
	return id, ok
}

func (r *roleCache) put(key, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids = map[string]string{}
	}
	r.ids[key] = id
}

// RoleDefinitionID resolves a built-in role name ("Contributor", "Storage Blob
// Data Reader"; a wellKnownName reference) to its role definition's ARM ID in
// the client's subscription. Names match case-insensitively; answers are
// cached for the run.
func (c *Client) RoleDefinitionID(ctx context.Context, roleName string) (string, error) {
	if c.subscription == "" {
		return "", fmt.Errorf("role %q: no subscription to look it up in", roleName)
	}
	key := strings.ToLower(c.subscription + "/" + roleName)
	if id, ok := c.shared.roles.get(key); ok {
		return id, nil
	}
	scope := "/subscriptions/" + c.subscription + "/providers/Microsoft.Authorization/roleDefinitions"
	filter := "roleName eq '" + strings.ReplaceAll(roleName, "'", "''") + "'"
	items, err := c.list(ctx, scope, RoleDefinitionsAPIVersion, url.Values{"$filter": {filter}})
	if err != nil {
		return "", fmt.Errorf("looking up role %q: %w", roleName, err)
	}
	for _, raw := range items {
		var def struct {
			ID         string `json:"id"`
			Properties struct {
				RoleName string `json:"roleName"`
			} `json:"properties"`
		}
		if json.Unmarshal(raw, &def) == nil && strings.EqualFold(def.Properties.RoleName, roleName) && def.ID != "" {
			c.shared.roles.put(key, def.ID)
			return def.ID, nil
		}
	}
	return "", fmt.Errorf("no built-in role named %q in subscription %s", roleName, c.subscription)
}
