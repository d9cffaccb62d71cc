package emulator

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// collectionAt returns the array at path in body, failing when it is absent.
func collectionAt(t *testing.T, body map[string]any, path []string) []any {
	t.Helper()
	v, ok := armjson.Lookup(body, path)
	list, isList := v.([]any)
	if !ok || !isList {
		t.Fatalf("%s is %v (present %v), want an array; body %v", strings.Join(path, "."), v, ok, body)
	}
	return list
}

func itemNames(items []any) []string {
	names := []string{}
	for _, it := range items {
		names = append(names, str(it.(map[string]any)["name"]))
	}
	return names
}

// TestEmbeddedCollectionsFollowTheChildren drives every row of the table the
// same way: the parent's GET lists children written on their own, a PUT of
// the parent that names them keeps (and updates) them, and one that does not
// deletes them.
func TestEmbeddedCollectionsFollowTheChildren(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	for _, col := range armcore.EmbeddedCollections() {
		t.Run(col.ChildType, func(t *testing.T) {
			parentID := rgID + "/providers/" + col.ParentType + "/p-" + col.ChildType
			childID := func(name string) string { return parentID + "/" + col.ChildType + "/" + name }
			parentBody := func(items ...map[string]any) map[string]any {
				b := map[string]any{"location": "westus2", "properties": map[string]any{"keep": "me"}}
				if items != nil {
					list := []any{}
					for _, it := range items {
						list = append(list, it)
					}
					armjson.Put(b, col.Path, list)
				}
				return b
			}

			// Empty collections show as [] where their container exists (as
			// in the recordings) and are not invented where it does not.
			created := c.mustPut(parentID, parentBody())
			v, listed := armjson.Lookup(created, col.Path)
			if container := pathExists(created, col.Path[:len(col.Path)-1]); listed != container || (listed && len(v.([]any)) != 0) {
				t.Fatalf("new parent: %s is %v (present %v)", strings.Join(col.Path, "."), v, listed)
			}

			c.mustPut(childID("a"), map[string]any{"properties": map[string]any{"v": "1"}})
			c.mustPut(childID("b"), map[string]any{"properties": map[string]any{"v": "1"}})
			resp, child := c.do(http.MethodGet, childID("a")+apiFor(childID("a")), nil)
			mustStatus(t, resp, child, http.StatusOK)
			resp, parent := c.do(http.MethodGet, parentID+apiFor(parentID), nil)
			mustStatus(t, resp, parent, http.StatusOK)
			items := collectionAt(t, parent, col.Path)
			if names := itemNames(items); !reflect.DeepEqual(names, []string{"a", "b"}) {
				t.Fatalf("parent lists %v, want [a b]", names)
			}
			first := items[0].(map[string]any)
			if col.Brief {
				// The child's properties as its own GET shows them, without provisioningState.
				props := map[string]any{}
				for k, v := range child["properties"].(map[string]any) {
					if k != "provisioningState" {
						props[k] = v
					}
				}
				want := map[string]any{"name": "a", "properties": props}
				if !reflect.DeepEqual(first, want) {
					t.Fatalf("brief item %v, want %v", first, want)
				}
			} else if !reflect.DeepEqual(first, child) {
				t.Fatalf("embedded item differs from the child's own GET:\n  item  %v\n  child %v", first, child)
			}

			// The parent's PUT names a (changed) and a new c; b is not named and goes.
			updated := c.mustPut(parentID, parentBody(
				map[string]any{"name": "a", "properties": map[string]any{"v": "2"}},
				map[string]any{"name": "c", "properties": map[string]any{"v": "1"}}))
			if names := itemNames(collectionAt(t, updated, col.Path)); !reflect.DeepEqual(names, []string{"a", "c"}) {
				t.Fatalf("after a PUT naming a and c the parent lists %v", names)
			}
			if updated["properties"].(map[string]any)["keep"] != "me" {
				t.Fatalf("the parent's own properties were lost: %v", updated)
			}
			resp, child = c.do(http.MethodGet, childID("a")+apiFor(childID("a")), nil)
			mustStatus(t, resp, child, http.StatusOK)
			if v := child["properties"].(map[string]any)["v"]; v != "2" {
				t.Fatalf("child a after the parent's PUT: v=%v", v)
			}
			resp, gone := c.do(http.MethodGet, childID("b")+apiFor(childID("b")), nil)
			mustStatus(t, resp, gone, http.StatusNotFound)
			resp, list := c.do(http.MethodGet, parentID+"/"+col.ChildType+apiFor(parentID+"/"+col.ChildType), nil)
			mustStatus(t, resp, list, http.StatusOK)
			if names := itemNames(list["value"].([]any)); !reflect.DeepEqual(names, []string{"a", "c"}) {
				t.Fatalf("child collection lists %v", names)
			}

			// A PATCH that does not name the collection leaves it alone.
			resp, patched := c.do(http.MethodPatch, parentID+apiFor(parentID), map[string]any{"tags": map[string]any{"k": "v"}})
			mustStatus(t, resp, patched, http.StatusOK)
			if names := itemNames(collectionAt(t, patched, col.Path)); len(names) != 2 {
				t.Fatalf("PATCH without the collection changed it: %v", names)
			}

			// Deleting a child on its own shows in the parent.
			resp, _ = c.do(http.MethodDelete, childID("c")+apiFor(childID("c")), nil)
			mustStatus(t, resp, nil, http.StatusOK)
			resp, parent = c.do(http.MethodGet, parentID+apiFor(parentID), nil)
			mustStatus(t, resp, parent, http.StatusOK)
			if names := itemNames(collectionAt(t, parent, col.Path)); !reflect.DeepEqual(names, []string{"a"}) {
				t.Fatalf("after deleting c the parent lists %v", names)
			}

			// A PUT without the collection empties it.
			emptied := c.mustPut(parentID, parentBody())
			if v, ok := armjson.Lookup(emptied, col.Path); ok && len(v.([]any)) != 0 {
				t.Fatalf("a PUT without the collection left %v", v)
			}
			resp, gone = c.do(http.MethodGet, childID("a")+apiFor(childID("a")), nil)
			mustStatus(t, resp, gone, http.StatusNotFound)
		})
	}
}

