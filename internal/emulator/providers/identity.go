package providers

import (
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
)

const typeUserAssignedIdentity = "Microsoft.ManagedIdentity/userAssignedIdentities"

// identity is the Microsoft.ManagedIdentity behaviour, on every type that
// can have a managed identity.
type identity struct{}

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
