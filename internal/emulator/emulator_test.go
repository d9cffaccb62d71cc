package emulator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

const vnetID = rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"

func networkLRO(write, del time.Duration) []LRORule {
	return []LRORule{
		{Type: "Microsoft.Network/*", Write: write, Delete: del},
		{Type: armpath.TypeResourceGroup, Delete: del},
	}
}

func TestCreatePollReadUpdateDeleteCascade(t *testing.T) {
	c := start(t, Options{LRO: networkLRO(300*time.Millisecond, 300*time.Millisecond)}, false)

	resp, rg := c.do(http.MethodPut, rgID+"?api-version=2020-06-01", map[string]any{"location": "westus2"})
	mustStatus(t, resp, rg, http.StatusCreated)
	if resp.Header.Get("Azure-AsyncOperation") != "" || provisioningState(rg) != "Succeeded" {
		t.Fatalf("resource group PUT should be synchronous: %v %v", resp.Header, rg)
	}

	resp, vnet := c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
	mustStatus(t, resp, vnet, http.StatusCreated)
	if resp.Header.Get("Azure-AsyncOperation") == "" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("LRO PUT headers missing: %v", resp.Header)
	}
	if st := provisioningState(vnet); st != "Accepted" && st != "Creating" {
		t.Fatalf("provisioningState during create = %q", st)
	}
	if vnet["id"] != vnetID || vnet["name"] != "vnet1" || vnet["type"] != "Microsoft.Network/virtualNetworks" {
		t.Fatalf("envelope: %v", vnet)
	}
	resp2, mid := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, resp2, mid, http.StatusOK)
	if st := provisioningState(mid); st == "Succeeded" {
		t.Fatalf("GET during the operation already Succeeded")
	}
	done, err := c.pollUntilDone(resp)
	if err != nil {
		t.Fatal(err)
	}
	props := done["properties"].(map[string]any)
	if props["provisioningState"] != "Succeeded" || props["resourceGuid"] == "" || done["etag"] == nil || done["systemData"] == nil {
		t.Fatalf("final body lacks ARM fields: %v", done)
	}
	if done["location"] != "westus2" || done["tags"] == nil {
		t.Fatalf("location/tags: %v", done)
	}

	// PATCH merges; read-only properties survive.
	resp, patched := c.do(http.MethodPatch, vnetID+api, map[string]any{"tags": map[string]any{"env": "dev"}})
	mustStatus(t, resp, patched, http.StatusOK)
	if patched, err = c.pollUntilDone(resp); err != nil {
		t.Fatal(err)
	}
	pp := patched["properties"].(map[string]any)
	if patched["tags"].(map[string]any)["env"] != "dev" || pp["resourceGuid"] != props["resourceGuid"] || pp["addressSpace"] == nil {
		t.Fatalf("PATCH did not merge: %v", patched)
	}

	subnetID := vnetID + "/subnets/s1"
	c.mustPut(subnetID, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}})
	raID := vnetID + "/providers/Microsoft.Authorization/roleAssignments/ra1"
	ra := c.mustPut(raID, map[string]any{"properties": map[string]any{"principalId": "p",
		"roleDefinitionId": sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}})
	if ra["type"] != "Microsoft.Authorization/roleAssignments" || ra["id"] != raID {
		t.Fatalf("extension resource envelope: %v", ra)
	}
	resp, list := c.do(http.MethodGet, rgID+"/resources"+rgAPI, nil)
	mustStatus(t, resp, list, http.StatusOK)
	if n := len(list["value"].([]any)); n != 1 {
		t.Fatalf("resource group lists %d resources, want 1 (the vnet)", n)
	}

	// Deleting the resource group takes the vnet, its subnet and the role assignment with it.
	resp, _ = c.do(http.MethodDelete, rgID+"?api-version=2020-06-01", nil)
	mustStatus(t, resp, nil, http.StatusAccepted)
	loc := resp.Header.Get("Location")
	if loc == "" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("DELETE headers: %v", resp.Header)
	}
	resp2, _ = c.do(http.MethodGet, loc, nil)
	mustStatus(t, resp2, nil, http.StatusAccepted)
	resp2, during := c.do(http.MethodGet, subnetID+api, nil)
	mustStatus(t, resp2, during, http.StatusOK)
	if provisioningState(during) != "Deleting" {
		t.Fatalf("child during cascade delete: %v", during)
	}
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatal(err)
	}
	resp2, _ = c.do(http.MethodGet, loc, nil)
	mustStatus(t, resp2, nil, http.StatusNoContent)
	for _, id := range []string{rgID + "?api-version=2020-06-01", vnetID + api, subnetID + api, raID + apiFor(raID)} {
		resp, body := c.do(http.MethodGet, id, nil)
		mustStatus(t, resp, body, http.StatusNotFound)
	}
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	resp, body := c.do(http.MethodGet, subnetID+api, nil)
	mustStatus(t, resp, body, http.StatusNotFound)
	if errorCode(body) != "ResourceNotFound" || !strings.Contains(body["error"].(map[string]any)["message"].(string), "virtualNetworks/vnet1") {
		t.Fatalf("child of a deleted parent: %v", body)
	}
}