// TestParentPutKeepsOrDeletesSubnets is the situation azk's planner guards
// against: a virtual network PUT without its subnets deletes them, one that
// carries them (as read) keeps them; with long-running writes, and refusing
// to delete a subnet a network interface is in.
func TestParentPutKeepsOrDeletesSubnets(t *testing.T) {
	c := start(t, Options{LRO: networkLRO(50*time.Millisecond, 50*time.Millisecond)}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	vnet := map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}}}
	c.mustPut(vnetID, vnet)
	subnetID := vnetID + "/subnets/s1"
	c.mustPut(subnetID, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.0.0/24"}})

	// Carrying the subnets as read back keeps them.
	resp, read := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, resp, read, http.StatusOK)
	kept := c.mustPut(vnetID, read)
	if names := itemNames(collectionAt(t, kept, []string{"properties", "subnets"})); !reflect.DeepEqual(names, []string{"s1"}) {
		t.Fatalf("vnet PUT with its subnets lists %v", names)
	}
	resp, s1 := c.do(http.MethodGet, subnetID+api, nil)
	mustStatus(t, resp, s1, http.StatusOK)
	if s1["properties"].(map[string]any)["addressPrefix"] != "10.0.0.0/24" || provisioningState(s1) != "Succeeded" {
		t.Fatalf("subnet after the vnet's PUT: %v", s1)
	}

	// A network interface in the subnet blocks removing it, both ways.
	nicID := rgID + "/providers/Microsoft.Network/networkInterfaces/nic1"
	c.mustPut(nicID, map[string]any{"location": "westus2", "properties": map[string]any{"ipConfigurations": []any{map[string]any{
		"name": "ipconfig1", "properties": map[string]any{"subnet": map[string]any{"id": strings.ToUpper(subnetID)}}}}}})
	resp, refused := c.do(http.MethodPut, vnetID+api, vnet)
	mustStatus(t, resp, refused, http.StatusBadRequest)
	if errorCode(refused) != "InUseSubnetCannotBeDeleted" || !strings.Contains(refused["error"].(map[string]any)["message"].(string), nicID) {
		t.Fatalf("removing a subnet in use: %v", refused)
	}
	resp, refused = c.do(http.MethodDelete, subnetID+api, nil)
	mustStatus(t, resp, refused, http.StatusBadRequest)
	resp, s1 = c.do(http.MethodGet, subnetID+api, nil)
	mustStatus(t, resp, s1, http.StatusOK)
	resp, _ = c.do(http.MethodDelete, nicID+api, nil)
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatal(err)
	}

	// Without them the subnets go.
	put, _ := c.do(http.MethodPut, vnetID+api, vnet)
	mustStatus(t, put, nil, http.StatusOK)
	resp, gone := c.do(http.MethodGet, subnetID+api, nil)
	mustStatus(t, resp, gone, http.StatusNotFound)
	done, err := c.pollUntilDone(put)
	if err != nil {
		t.Fatal(err)
	}
	if subnets := collectionAt(t, done, []string{"properties", "subnets"}); len(subnets) != 0 {
		t.Fatalf("vnet PUT without subnets still lists %v", subnets)
	}

	// Subnets created through the vnet's PUT share its operation and are addressable.
	resp, _ = c.do(http.MethodPut, vnetID+api, withSubnets(vnet, "s2", "s3"))
	mustStatus(t, resp, nil, http.StatusOK)
	resp2, during := c.do(http.MethodGet, vnetID+"/subnets/s3"+api, nil)
	mustStatus(t, resp2, during, http.StatusOK)
	if provisioningState(during) == "Succeeded" {
		t.Fatalf("subnet created by a running vnet PUT is already Succeeded")
	}
	if done, err = c.pollUntilDone(resp); err != nil {
		t.Fatal(err)
	}
	if names := itemNames(collectionAt(t, done, []string{"properties", "subnets"})); !reflect.DeepEqual(names, []string{"s2", "s3"}) {
		t.Fatalf("vnet PUT creating s2, s3 lists %v", names)
	}
	resp, s3 := c.do(http.MethodGet, vnetID+"/subnets/s3"+api, nil)
	mustStatus(t, resp, s3, http.StatusOK)
	if provisioningState(s3) != "Succeeded" || s3["type"] != "Microsoft.Network/virtualNetworks/subnets" {
		t.Fatalf("subnet s3: %v", s3)
	}

	for _, bad := range []any{
		map[string]any{"properties": map[string]any{"subnets": "s1"}},
		map[string]any{"properties": map[string]any{"subnets": []any{map[string]any{"properties": map[string]any{}}}}},
		withSubnets(vnet, "s2", "S2"),
	} {
		resp, body := c.do(http.MethodPut, vnetID+api, bad)
		mustStatus(t, resp, body, http.StatusBadRequest)
	}
}

