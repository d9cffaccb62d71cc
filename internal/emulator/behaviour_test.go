package emulator

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armjson"
)

// Regression tests for what ARM does and the emulator did not (issue 16),
// each driven over HTTPS as a client would.

const (
	saID  = rgID + "/providers/Microsoft.Storage/storageAccounts/sa1"
	saAPI = "?api-version=2023-01-01"
	nicID = rgID + "/providers/Microsoft.Network/networkInterfaces/nic1"
)

func startWithGroup(t *testing.T, opts Options) *client {
	c := start(t, opts, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	return c
}

func nicBody(subnetID string) map[string]any {
	return map[string]any{"location": "westus2", "properties": map[string]any{"ipConfigurations": []any{
		map[string]any{"name": "ipconfig1", "properties": map[string]any{"subnet": map[string]any{"id": subnetID}}},
	}}}
}

func TestVNetInUseBySubnetCannotBeDeleted(t *testing.T) {
	c := startWithGroup(t, Options{})
	c.mustPut(vnetID, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
	c.mustPut(vnetID+"/subnets/s1", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	c.mustPut(nicID, nicBody(vnetID+"/subnets/s1"))
	resp, body := c.do(http.MethodDelete, vnetID+api, nil)
	mustStatus(t, resp, body, http.StatusBadRequest)
	if errorCode(body) != "InUseSubnetCannotBeDeleted" {
		t.Fatalf("deleting a network whose subnet a NIC uses: %v", body)
	}
	resp, body = c.do(http.MethodGet, vnetID+"/subnets/s1"+api, nil)
	mustStatus(t, resp, body, http.StatusOK)
	// The resource group goes with everything in it, the NIC included.
	resp, _ = c.do(http.MethodDelete, rgID+"?api-version=2020-06-01", nil)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		t.Fatalf("deleting the resource group: %d", resp.StatusCode)
	}
}

func TestPatchReplacesTags(t *testing.T) {
	c := startWithGroup(t, Options{})
	c.mustPut(vnetID, map[string]any{"location": "westus2", "tags": map[string]any{"a": "1", "b": "2"}})
	resp, got := c.do(http.MethodPatch, vnetID+api, map[string]any{"tags": map[string]any{"c": "3"}})
	mustStatus(t, resp, got, http.StatusOK)
	if tags := got["tags"].(map[string]any); len(tags) != 1 || tags["c"] != "3" {
		t.Fatalf("PATCH tags: %v, want only c", tags)
	}
}

func TestPutAnswersPerType(t *testing.T) {
	c := startWithGroup(t, Options{})
	for _, tc := range []struct {
		id, api string
		body    map[string]any
		status  int
		headers string // the polling headers sent, "+"-joined
	}{
		{saID, saAPI, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}, http.StatusAccepted, "Location"},
		{rgID + "/providers/Microsoft.DBforMySQL/flexibleServers/my1", "?api-version=2023-06-30", map[string]any{"location": "westus2"}, http.StatusAccepted, "Location+Azure-AsyncOperation"},
		{vnetID, api, map[string]any{"location": "westus2"}, http.StatusCreated, "Azure-AsyncOperation"},
		{sub + "/resourceGroups/rg2", "?api-version=2020-06-01", map[string]any{"location": "westus2"}, http.StatusCreated, ""},
		{rgID + "/providers/Microsoft.KeyVault/vaults/kv1", "?api-version=2023-07-01", map[string]any{"location": "westus2", "properties": map[string]any{"tenantId": Tenant, "sku": map[string]any{"family": "A", "name": "standard"}}}, http.StatusOK, ""},
	} {
		resp := c.send(http.MethodPut, tc.id+tc.api, tc.body)
		if resp.StatusCode != tc.status {
			t.Errorf("PUT %s: %d, want %d", tc.id, resp.StatusCode, tc.status)
		}
		for _, h := range []string{"Location", "Azure-AsyncOperation"} {
			want := tc.headers != "" && strings.Contains("+"+tc.headers+"+", "+"+h+"+")
			if got := resp.Header.Get(h) != ""; got != want {
				t.Errorf("PUT %s: header %s present %v, want %v", tc.id, h, got, want)
			}
		}
		done, err := c.pollUntilDone(resp)
		if err != nil {
			t.Fatalf("PUT %s: %v", tc.id, err)
		}
		if done["id"] != tc.id || provisioningState(done) != "Succeeded" {
			t.Errorf("PUT %s: final body %v", tc.id, done)
		}
	}
}

func TestHeadAndEmptyLists(t *testing.T) {
	c := startWithGroup(t, Options{})
	resp, _ := c.do(http.MethodHead, rgID+"?api-version=2020-06-01", nil)
	mustStatus(t, resp, nil, http.StatusNoContent)
	resp, _ = c.do(http.MethodHead, sub+"/resourceGroups/none?api-version=2020-06-01", nil)
	mustStatus(t, resp, nil, http.StatusNotFound)
	for _, path := range []string{sub + "/providers/Microsoft.KeyVault/deletedVaults?api-version=2023-07-01", rgID + "/providers/Microsoft.Network/virtualNetworks" + api} {
		resp := c.send(http.MethodGet, path, nil)
		buf := make([]byte, 64)
		n, _ := resp.Body.Read(buf)
		resp.Body.Close()
		if got := string(buf[:n]); got != `{"value":[]}` {
			t.Errorf("GET %s: %s, want an empty list", path, got)
		}
	}
}

func TestActions(t *testing.T) {
	c := startWithGroup(t, Options{})
	resp, avail := c.do(http.MethodPost, sub+"/providers/Microsoft.Storage/checkNameAvailability"+saAPI, map[string]any{"name": "sa1", "type": "Microsoft.Storage/storageAccounts"})
	mustStatus(t, resp, avail, http.StatusOK)
	if avail["nameAvailable"] != true {
		t.Fatalf("free name: %v", avail)
	}
	c.mustPut(saID, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	_, avail = c.do(http.MethodPost, sub+"/providers/Microsoft.Storage/checkNameAvailability"+saAPI, map[string]any{"name": "sa1", "type": "Microsoft.Storage/storageAccounts"})
	if avail["nameAvailable"] != false || avail["reason"] != "AlreadyExists" {
		t.Fatalf("taken name: %v", avail)
	}
	resp, keys := c.do(http.MethodPost, saID+"/listKeys"+saAPI, nil)
	mustStatus(t, resp, keys, http.StatusOK)
	list := keys["keys"].([]any)
	first := list[0].(map[string]any)
	if len(list) != 2 || first["keyName"] != "key1" || len(first["value"].(string)) < 40 {
		t.Fatalf("listKeys: %v", keys)
	}
	_, again := c.do(http.MethodPost, saID+"/listKeys"+saAPI, nil)
	if again["keys"].([]any)[0].(map[string]any)["value"] != first["value"] {
		t.Error("keys change between reads")
	}
	resp, regenerated := c.do(http.MethodPost, saID+"/regenerateKey"+saAPI, map[string]any{"keyName": "key1"})
	mustStatus(t, resp, regenerated, http.StatusOK)
	if regenerated["keys"].([]any)[0].(map[string]any)["value"] == first["value"] {
		t.Error("regenerateKey kept the key")
	}
	resp, body := c.do(http.MethodPost, saID+"/noSuchAction"+saAPI, nil)
	mustStatus(t, resp, body, http.StatusNotFound)

	cosmos := rgID + "/providers/Microsoft.DocumentDB/databaseAccounts/db1"
	c.mustPut(cosmos, map[string]any{"location": "westus2", "properties": map[string]any{"databaseAccountOfferType": "Standard"}})
	resp, cs := c.do(http.MethodPost, cosmos+"/listConnectionStrings"+apiFor(cosmos), nil)
	mustStatus(t, resp, cs, http.StatusOK)
	if items, _ := cs["connectionStrings"].([]any); len(items) == 0 {
		t.Errorf("listConnectionStrings: %v", cs)
	}
	redis := rgID + "/providers/Microsoft.Cache/redis/r1"
	c.mustPut(redis, map[string]any{"location": "westus2", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}})
	resp, rk := c.do(http.MethodPost, redis+"/listKeys"+apiFor(redis), nil)
	mustStatus(t, resp, rk, http.StatusOK)
	if rk["primaryKey"] == nil || rk["primaryKey"] == rk["secondaryKey"] {
		t.Errorf("redis listKeys: %v", rk)
	}
}

func TestChildrenCreatedWithParentAndFilledValues(t *testing.T) {
	c := startWithGroup(t, Options{})
	sa := c.mustPut(saID, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	endpoints, _ := armjson.Lookup(sa, []string{"properties", "primaryEndpoints", "blob"})
	if endpoints != "https://sa1.blob.core.windows.net/" {
		t.Errorf("storage account primaryEndpoints.blob = %v", endpoints)
	}
	for _, svc := range []string{"blobServices", "fileServices", "queueServices", "tableServices"} {
		resp, body := c.do(http.MethodGet, saID+"/"+svc+"/default"+saAPI, nil)
		mustStatus(t, resp, body, http.StatusOK)
	}
	c.mustPut(saID+"/blobServices/default/containers/c1", map[string]any{"properties": map[string]any{}})

	kv := c.mustPut(rgID+"/providers/Microsoft.KeyVault/vaults/kv1", map[string]any{"location": "westus2", "properties": map[string]any{"tenantId": Tenant}})
	if uri, _ := armjson.Lookup(kv, []string{"properties", "vaultUri"}); uri != "https://kv1.vault.azure.net/" {
		t.Errorf("vaultUri = %v", uri)
	}

	nsg := c.mustPut(rgID+"/providers/Microsoft.Network/networkSecurityGroups/nsg1", map[string]any{"location": "westus2"})
	rules, _ := armjson.Lookup(nsg, []string{"properties", "defaultSecurityRules"})
	if list, _ := rules.([]any); len(list) != 6 || !strings.HasSuffix(list[0].(map[string]any)["id"].(string), "/nsg1/defaultSecurityRules/AllowVnetInBound") {
		t.Errorf("NSG default rules: %v", rules)
	}

	c.mustPut(vnetID, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
	subnet := vnetID + "/subnets/s1"
	c.mustPut(subnet, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	nic := c.mustPut(nicID, nicBody(subnet))
	nic2 := c.mustPut(nicID+"b", nicBody(subnet))
	ipc := func(n map[string]any) map[string]any {
		v, _ := armjson.Lookup(n, []string{"properties", "ipConfigurations"})
		return v.([]any)[0].(map[string]any)
	}
	if ipc(nic)["id"] != nicID+"/ipConfigurations/ipconfig1" {
		t.Errorf("ipConfiguration ID: %v", ipc(nic)["id"])
	}
	ip1, _ := armjson.Lookup(ipc(nic), []string{"properties", "privateIPAddress"})
	ip2, _ := armjson.Lookup(ipc(nic2), []string{"properties", "privateIPAddress"})
	if ip1 != "10.0.1.4" || ip2 != "10.0.1.5" {
		t.Errorf("private IPs %v and %v, want 10.0.1.4 and 10.0.1.5", ip1, ip2)
	}
	again := c.mustPut(nicID, nicBody(subnet))
	if ip, _ := armjson.Lookup(ipc(again), []string{"properties", "privateIPAddress"}); ip != ip1 {
		t.Errorf("an update moved the private IP from %v to %v", ip1, ip)
	}
	resp, s := c.do(http.MethodGet, subnet+api, nil)
	mustStatus(t, resp, s, http.StatusOK)
	refs, _ := armjson.Lookup(s, []string{"properties", "ipConfigurations"})
	if list, _ := refs.([]any); len(list) != 2 || list[0].(map[string]any)["id"] != nicID+"/ipConfigurations/ipconfig1" {
		t.Errorf("subnet back-references: %v", refs)
	}
	resp, v := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, resp, v, http.StatusOK)
	embedded, _ := armjson.Lookup(v, []string{"properties", "subnets"})
	if _, ok := armjson.Lookup(embedded.([]any)[0].(map[string]any), []string{"properties", "ipConfigurations"}); !ok {
		t.Errorf("the network's embedded subnet lacks its IP configurations: %v", embedded)
	}
}

func TestIdentitiesVersionsAndRequestIDs(t *testing.T) {
	c := startWithGroup(t, Options{})
	id := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	ident := c.mustPut(id, map[string]any{"location": "westus2"})
	resp, subscription := c.do(http.MethodGet, sub+"?api-version=2022-12-01", nil)
	mustStatus(t, resp, subscription, http.StatusOK)
	if tenant, _ := armjson.Lookup(ident, []string{"properties", "tenantId"}); tenant != subscription["tenantId"] {
		t.Errorf("identity tenant %v, subscription tenant %v", tenant, subscription["tenantId"])
	}

	resp, body := c.do(http.MethodGet, vnetID+"?api-version=2099-01-01", nil)
	mustStatus(t, resp, body, http.StatusBadRequest)
	msg, _ := body["error"].(map[string]any)["message"].(string)
	if errorCode(body) != "InvalidApiVersionParameter" || !strings.Contains(msg, "2020-11-01") || !strings.Contains(msg, "2099-01-01") {
		t.Errorf("unserved api-version: %v", body)
	}
	resp, body = c.do(http.MethodGet, rgID+"?api-version=latest", nil)
	mustStatus(t, resp, body, http.StatusBadRequest)

	r1, _ := c.do(http.MethodGet, rgID+"?api-version=2020-06-01", nil, "x-ms-correlation-request-id", "my-correlation")
	r2, _ := c.do(http.MethodGet, rgID+"?api-version=2020-06-01", nil)
	if r1.Header.Get("x-ms-correlation-request-id") != "my-correlation" {
		t.Errorf("correlation ID not echoed: %v", r1.Header)
	}
	if a, b := r1.Header.Get("x-ms-request-id"), r2.Header.Get("x-ms-request-id"); len(a) != 36 || a == b || a == "my-correlation" {
		t.Errorf("request IDs %q %q are not ARM's own", a, b)
	}

	guid := func(opts Options) any {
		c := startWithGroup(t, opts)
		v, _ := armjson.Lookup(c.mustPut(vnetID, map[string]any{"location": "westus2"}), []string{"properties", "resourceGuid"})
		return v
	}
	if guid(Options{}) == guid(Options{}) {
		t.Error("two fresh emulators generate the same IDs")
	}
	if guid(Options{Seed: 7}) != guid(Options{Seed: 7}) {
		t.Error("two emulators with one seed generate different IDs")
	}
}

// TestSecretsAreNeitherStoredNorReturned: ARM never returns a secret
// property, so the emulator neither answers nor keeps it (issue 12 item 7).
func TestSecretsAreNeitherStoredNorReturned(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	const canary = "Canary-Pa55word-e7a1"
	id := rgID + "/providers/Microsoft.DBforMySQL/flexibleServers/mysql1"
	got := c.mustPut(id, map[string]any{"location": "westus2", "properties": map[string]any{"administratorLogin": "admin", "administratorLoginPassword": canary}})
	resp, read := c.do(http.MethodGet, id+apiFor(id), nil)
	mustStatus(t, resp, read, http.StatusOK)
	for _, body := range []map[string]any{got, read} {
		if _, ok := armjson.Lookup(body, []string{"properties", "administratorLoginPassword"}); ok {
			t.Errorf("the password is returned: %v", body)
		}
		if login, _ := armjson.Lookup(body, []string{"properties", "administratorLogin"}); login != "admin" {
			t.Errorf("a non-secret property was dropped: %v", body)
		}
	}
	run.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), canary) {
			t.Errorf("%s holds the password", filepath.Base(f))
		}
	}
}

// TestWriteOnlyPropertiesAreNotReturned: what the REST specification says
// ARM accepts but never returns (registry.Kind.Body.WriteOnly) is not kept
// either.
func TestWriteOnlyPropertiesAreNotReturned(t *testing.T) {
	c := startWithGroup(t, Options{})
	id := rgID + "/providers/Microsoft.AppConfiguration/configurationStores/store1"
	resp := c.send(http.MethodPut, id+"?api-version=2024-06-01", map[string]any{"location": "westus2", "sku": map[string]any{"name": "standard"},
		"properties": map[string]any{"createMode": "Default", "disableLocalAuth": true}})
	got, err := c.pollUntilDone(resp)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := armjson.Lookup(got, []string{"properties", "createMode"}); ok {
		t.Errorf("a write-only property is returned: %v", got)
	}
	if v, _ := armjson.Lookup(got, []string{"properties", "disableLocalAuth"}); v != true {
		t.Errorf("a readable property was dropped: %v", got)
	}
}
