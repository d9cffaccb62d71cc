package providers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

const typeUserAssignedIdentity = "Microsoft.ManagedIdentity/userAssignedIdentities"

// identity is the Microsoft.ManagedIdentity behaviour, on every type that
// can have a managed identity.
type identity struct{ c *armcore.Core }

// FillBody gives managed identities what ARM gives them: a
// user-assigned identity its principalId, clientId and tenantId, and a
// resource with a system-assigned identity that identity's principalId and
// tenantId. Values already assigned are kept across updates, as in Azure.
func (identity) FillBody(tx armcore.Tx, b *armcore.Body) {
	rec, out, props, prev, prevProps := b.Record, b.Out, b.Props, b.Prev, b.PrevProps
	if strings.EqualFold(rec.Type, typeUserAssignedIdentity) {
		for _, k := range []string{"principalId", "clientId"} {
			props[k] = keep(prevProps, k, tx.NewUUID)
		}
		props["tenantId"] = armcore.Tenant
	}
	id, _ := out["identity"].(map[string]any)
	kind, _ := id["type"].(string)
	if !strings.Contains(strings.ToLower(kind), "systemassigned") {
		return
	}
	prevIdentity, _ := prev["identity"].(map[string]any)
	id["principalId"] = keep(prevIdentity, "principalId", tx.NewUUID)
	id["tenantId"] = armcore.Tenant
}

// keep returns m[key] when it is a non-empty string, else a fresh value.
func keep(m map[string]any, key string, fresh func() string) string {
	if v, ok := m[key].(string); ok && v != "" {
		return v
	}
	return fresh()
}

// Route answers GET {scope}/providers/Microsoft.ManagedIdentity/identities/default:
// the system-assigned identity of the resource at scope, as ARM's
// SystemAssignedIdentities API answers it; 404 when the resource has none.
func (id identity) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if t.Kind != armpath.Resource || !t.ParentIsResource || !strings.EqualFold(t.Type, "Microsoft.ManagedIdentity/identities") || !strings.EqualFold(t.Name, "default") {
		return false, nil
	}
	if r.Method != http.MethodGet {
		return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "A system-assigned identity only answers GET; it is set through its resource's identity.")
	}
	return true, id.c.Read(func(tx armcore.Tx) error {
		scope, _ := armpath.Parse(t.Parent)
		if err := tx.Ancestors(scope, false); err != nil {
			return err
		}
		rec := tx.Live(armpath.Key(t.Parent))
		if rec == nil {
			return armcore.NotFound(scope, scope.RG)
		}
		var body struct {
			Location string         `json:"location"`
			Tags     map[string]any `json:"tags"`
			Identity struct {
				Type        string `json:"type"`
				PrincipalID string `json:"principalId"`
				TenantID    string `json:"tenantId"`
			} `json:"identity"`
		}
		_ = json.Unmarshal(rec.Body, &body)
		if !strings.Contains(strings.ToLower(body.Identity.Type), "systemassigned") || body.Identity.PrincipalID == "" {
			return armcore.NotFound(t, t.RG)
		}
		armcore.WriteJSON(w, http.StatusOK, map[string]any{
			"id": rec.ID + "/providers/Microsoft.ManagedIdentity/identities/default", "name": "default",
			"type": "Microsoft.ManagedIdentity/identities", "location": body.Location, "tags": nonNil(body.Tags),
			"properties": map[string]any{
				"tenantId": body.Identity.TenantID, "principalId": body.Identity.PrincipalID,
				// The identity's application (client) ID, derived from its
				// principal so that it is stable without being stored.
				"clientId": uuid.NewSHA1(uuid.NameSpaceURL, []byte("system-assigned-identity:"+body.Identity.PrincipalID)).String(),
			},
		})
		return nil
	})
}
