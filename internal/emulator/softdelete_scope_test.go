package emulator

import (
	"net/http"
	"testing"
	"time"
)

// TestPurgeProtectedVaultKeepsItsName: a deleted vault with purge
// protection says so, with the date it is purged, and its name answers a
// create with ARM's ConflictError until it is recovered.
func TestPurgeProtectedVaultKeepsItsName(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	kvID := rgID + "/providers/Microsoft.KeyVault/vaults/kvkept"
	props := map[string]any{"tenantId": "t", "sku": map[string]any{"name": "standard"}, "enablePurgeProtection": true}
	c.mustPut(kvID, map[string]any{"location": "westus2", "properties": props})
	deletedAt := time.Now()
	resp, _ := c.do(http.MethodDelete, kvID+apiFor(kvID), nil)
	mustStatus(t, resp, nil, http.StatusOK)

	deletedID := sub + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kvkept"
	resp, dv := c.do(http.MethodGet, deletedID+apiFor(deletedID), nil)
	mustStatus(t, resp, dv, http.StatusOK)
	dp := dv["properties"].(map[string]any)
	if dp["purgeProtectionEnabled"] != true {
		t.Errorf("purgeProtectionEnabled = %v, want true", dp["purgeProtectionEnabled"])
	}
	purge, err := time.Parse(time.RFC3339, dp["scheduledPurgeDate"].(string))
	if err != nil || purge.Sub(deletedAt) < 89*24*time.Hour || purge.Sub(deletedAt) > 91*24*time.Hour {
		t.Errorf("scheduledPurgeDate %v (%v), want 90 days after the delete", dp["scheduledPurgeDate"], err)
	}

	resp, conflict := c.do(http.MethodPut, kvID+apiFor(kvID), map[string]any{"location": "westus2", "properties": map[string]any{"tenantId": "t", "sku": map[string]any{"name": "standard"}}})
	mustStatus(t, resp, conflict, http.StatusConflict)
	if errorCode(conflict) != "ConflictError" {
		t.Errorf("create over the deleted vault: %v", conflict)
	}
	props["createMode"] = "recover"
	c.mustPut(kvID, map[string]any{"location": "westus2", "properties": props})
}

// TestCosmosSQLRoleAssignmentScope: Cosmos refuses a SQL role assignment
// whose scope is outside its account (another subscription's account) with
// 400 BadRequest, and takes the account, a database under it, or a path
// relative to it.
func TestCosmosSQLRoleAssignmentScope(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	account := rgID + "/providers/Microsoft.DocumentDB/databaseAccounts/pfcosmos"
	c.mustPut(account, map[string]any{"location": "westus2", "properties": map[string]any{
		"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westus2", "failoverPriority": 0}},
	}})
	assignment := func(name, scope string) (*http.Response, map[string]any) {
		id := account + "/sqlRoleAssignments/" + name
		return c.do(http.MethodPut, id+apiFor(id), map[string]any{"properties": map[string]any{
			"principalId":      "0a0a0a0a-0000-4000-8000-00000000000a",
			"roleDefinitionId": account + "/sqlRoleDefinitions/00000000-0000-0000-0000-000000000001",
			"scope":            scope,
		}})
	}
	elsewhere := "/subscriptions/11111111-1111-4111-8111-111111111111/resourceGroups/data/providers/Microsoft.DocumentDB/databaseAccounts/pfcosmos"
	resp, refused := assignment("6f1c6b7e-0000-4000-8000-0000000000c1", elsewhere)
	mustStatus(t, resp, refused, http.StatusBadRequest)
	if errorCode(refused) != "BadRequest" {
		t.Errorf("a scope in another subscription: %v", refused)
	}
	for i, scope := range []string{account, account + "/dbs/todos", "/", "/dbs/todos/colls/items"} {
		resp, body := assignment("6f1c6b7e-0000-4000-8000-0000000000d"+string(rune('0'+i)), scope)
		if resp.StatusCode >= 300 {
			t.Errorf("scope %s: %d %v", scope, resp.StatusCode, body)
		}
	}
}

// TestDeletedResourcesOfOtherKinds: the emulator soft-deletes key vaults
// only, so the deleted paths of the other kinds that keep names (which the
// pre-flight reads at the resource's api-version) answer 404.
func TestDeletedResourcesOfOtherKinds(t *testing.T) {
	c := start(t, Options{}, false)
	for path, version := range map[string]string{
		sub + "/providers/Microsoft.AppConfiguration/locations/westus2/deletedConfigurationStores/cfg":         "2022-05-01",
		sub + "/providers/Microsoft.CognitiveServices/locations/westus2/resourceGroups/rg1/deletedAccounts/ai": "2023-05-01",
		sub + "/providers/Microsoft.ApiManagement/locations/westus2/deletedservices/apim":                      "2022-08-01",
	} {
		resp, body := c.do(http.MethodGet, path+"?api-version="+version, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d %v, want 404", path, resp.StatusCode, body)
		}
	}
}