func TestARMErrors(t *testing.T) {
	c := start(t, Options{MaxBodyBytes: 1024}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})

	req, _ := http.NewRequest(http.MethodGet, c.base+rgID+rgAPI, nil)
	raw, err := c.run.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw.Body.Close()
	if raw.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no Authorization header: %d", raw.StatusCode)
	}

	cases := []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{http.MethodGet, rgID, nil, 400, "MissingApiVersionParameter"},
		{http.MethodGet, sub + "/resourceGroups/nope/providers/Microsoft.Network/virtualNetworks/v" + api, nil, 404, "ResourceGroupNotFound"},
		{http.MethodPut, sub + "/resourceGroups/nope/providers/Microsoft.Network/virtualNetworks/v" + api, map[string]any{}, 404, "ResourceGroupNotFound"},
		{http.MethodPut, vnetID + "/subnets/s1" + api, map[string]any{}, 404, "ParentResourceNotFound"},
		{http.MethodGet, vnetID + "/subnets/s1" + api, nil, 404, "ResourceNotFound"},
		{http.MethodGet, vnetID + api, nil, 404, "ResourceNotFound"},
		{http.MethodPut, vnetID + api, "{not json", 400, "InvalidRequestContent"},
		{http.MethodPut, vnetID + api, `["array"]`, 400, "InvalidRequestContent"},
		{http.MethodPut, vnetID + api, `{"location":"` + strings.Repeat("x", 2000) + `"}`, 413, "RequestContentTooLarge"},
		{http.MethodPatch, vnetID + api, map[string]any{}, 404, "ResourceNotFound"},
		{http.MethodPut, sub + "/resourceGroups/nolocation?api-version=2020-06-01", map[string]any{}, 400, "LocationRequired"},
	}
	for _, tc := range cases {
		resp, body := c.do(tc.method, tc.path, tc.body)
		if resp.StatusCode != tc.status || errorCode(body) != tc.code {
			t.Errorf("%s %s: %d %v, want %d %s", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.code)
		}
		if msg, _ := body["error"].(map[string]any)["message"].(string); msg == "" {
			t.Errorf("%s %s: error without message: %v", tc.method, tc.path, body)
		}
	}

	// Types are case-insensitive in paths; the first PUT's casing is kept.
	c.mustPut(rgID+"/providers/microsoft.network/VIRTUALNETWORKS/Vnet2", map[string]any{"location": "westus2"})
	resp, body := c.do(http.MethodGet, rgID+"/providers/Microsoft.Network/virtualNetworks/vnet2"+api, nil)
	mustStatus(t, resp, body, http.StatusOK)
	if body["type"] != "microsoft.network/VIRTUALNETWORKS" || body["name"] != "Vnet2" {
		t.Fatalf("canonical casing: %v", body)
	}
	// Deleting what does not exist is 204, as in ARM.
	resp, _ = c.do(http.MethodDelete, vnetID+api, nil)
	mustStatus(t, resp, nil, http.StatusNoContent)
}

