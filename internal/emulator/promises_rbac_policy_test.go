package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator/providers"
)

const (
	authzAPI  = "?api-version=2022-04-01"
	policyAPI = "?api-version=2021-06-01"
	// ownerRole is the built-in Owner role's ID.
	ownerRole = sub + "/providers/Microsoft.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
)

// TestEnforceRBACRefusesDeleteWithoutDeletePermission: with EnforceRBAC, a
// caller whose role allows every action but an identity's delete may
// update the identity but its DELETE is refused with ARM's 403 naming the
// delete action, and the identity stays; given Owner, the same DELETE goes.
func TestEnforceRBACRefusesDeleteWithoutDeletePermission(t *testing.T) {
	c := start(t, Options{EnforceRBAC: true}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	id := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	c.mustPut(id, map[string]any{"location": "westus2"})

	// Stored while the caller is still Owner of the fresh subscription.
	role := sub + "/providers/Microsoft.Authorization/roleDefinitions/5b1d0e0a-0000-4000-8000-0000000000d1"
	c.mustPut(role, map[string]any{"properties": map[string]any{
		"roleName": "Writer, not deleter", "type": "CustomRole", "assignableScopes": []any{sub},
		"permissions": []any{map[string]any{"actions": []any{"*"}, "notActions": []any{"Microsoft.ManagedIdentity/userAssignedIdentities/delete"}}},
	}})
	assign := func(scope, name, role string) {
		t.Helper()
		resp, body := c.do(http.MethodPut, scope+"/providers/Microsoft.Authorization/roleAssignments/"+name+authzAPI,
			map[string]any{"properties": map[string]any{"roleDefinitionId": role, "principalId": providers.DefaultPrincipal}})
		mustStatus(t, resp, body, http.StatusCreated)
	}
	assign(sub, "6f1c6b7e-0000-4000-8000-0000000000d2", role)

	resp, body := c.do(http.MethodPut, id+apiFor(id), map[string]any{"location": "westus2", "tags": map[string]any{"k": "v"}})
	mustStatus(t, resp, body, http.StatusOK) // the role allows the write
	resp, body = c.do(http.MethodDelete, id+apiFor(id), nil)
	mustStatus(t, resp, body, http.StatusForbidden)
	e, _ := body["error"].(map[string]any)
	if msg, _ := e["message"].(string); errorCode(body) != "AuthorizationFailed" ||
		!strings.Contains(msg, "'Microsoft.ManagedIdentity/userAssignedIdentities/delete' over scope '"+id+"'") {
		t.Fatalf("the refused DELETE: %v", body)
	}
	resp, body = c.do(http.MethodGet, id+apiFor(id), nil)
	mustStatus(t, resp, body, http.StatusOK)

	assign(rgID, "6f1c6b7e-0000-4000-8000-0000000000d3", ownerRole)
	resp, body = c.do(http.MethodDelete, id+apiFor(id), nil)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE as Owner: %d %v", resp.StatusCode, body)
	}
	resp, body = c.do(http.MethodGet, id+apiFor(id), nil)
	mustStatus(t, resp, body, http.StatusNotFound)
}

// TestPolicyNotScopesExcludeWhatTheyName: a deny assignment at the
// subscription with a notScope on resource group app lets a write in app
// through and refuses the same write in app2 (a name app is a prefix of),
// both when written and when asked through checkPolicyRestrictions.
func TestPolicyNotScopesExcludeWhatTheyName(t *testing.T) {
	c := start(t, Options{}, false)
	app, app2 := sub+"/resourceGroups/app", sub+"/resourceGroups/app2"
	for _, rg := range []string{app, app2} {
		c.mustPut(rg, map[string]any{"location": "westus2"})
	}
	def := sub + "/providers/Microsoft.Authorization/policyDefinitions/deny-identities"
	resp, body := c.do(http.MethodPut, def+policyAPI, map[string]any{"properties": map[string]any{
		"mode":       "All",
		"policyRule": map[string]any{"if": map[string]any{"field": "type", "equals": "Microsoft.ManagedIdentity/userAssignedIdentities"}, "then": map[string]any{"effect": "deny"}},
	}})
	mustStatus(t, resp, body, http.StatusCreated)
	resp, body = c.do(http.MethodPut, sub+"/providers/Microsoft.Authorization/policyAssignments/deny-identities"+policyAPI,
		map[string]any{"properties": map[string]any{"policyDefinitionId": def, "notScopes": []any{app}}})
	mustStatus(t, resp, body, http.StatusCreated)

	identity := map[string]any{"location": "westus2"}
	in := app + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i"
	resp, body = c.do(http.MethodPut, in+apiFor(in), identity)
	mustStatus(t, resp, body, http.StatusCreated)
	out := app2 + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i"
	resp, body = c.do(http.MethodPut, out+apiFor(out), identity)
	mustStatus(t, resp, body, http.StatusForbidden)
	if errorCode(body) != "RequestDisallowedByPolicy" {
		t.Fatalf("the write in app2: %v", body)
	}

	for rg, want := range map[string]int{app: 0, app2: 1} {
		resp, body = c.do(http.MethodPost, rg+"/providers/Microsoft.PolicyInsights/checkPolicyRestrictions?api-version=2022-03-01", map[string]any{
			"resourceDetails": map[string]any{"resourceContent": map[string]any{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "name": "j", "location": "westus2"}},
		})
		mustStatus(t, resp, body, http.StatusOK)
		result, _ := body["contentEvaluationResult"].(map[string]any)
		if evs, _ := result["policyEvaluations"].([]any); len(evs) != want {
			t.Errorf("checkPolicyRestrictions in %s: %d non-compliant evaluations, want %d: %v", rg, len(evs), want, body)
		}
	}
}