func withSubnets(vnet map[string]any, names ...string) map[string]any {
	b, _ := json.Marshal(vnet)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	var list []any
	for i, n := range names {
		list = append(list, map[string]any{"name": n, "properties": map[string]any{"addressPrefix": "10.0." + string(rune('1'+i)) + ".0/24"}})
	}
	out["properties"].(map[string]any)["subnets"] = list
	return out
}

// TestEmbeddedShapesMatchRecordings sends recorded parent PUTs that carry a
// collection and compares the items the emulator embeds with the ones ARM
// answered: the same names, and the same fields at the top of each item.
func TestEmbeddedShapesMatchRecordings(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "recordings")
	for _, tc := range []struct{ file, parent string }{
		{"Test_Insights_v1api_CreationAndDeletion.yaml", "Microsoft.Network/virtualNetworks"},
		{"Test_Compute_v20220301_CreationAndDeletion.yaml", "Microsoft.Compute/virtualMachineScaleSets"},
	} {
		t.Run(tc.parent, func(t *testing.T) {
			cas, err := corpus.ReadRecording(filepath.Join(dir, tc.file))
			if err != nil {
				t.Skipf("ASO corpus recording not found (set AZK_CORPUS): %v", err)
			}
			col := armcore.CollectionsOf(tc.parent)[0]
			compared := 0
			for i, it := range cas.Interactions {
				u, err := url.Parse(it.Request.URL)
				tg, ok := armpath.Parse(u.Path)
				if err != nil || !ok || it.Request.Method != http.MethodPut || it.Response.Code >= 300 || !strings.EqualFold(tg.Type, tc.parent) || tg.Kind != armpath.Resource {
					continue
				}
				var sent, answered map[string]any
				_ = json.Unmarshal([]byte(it.Request.Body), &sent)
				_ = json.Unmarshal([]byte(it.Response.Body), &answered)
				if v, _ := armjson.Lookup(sent, col.Path); v == nil {
					continue
				}
				want := collectionAt(t, answered, col.Path)
				c := start(t, Options{}, false)
				c.mustPut("/subscriptions/"+tg.Sub+"/resourceGroups/"+tg.RG, map[string]any{"location": "westus2"})
				got := collectionAt(t, c.mustPut(u.Path, sent), col.Path)
				if !reflect.DeepEqual(itemNames(got), itemNames(want)) {
					t.Fatalf("interaction %d: emulator embeds %v, ARM %v", i, itemNames(got), itemNames(want))
				}
				for j := range want {
					g, w := topKeys(got[j]), topKeys(want[j])
					if !reflect.DeepEqual(g, w) {
						t.Errorf("interaction %d item %d: fields %v, ARM %v", i, j, g, w)
					}
					if id := str(want[j].(map[string]any)["id"]); id != "" {
						resp, child := c.do(http.MethodGet, id+apiFor(id), nil)
						mustStatus(t, resp, child, http.StatusOK)
					}
				}
				compared++
			}
			if compared == 0 {
				t.Fatalf("%s has no %s PUT carrying %s", tc.file, tc.parent, strings.Join(col.Path, "."))
			}
		})
	}
}

// topKeys lists an item's fields, leaving out those the emulator adds to
// every resource (systemData, and location and tags that children inherit).
func topKeys(item any) []string {
	var keys []string
	for k := range item.(map[string]any) {
		if k != "systemData" && k != "location" && k != "tags" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func pathExists(m map[string]any, path []string) bool {
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	return true
}