func TestETags(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	v := c.mustPut(vnetID, map[string]any{"location": "westus2"})
	etag := v["etag"].(string)

	resp, body := c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2"}, "If-Match", `W/"other"`)
	mustStatus(t, resp, body, http.StatusPreconditionFailed)
	resp, body = c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2"}, "If-None-Match", "*")
	mustStatus(t, resp, body, http.StatusPreconditionFailed)
	resp, body = c.do(http.MethodGet, vnetID+api, nil, "If-None-Match", etag)
	mustStatus(t, resp, body, http.StatusNotModified)
	resp, body = c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2"}, "If-Match", etag)
	mustStatus(t, resp, body, http.StatusOK)
	if body["etag"] == etag || resp.Header.Get("ETag") != body["etag"] {
		t.Fatalf("ETag not renewed on update: %v / %v", etag, body["etag"])
	}
	resp, body = c.do(http.MethodDelete, vnetID+api, nil, "If-Match", etag)
	mustStatus(t, resp, body, http.StatusPreconditionFailed)
}

func TestPaging(t *testing.T) {
	c := start(t, Options{PageSize: 2}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(vnetID, map[string]any{"location": "westus2"})
	var want []string
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("%s/subnets/s%d", vnetID, i)
		c.mustPut(id, map[string]any{})
		want = append(want, id)
	}
	var got []string
	pages := 0
	for next := c.base + vnetID + "/subnets" + api; next != ""; pages++ {
		resp, page := c.do(http.MethodGet, next, nil)
		mustStatus(t, resp, page, http.StatusOK)
		for _, v := range page["value"].([]any) {
			got = append(got, v.(map[string]any)["id"].(string))
		}
		next, _ = page["nextLink"].(string)
	}
	if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%d pages, ids %v, want 3 pages of %v", pages, got, want)
	}
	resp, page := c.do(http.MethodGet, sub+"/providers/Microsoft.Network/virtualNetworks"+api, nil)
	mustStatus(t, resp, page, http.StatusOK)
	if len(page["value"].([]any)) != 1 {
		t.Fatalf("subscription-wide list: %v", page)
	}
}

func TestKeyVaultSoftDeleteRecoverPurge(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	kvID := rgID + "/providers/Microsoft.KeyVault/vaults/kv1"
	body := map[string]any{"location": "westus2", "properties": map[string]any{"tenantId": "t", "sku": map[string]any{"name": "standard"}}}
	created := c.mustPut(kvID, body)
	guid := created["properties"].(map[string]any)["resourceGuid"]

	resp, _ := c.do(http.MethodDelete, kvID+apiFor(kvID), nil)
	mustStatus(t, resp, nil, http.StatusOK)
	deletedID := sub + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/kv1"
	resp, dv := c.do(http.MethodGet, deletedID+apiFor(deletedID), nil)
	mustStatus(t, resp, dv, http.StatusOK)
	if dv["properties"].(map[string]any)["vaultId"] != kvID {
		t.Fatalf("deleted vault: %v", dv)
	}
	resp, list := c.do(http.MethodGet, sub+"/providers/Microsoft.KeyVault/deletedVaults"+"?api-version=2023-07-01", nil)
	mustStatus(t, resp, list, http.StatusOK)
	if len(list["value"].([]any)) != 1 {
		t.Fatalf("deleted vault list: %v", list)
	}
	resp, conflict := c.do(http.MethodPut, kvID+apiFor(kvID), body)
	mustStatus(t, resp, conflict, http.StatusConflict)

	recover := map[string]any{"location": "westus2", "properties": map[string]any{"tenantId": "t", "sku": map[string]any{"name": "standard"}, "createMode": "recover"}}
	restored := c.mustPut(kvID, recover)
	rp := restored["properties"].(map[string]any)
	if rp["resourceGuid"] != guid || rp["createMode"] != nil {
		t.Fatalf("recovered vault: %v", restored)
	}
	resp, gone := c.do(http.MethodGet, deletedID+apiFor(deletedID), nil)
	mustStatus(t, resp, gone, http.StatusNotFound)

	resp, _ = c.do(http.MethodDelete, kvID+apiFor(kvID), nil)
	mustStatus(t, resp, nil, http.StatusOK)
	resp = c.send(http.MethodPost, deletedID+"/purge"+apiFor(deletedID), nil)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Location") == "" {
		t.Fatalf("purge: %d %v", resp.StatusCode, resp.Header)
	}
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatal(err)
	}
	resp, gone = c.do(http.MethodGet, deletedID+apiFor(deletedID), nil)
	if resp.StatusCode != http.StatusNotFound || errorCode(gone) != "DeletedVaultNotFound" {
		t.Fatalf("after purge: %d %v", resp.StatusCode, gone)
	}
	c.mustPut(kvID, body) // a purged name is free again
}

