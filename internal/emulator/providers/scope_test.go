package providers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// TestRoleScopeComparesWholeSegments: an assignment at resource group app
// does not reach app2, in the scope comparison RBAC and Policy share and in
// the permissions ARM answers the caller.
func TestRoleScopeComparesWholeSegments(t *testing.T) {
	app := sub + "/resourceGroups/app"
	for _, c := range []struct {
		scope, target string
		want          bool
	}{
		{app, sub + "/resourceGroups/app2/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", false},
		{app, sub + "/resourceGroups/app2", false},
		{app + "/", sub + "/resourceGroups/app2", false},
		{app, sub + "/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", true},
		{app, sub + "/resourceGroups/APP", true},
		{sub, sub + "/resourceGroups/app2", true},
		{app + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", app, false},
	} {
		if got := covers(c.scope, c.target); got != c.want {
			t.Errorf("covers(%s, %s) = %v, want %v", c.scope, c.target, got, c.want)
		}
	}

	// Through ARM's API: Contributor at app gives the caller nothing in app2.
	c := start(t)
	for _, rg := range []string{app, sub + "/resourceGroups/app2"} {
		sendJSON(t, c, http.MethodPut, rg+"?api-version=2021-04-01", map[string]any{"location": "westus2"}, http.StatusCreated)
	}
	sendJSON(t, c, http.MethodPut, app+"/providers/Microsoft.Authorization/roleAssignments/6f1c6b7e-0000-4000-8000-0000000000a9?api-version=2022-04-01",
		map[string]any{"properties": map[string]any{"principalId": DefaultPrincipal,
			"roleDefinitionId": sub + "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"}}, http.StatusCreated)
	for rg, want := range map[string]bool{"app": true, "app2": false} {
		var page struct {
			Value []Permission `json:"value"`
		}
		body := sendJSON(t, c, http.MethodGet, sub+"/resourceGroups/"+rg+"/providers/Microsoft.Authorization/permissions?api-version=2022-04-01", nil, http.StatusOK)
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		allowed := false
		for _, p := range page.Value {
			allowed = allowed || p.Allows("Microsoft.ManagedIdentity/userAssignedIdentities/write")
		}
		if allowed != want {
			t.Errorf("permissions in %s allow a write: %v, want %v (%s)", rg, allowed, want, body)
		}
	}
}

// sendJSON sends body as JSON and fails unless the status is want.
func sendJSON(t *testing.T, c *client, method, path string, body any, want int) []byte {
	t.Helper()
	rd := bytes.NewReader(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer x")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, out.Bytes())
	}
	return out.Bytes()
}
