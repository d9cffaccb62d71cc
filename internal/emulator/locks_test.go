package emulator

import (
	"net/http"
	"strings"
	"testing"
)

const locksAPI = "?api-version=2020-05-01"

// lockAt puts a management lock of level at scope through ARM's API.
func (c *client) lockAt(scope, name, level string) string {
	c.t.Helper()
	id := scope + "/providers/Microsoft.Authorization/locks/" + name
	resp, body := c.do(http.MethodPut, id+locksAPI, map[string]any{"properties": map[string]any{"level": level, "notes": "kept by the platform team"}})
	mustStatus(c.t, resp, body, http.StatusCreated)
	return id
}

// mustBeLocked checks that the response is ARM's 409 ScopeLocked naming
// the scope, the operation and the locked scope.
func mustBeLocked(t *testing.T, resp *http.Response, body map[string]any, scope, operation, lockedScope string) {
	t.Helper()
	mustStatus(t, resp, body, http.StatusConflict)
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	want := "The scope '" + scope + "' cannot perform " + operation + " operation because following scope(s) are locked: '" + lockedScope + "'. Please remove the lock and try again."
	if errorCode(body) != "ScopeLocked" || msg != want {
		t.Fatalf("%s %s: %v, want ScopeLocked %q", resp.Request.Method, resp.Request.URL.Path, body, want)
	}
}

// TestLocksListedAtEveryScope: locks are stored at a subscription, a
// resource group and a resource, listed at each, with no location.
func TestLocksListedAtEveryScope(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	id := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	c.mustPut(id, map[string]any{"location": "westus2"})
	ids := []string{c.lockAt(sub, "s", "CanNotDelete"), c.lockAt(rgID, "g", "CanNotDelete"), c.lockAt(id, "r", "ReadOnly")}

	resp, body := c.do(http.MethodGet, ids[2]+locksAPI, nil)
	mustStatus(t, resp, body, http.StatusOK)
	props, _ := body["properties"].(map[string]any)
	if props["level"] != "ReadOnly" || props["notes"] != "kept by the platform team" || body["location"] != nil {
		t.Errorf("GET lock: %v", body)
	}
	resp, body = c.do(http.MethodGet, sub+"/providers/Microsoft.Authorization/locks"+locksAPI, nil)
	mustStatus(t, resp, body, http.StatusOK)
	var listed []string
	for _, v := range body["value"].([]any) {
		listed = append(listed, v.(map[string]any)["id"].(string))
	}
	if strings.Join(listed, " ") != strings.Join(ids, " ") {
		t.Errorf("the subscription's locks: %v, want all of %v", listed, ids)
	}
}

// TestLocksRefuseWritesAsARMDoes: a ReadOnly lock on a resource refuses
// its PUT, PATCH, DELETE and listKeys but not its GET; a CanNotDelete lock
// on a group lets a resource in it be updated but refuses its DELETE and
// the group's; a lock on a resource refuses its group's DELETE; the locks
// themselves stay removable, and once removed the DELETE goes.
func TestLocksRefuseWritesAsARMDoes(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	acct := rgID + "/providers/Microsoft.Storage/storageAccounts/lockedacct"
	c.mustPut(acct, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	ident := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	c.mustPut(ident, map[string]any{"location": "westus2"})

	readOnly := c.lockAt(acct, "ro", "ReadOnly")
	resp, body := c.do(http.MethodPut, acct+apiFor(acct), map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_GRS"}})
	mustBeLocked(t, resp, body, acct, "write", acct)
	resp, body = c.do(http.MethodPatch, acct+apiFor(acct), map[string]any{"tags": map[string]any{"k": "v"}})
	mustBeLocked(t, resp, body, acct, "write", acct)
	resp, body = c.do(http.MethodPost, acct+"/listKeys"+apiFor(acct), nil)
	mustBeLocked(t, resp, body, acct, "write", acct)
	resp, body = c.do(http.MethodDelete, acct+apiFor(acct), nil)
	mustBeLocked(t, resp, body, acct, "delete", acct)
	resp, body = c.do(http.MethodGet, acct+apiFor(acct), nil)
	mustStatus(t, resp, body, http.StatusOK)
	if sku, _ := body["sku"].(map[string]any); sku["name"] != "Standard_LRS" {
		t.Errorf("the refused PUT changed the account: %v", body)
	}
	resp, body = c.do(http.MethodDelete, rgID+rgAPI, nil)
	mustBeLocked(t, resp, body, rgID, "delete", acct)

	resp, body = c.do(http.MethodDelete, readOnly+locksAPI, nil)
	mustStatus(t, resp, body, http.StatusOK)
	c.lockAt(rgID, "nodelete", "CanNotDelete")
	resp, body = c.do(http.MethodPut, ident+apiFor(ident), map[string]any{"location": "westus2", "tags": map[string]any{"k": "v"}})
	mustStatus(t, resp, body, http.StatusOK)
	resp, body = c.do(http.MethodPost, acct+"/listKeys"+apiFor(acct), nil)
	mustStatus(t, resp, body, http.StatusOK)
	resp, body = c.do(http.MethodDelete, ident+apiFor(ident), nil)
	mustBeLocked(t, resp, body, ident, "delete", rgID)
	resp, body = c.do(http.MethodDelete, rgID+rgAPI, nil)
	mustBeLocked(t, resp, body, rgID, "delete", rgID)

	resp, body = c.do(http.MethodDelete, rgID+"/providers/Microsoft.Authorization/locks/nodelete"+locksAPI, nil)
	mustStatus(t, resp, body, http.StatusOK)
	resp, body = c.do(http.MethodDelete, ident+apiFor(ident), nil)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE once unlocked: %d %v", resp.StatusCode, body)
	}
}