func TestStateSurvivesRestartAndTornJournal(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	v := c.mustPut(vnetID, map[string]any{"location": "westus2", "tags": map[string]any{"a": "b"}})
	c.mustPut(vnetID+"/subnets/s1", map[string]any{})
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash mid-append leaves half a line behind.
	f, err := os.OpenFile(filepath.Join(dir, store.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`deadbeef {"t":"r","k":"/subscriptions/x","r":{"id":`)
	f.Close()

	run, err = Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	c = newClient(t, run, false)
	resp, got := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, resp, got, http.StatusOK)
	if got["etag"] != v["etag"] || got["tags"].(map[string]any)["a"] != "b" {
		t.Fatalf("after restart: %v, want %v", got, v)
	}
	// Compaction folds the journal into a snapshot; later writes go to the fresh journal.
	err = run.Server.core.Write(func(tx armcore.Tx) error { return tx.Store().Compact(time.Now()) })
	if err != nil {
		t.Fatal(err)
	}
	c.mustPut(vnetID+"/subnets/s2", map[string]any{})
	run.Close()

	run, err = Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	c = newClient(t, run, false)
	resp, page := c.do(http.MethodGet, vnetID+"/subnets"+api, nil)
	mustStatus(t, resp, page, http.StatusOK)
	if len(page["value"].([]any)) != 2 {
		t.Fatalf("after compaction and restart: %v", page)
	}
}

// TestConcurrentRequests hammers one resource group from several goroutines
// (run with -race). Each goroutine owns its resources, so every answer is
// determined: a PUT creates or updates, the GET after it finds the resource.
func TestConcurrentRequests(t *testing.T) {
	c := start(t, Options{LRO: networkLRO(5*time.Millisecond, 5*time.Millisecond)}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	expect := func(resp *http.Response, what string, codes ...int) {
		resp.Body.Close()
		for _, code := range codes {
			if resp.StatusCode == code {
				return
			}
		}
		t.Errorf("%s: status %d, want one of %v", what, resp.StatusCode, codes)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				id := fmt.Sprintf("%s/providers/Microsoft.Network/virtualNetworks/v%d-%d", rgID, g, i%3)
				expect(c.send(http.MethodPut, id+api, map[string]any{"location": "westus2"}), "PUT "+id, http.StatusOK, http.StatusCreated)
				expect(c.send(http.MethodGet, id+api, nil), "GET "+id, http.StatusOK)
				if i%4 == 0 {
					// Wait for the deletion, so that the next PUT of the name is not a PUT during it (409).
					resp := c.send(http.MethodDelete, id+api, nil)
					if resp.StatusCode == http.StatusAccepted {
						if _, err := c.pollUntilDone(resp); err != nil {
							t.Errorf("DELETE %s: %v", id, err)
						}
						continue
					}
					expect(resp, "DELETE "+id, http.StatusOK, http.StatusNoContent)
				}
				expect(c.send(http.MethodGet, rgID+"/resources"+rgAPI, nil), "list", http.StatusOK)
			}
		}()
	}
	wg.Wait()
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManagedIdentitiesGetPrincipals(t *testing.T) {
	c := start(t, Options{}, false)
	rg := sub + "/resourceGroups/ids"
	c.mustPut(rg, map[string]any{"location": "westus2"})
	id := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	first := c.mustPut(id, map[string]any{"location": "westus2"})
	props := first["properties"].(map[string]any)
	for _, k := range []string{"principalId", "clientId", "tenantId"} {
		if v, _ := props[k].(string); len(v) != 36 {
			t.Errorf("%s = %v, want a UUID", k, props[k])
		}
	}
	again := c.mustPut(id, map[string]any{"location": "westus2", "tags": map[string]any{"a": "b"}})
	if again["properties"].(map[string]any)["principalId"] != props["principalId"] {
		t.Error("principalId changed on update")
	}
	vault := c.mustPut(rg+"/providers/Microsoft.KeyVault/vaults/kv1", map[string]any{"location": "westus2", "identity": map[string]any{"type": "SystemAssigned"}})
	if v, _ := vault["identity"].(map[string]any)["principalId"].(string); len(v) != 36 {
		t.Errorf("system-assigned identity has no principalId: %v", vault["identity"])
	}
}
