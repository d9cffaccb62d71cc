package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestCreateOnlyPropertyChangeIsRefused: a PUT that changes a property the
// registry knows Azure accepts only at creation is refused with the code the
// provider answers (a Cosmos DB container's partition key: BadRequest) or
// ARM's generic one (a managed cluster's DNS prefix, from its REST spec:
// PropertyChangeNotAllowed), naming the property; the same body with the
// property unchanged, or left out, is accepted.
func TestCreateOnlyPropertyChangeIsRefused(t *testing.T) {
	c := startWithGroup(t, Options{})
	account := rgID + "/providers/Microsoft.DocumentDB/databaseAccounts/acct1"
	c.mustPut(account, map[string]any{"location": "westus2", "properties": map[string]any{
		"databaseAccountOfferType": "Standard", "locations": []any{map[string]any{"locationName": "westus2"}}}})
	db := account + "/sqlDatabases/db1"
	c.mustPut(db, map[string]any{"properties": map[string]any{"resource": map[string]any{"id": "db1"}}})
	container := db + "/containers/c1"
	body := func(path string, ttl int) map[string]any {
		return map[string]any{"properties": map[string]any{"resource": map[string]any{
			"id": "c1", "defaultTtl": ttl, "partitionKey": map[string]any{"paths": []any{path}, "kind": "Hash"}}}}
	}
	c.mustPut(container, body("/id", 60))
	c.mustPut(container, body("/ID", 120)) // paths compare as ARM's IDs do; the TTL is updatable

	resp, out := c.do(http.MethodPut, container+apiFor(container), body("/tenantId", 120))
	mustStatus(t, resp, out, http.StatusBadRequest)
	if code := errorCode(out); code != "BadRequest" {
		t.Errorf("partition key change: code %q, want BadRequest; body %v", code, out)
	}
	if msg, _ := out["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "properties.resource.partitionKey") {
		t.Errorf("partition key change: message %q does not name the property", msg)
	}
	withoutKey := body("/id", 30)
	delete(withoutKey["properties"].(map[string]any)["resource"].(map[string]any), "partitionKey")
	c.mustPut(container, withoutKey)

	cluster := rgID + "/providers/Microsoft.ContainerService/managedClusters/aks1"
	aks := func(prefix string) map[string]any {
		return map[string]any{"location": "westus2", "properties": map[string]any{"dnsPrefix": prefix}}
	}
	c.mustPut(cluster, aks("one"))
	resp, out = c.do(http.MethodPut, cluster+apiFor(cluster), aks("two"))
	mustStatus(t, resp, out, http.StatusConflict)
	if code := errorCode(out); code != "PropertyChangeNotAllowed" {
		t.Errorf("DNS prefix change: code %q, want PropertyChangeNotAllowed; body %v", code, out)
	}
	c.mustPut(cluster, aks("one"))
}
