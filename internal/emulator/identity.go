package emulator

import (
	"strings"
)

// Tenant is the Microsoft Entra tenant the emulator reports identities in.
const Tenant = "72f988bf-0000-4000-8000-000000000000"

const typeUserAssignedIdentity = "Microsoft.ManagedIdentity/userAssignedIdentities"

// assignIdentities gives managed identities what ARM gives them: a
// user-assigned identity its principalId, clientId and tenantId, and a
// resource with a system-assigned identity that identity's principalId and
// tenantId. Values already assigned are kept across updates, as in Azure.
func (s *Server) assignIdentities(rec *record, out, props, prev, prevProps map[string]any) {
	if strings.EqualFold(rec.Type, typeUserAssignedIdentity) {
		for _, k := range []string{"principalId", "clientId"} {
			props[k] = keep(prevProps, k, s.newUUID)
		}
		props["tenantId"] = Tenant
	}
	identity, _ := out["identity"].(map[string]any)
	kind, _ := identity["type"].(string)
	if !strings.Contains(strings.ToLower(kind), "systemassigned") {
		return
	}
	prevIdentity, _ := prev["identity"].(map[string]any)
	identity["principalId"] = keep(prevIdentity, "principalId", s.newUUID)
	identity["tenantId"] = Tenant
}

// keep returns m[key] when it is a non-empty string, else a fresh value.
func keep(m map[string]any, key string, fresh func() string) string {
	if v, ok := m[key].(string); ok && v != "" {
		return v
	}
	return fresh()
}
