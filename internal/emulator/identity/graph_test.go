package identity

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// TestGraphLookups drives the Microsoft Graph stand-in over HTTP as the
// Azure CLI's az keyvault create does: /me with an application's token is
// Graph's 400, and the service principal found by its name (the client ID)
// has the object ID the token carries; a user-assigned identity is found by
// its client ID; an unserved query or path is refused, never answered empty.
func TestGraphLookups(t *testing.T) {
	miApp := "0d7f0000-1111-4222-8333-444455556666"
	uami := Principal{ObjectID: "9e9e0000-1111-4222-8333-444455556666", TenantID: Tenant, AppID: miApp, Type: "ServicePrincipal"}
	svc := &Service{Issuer: NewIssuer(), UserAssigned: func(clientID, _, _ string) (Principal, bool) { return uami, clientID == miApp }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !svc.Serve(w, r) {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	app := ForApplication("a2c0e5d4-0000-4000-8000-00000000a2c0")
	appToken, _, err := svc.Issuer.Issue(srv.URL+"/"+Tenant+"/v2.0", app, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	foreign, _, _ := NewIssuer().Issue(srv.URL+"/"+Tenant+"/v2.0", app, "https://graph.microsoft.com")
	get := func(token, path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode, body
	}
	errorCode := func(body map[string]any) string {
		e, _ := body["error"].(map[string]any)
		code, _ := e["code"].(string)
		return code
	}
	onlyID := func(body map[string]any) string {
		items, _ := body["value"].([]any)
		if len(items) != 1 {
			t.Fatalf("want one directory object, got %v", body)
		}
		id, _ := items[0].(map[string]any)["id"].(string)
		return id
	}
	spn := func(appID string) string {
		return "/v1.0/servicePrincipals?$filter=" + url.QueryEscape("servicePrincipalNames/any(c:c eq '"+appID+"')")
	}

	if status, body := get(appToken, "/v1.0/me"); status != http.StatusBadRequest || errorCode(body) != "BadRequest" {
		t.Errorf("/me with an application's token: %d %v", status, body)
	}
	if status, body := get(appToken, spn(app.AppID)); status != http.StatusOK || onlyID(body) != app.ObjectID {
		t.Errorf("the application's service principal: %d %v, want id %s", status, body, app.ObjectID)
	}
	if status, body := get(appToken, "/v1.0/servicePrincipals?$filter="+url.QueryEscape("appId eq '"+miApp+"'")); status != http.StatusOK || onlyID(body) != uami.ObjectID {
		t.Errorf("a user-assigned identity's service principal: %d %v", status, body)
	}
	if status, body := get("opaque-token", "/v1.0/me"); status != http.StatusOK || body["id"] != Default.ObjectID || body["userPrincipalName"] != DefaultUserPrincipalName {
		t.Errorf("/me for the default user: %d %v", status, body)
	}
	if status, body := get("opaque-token", "/v1.0/users?$filter="+url.QueryEscape("userPrincipalName eq 'nobody@example.com'")); status != http.StatusOK || len(body["value"].([]any)) != 0 {
		t.Errorf("an unknown user: %d %v", status, body)
	}
	for path, want := range map[string]string{
		"/v1.0/servicePrincipals": "Request_UnsupportedQuery",
		"/v1.0/servicePrincipals?$filter=" + url.QueryEscape("displayName eq 'x'"): "Request_UnsupportedQuery",
		"/v1.0/groups": "BadRequest",
	} {
		if status, body := get(appToken, path); status != http.StatusBadRequest || errorCode(body) != want {
			t.Errorf("%s: %d %v, want 400 %s", path, status, body, want)
		}
	}
	for name, token := range map[string]string{"no token": "", "another issuer's token": foreign} {
		if status, body := get(token, "/v1.0/me"); status != http.StatusUnauthorized || errorCode(body) != "InvalidAuthenticationToken" {
			t.Errorf("%s: %d %v", name, status, body)
		}
	}
}
