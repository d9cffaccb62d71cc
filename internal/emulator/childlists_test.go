package emulator

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

// childTypes are the ARM types of the registry's table that live under a
// parent resource ("NS/parent/child..."), with the api-version each publishes last.
func childTypes() map[string]string {
	reg := registry.Default()
	namespaces := map[string]bool{}
	for _, gvk := range reg.All() {
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && k.ARMType != "" {
			namespaces[strings.ToLower(k.ARMType[:strings.IndexByte(k.ARMType, '/')])] = true
		}
	}
	out := map[string]string{}
	for ns := range namespaces {
		for _, t := range reg.ARMTypesIn(ns) {
			// Types under locations/ are subscription-level, not a resource's children.
			if strings.Count(t.Type, "/") >= 2 && len(t.APIVersions) > 0 && !strings.Contains(strings.ToLower(t.Type), "/locations/") {
				out[t.Type] = t.APIVersions[len(t.APIVersions)-1]
			}
		}
	}
	return out
}

// TestEveryChildCollectionListsEmptyUnderAParent: listing a child collection
// under an existing parent with no children answers 200 and an empty value
// (but for the children ARM creates with the parent, such as a storage
// account's blobServices/default or a namespace's RootManageSharedAccessKey),
// for every child type the registry knows; under a missing parent 404
// ResourceNotFound; with an api-version the type does not publish 400
// InvalidApiVersionParameter.
func TestEveryChildCollectionListsEmptyUnderAParent(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	types := childTypes()
	names := make([]string, 0, len(types))
	for typ := range types {
		names = append(names, typ)
	}
	sort.Strings(names)
	listed, unbuilt := 0, 0
	for _, typ := range names {
		segs := strings.Split(typ, "/")
		parent := rgID + "/providers/" + segs[0]
		built := true
		for i, s := range segs[1 : len(segs)-1] {
			parent += "/" + s + "/p" + string(rune('a'+i))
			if resp, _ := c.do(http.MethodPut, parent+apiFor(parent), map[string]any{"location": "westus2"}); resp.StatusCode >= 300 {
				built = false // a parent the emulator refuses with a minimal body
				break
			}
		}
		if !built {
			unbuilt++
			continue
		}
		listed++
		coll := parent + "/" + segs[len(segs)-1]
		resp, body := c.do(http.MethodGet, coll+"?api-version="+types[typ], nil)
		v, ok := body["value"].([]any)
		if resp.StatusCode != http.StatusOK || !ok {
			t.Errorf("GET %s: %d %v, want 200 with a value", coll, resp.StatusCode, body)
		}
		for _, item := range v {
			id, _ := item.(map[string]any)["id"].(string)
			if !builtIn(id) {
				t.Errorf("GET %s lists %s, which no one created", coll, id)
			}
		}
		missing := strings.Replace(coll, "/pa", "/missing", 1)
		if resp, body := c.do(http.MethodGet, missing+"?api-version="+types[typ], nil); resp.StatusCode != http.StatusNotFound || errorCode(body) != "ResourceNotFound" {
			t.Errorf("GET %s: %d %v, want 404 ResourceNotFound", missing, resp.StatusCode, body)
		}
		if resp, body := c.do(http.MethodGet, coll+"?api-version=1999-01-01", nil); resp.StatusCode != http.StatusBadRequest || errorCode(body) != "InvalidApiVersionParameter" {
			t.Errorf("GET %s with an unpublished api-version: %d %v", coll, resp.StatusCode, body)
		}
	}
	t.Logf("%d child collections listed, %d skipped (parent refused a minimal body)", listed, unbuilt)
}

// builtIn reports a child ARM creates with its parent.
func builtIn(id string) bool {
	name := strings.ToLower(id[strings.LastIndexByte(id, '/')+1:])
	switch name {
	case "default", "rootmanagesharedaccesskey", "defaultfullsharedaccesssignature", "defaultlistensharedaccesssignature":
		return true
	}
	// A scale set's instances, which the test's parent PUT made as children of its own.
	return strings.Contains(strings.ToLower(id), "/virtualmachinescalesets/pa/virtualmachines/")
}

// TestDeletingAParentDeletesEverythingBelowIt: deleting a storage account
// deletes its container under the singleton blobServices/default, and
// deleting a resource group every record below it: recreated, the parents
// list no children.
func TestDeletingAParentDeletesEverythingBelowIt(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	account := rgID + "/providers/Microsoft.Storage/storageAccounts/sa1"
	accountBody := map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	containers := account + "/blobServices/default/containers"
	scopes := account + "/encryptionScopes"
	vnet := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	peerings := vnet + "/virtualNetworkPeerings"
	build := func() {
		c.mustPut(account, accountBody)
		c.mustPut(containers+"/c1", map[string]any{"properties": map[string]any{}})
		c.mustPut(scopes+"/s1", map[string]any{"properties": map[string]any{"source": "Microsoft.Storage"}})
		c.mustPut(vnet, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
		c.mustPut(peerings+"/p1", map[string]any{"properties": map[string]any{"remoteVirtualNetwork": map[string]any{"id": vnet}}})
	}
	count := func(coll string) int {
		t.Helper()
		resp, body := c.do(http.MethodGet, coll+apiFor(coll+"/x"), nil)
		mustStatus(t, resp, body, http.StatusOK)
		return len(body["value"].([]any))
	}
	deleted := func(id, version string) {
		t.Helper()
		resp := c.send(http.MethodDelete, id+version, nil)
		if resp.StatusCode == http.StatusAccepted {
			if _, err := c.pollUntilDone(resp); err != nil {
				t.Fatalf("DELETE %s: %v", id, err)
			}
		} else if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE %s: %d", id, resp.StatusCode)
		}
	}
	build()
	for _, coll := range []string{containers, scopes, peerings} {
		if n := count(coll); n != 1 {
			t.Fatalf("%s lists %d, want 1", coll, n)
		}
	}
	deleted(account, apiFor(account))
	deleted(vnet, apiFor(vnet))
	if resp, body := c.do(http.MethodGet, containers+"/c1"+apiFor(containers+"/c1"), nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("container after its account's deletion: %d %v", resp.StatusCode, body)
	}
	c.mustPut(account, accountBody)
	c.mustPut(vnet, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
	for _, coll := range []string{containers, scopes, peerings} {
		if n := count(coll); n != 0 {
			t.Errorf("%s lists %d after its parent was deleted and created again, want 0", coll, n)
		}
	}

	build()
	deleted(rgID, rgAPI)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(account, accountBody)
	c.mustPut(vnet, map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}})
	for _, coll := range []string{containers, scopes, peerings} {
		if n := count(coll); n != 0 {
			t.Errorf("%s lists %d after its resource group was deleted, want 0", coll, n)
		}
	}
}
