package emulator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/armjson"
)

// The ARM APIs and answers of issue 40 items 3 and 4, each over real HTTP.

// TestGenericPathWithEmptyParentPath: `az resource show|create|update|delete
// -g G -n N --resource-type NS/type` sends providers/NS//type/N (an empty
// parent path), which ARM serves as providers/NS/type/N.
func TestGenericPathWithEmptyParentPath(t *testing.T) {
	c := startWithGroup(t, Options{})
	const canonical = rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	const cliForm = rgID + "/providers/Microsoft.Network//virtualNetworks/vnet1"
	body := map[string]any{"location": "westus2", "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
	created := c.mustPut(cliForm, body)
	if created["id"] != canonical {
		t.Errorf("created through the CLI's form, the ID is %v, want %s", created["id"], canonical)
	}
	for _, path := range []string{canonical, cliForm} {
		resp, got := c.do(http.MethodGet, path+api, nil)
		mustStatus(t, resp, got, http.StatusOK)
		if got["id"] != canonical {
			t.Errorf("GET %s: id %v", path, got["id"])
		}
	}
	// az resource tag and update send a PATCH (or a PUT) on the same form.
	resp, patched := c.do(http.MethodPatch, cliForm+api, map[string]any{"tags": map[string]any{"env": "test"}})
	mustStatus(t, resp, patched, http.StatusOK)
	resp, got := c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusOK)
	if tags, _ := got["tags"].(map[string]any); tags["env"] != "test" {
		t.Errorf("the PATCH through the CLI's form did not tag the resource: %v", got["tags"])
	}
	// A child type under the empty parent path is no top-level type: refused as ARM refuses an unknown path.
	resp, got = c.do(http.MethodGet, rgID+"/providers/Microsoft.Network//virtualNetworks//subnets/s1"+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
	resp = c.send(http.MethodDelete, cliForm+api, nil)
	if _, err := c.pollUntilDone(resp); err != nil {
		t.Fatalf("DELETE through the CLI's form: %v", err)
	}
	resp, got = c.do(http.MethodGet, canonical+api, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
}

// TestSlowBodyIsCutOff: a client that sends its headers at once and then
// trickles its body is cut off at the read deadline, as one trickling its
// headers is; a body that arrives in time is served.
func TestSlowBodyIsCutOff(t *testing.T) {
	const deadline = time.Second
	run, err := Start(context.Background(), Options{ReadTimeout: deadline}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	host := strings.TrimPrefix(run.URL, "http://")
	body := `{"location":"westus2"}`
	send := func(pause time.Duration) (status string, took time.Duration) {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		began := time.Now()
		answered := make(chan string, 1)
		go func() {
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			line, _ := bufio.NewReader(conn).ReadString('\n')
			answered <- strings.TrimSpace(line)
		}()
		fmt.Fprintf(conn, "PUT %s%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", rgID, rgAPI, host, len(body))
		for i := range len(body) {
			select {
			case line := <-answered:
				return line, time.Since(began) // answered before the body was sent: cut off
			default:
			}
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				break // cut off
			}
			time.Sleep(pause)
		}
		line := <-answered
		return line, time.Since(began)
	}
	if status, _ := send(0); !strings.Contains(status, " 201 ") && !strings.Contains(status, " 200 ") {
		t.Fatalf("a body sent at once: %q, want it served", status)
	}
	// 22 bytes, 300 ms apart: 6.6 s, far past the deadline.
	status, took := send(300 * time.Millisecond)
	if !strings.Contains(status, " 408 ") {
		t.Errorf("a trickled body: %q, want 408", status)
	}
	if took > deadline+3*time.Second {
		t.Errorf("a trickled body was answered after %v; the deadline is %v", took, deadline)
	}
}

// TestNamesFollowARMsPublishedRules: a name that breaks its type's
// published rule is invalid to checkNameAvailability and refused on
// create with ARM's error code; a valid one is available and created.
func TestNamesFollowARMsPublishedRules(t *testing.T) {
	c := startWithGroup(t, Options{})
	check := func(name string) map[string]any {
		t.Helper()
		resp, got := c.do(http.MethodPost, sub+"/providers/Microsoft.Storage/checkNameAvailability?api-version=2023-05-01",
			map[string]any{"name": name, "type": "Microsoft.Storage/storageAccounts"})
		mustStatus(t, resp, got, http.StatusOK)
		return got
	}
	if got := check("Bad_Name!"); got["nameAvailable"] != false || got["reason"] != "AccountNameInvalid" {
		t.Errorf("checkNameAvailability of Bad_Name!: %v, want nameAvailable false, reason AccountNameInvalid", got)
	}
	for _, name := range []string{"ab", "abcdefghijklmnopqrstuvwxy", "UPPERCASE1"} {
		if got := check(name); got["nameAvailable"] != false || got["reason"] != "AccountNameInvalid" {
			t.Errorf("checkNameAvailability of %s: %v, want AccountNameInvalid", name, got)
		}
	}
	if got := check("goodname123"); got["nameAvailable"] != true {
		t.Errorf("checkNameAvailability of goodname123: %v, want available", got)
	}
	storage := rgID + "/providers/Microsoft.Storage/storageAccounts/"
	body := map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	resp, got := c.do(http.MethodPut, storage+"Bad_Name1"+apiFor(storage+"x"), body)
	mustStatus(t, resp, got, http.StatusBadRequest)
	if errorCode(got) != "AccountNameInvalid" {
		t.Errorf("PUT of Bad_Name1: %v, want AccountNameInvalid", got)
	}
	resp, got = c.do(http.MethodGet, storage+"Bad_Name1"+apiFor(storage+"x"), nil)
	mustStatus(t, resp, got, http.StatusNotFound)
	c.mustPut(storage+"goodname123", body)

	// Every other type checkNameAvailability serves with a published rule:
	// one name the rule refuses each, asked through its own name check.
	cases := []struct{ path, typ, bad, good string }{
		{sub + "/providers/Microsoft.KeyVault/checkNameAvailability?api-version=2023-07-01", "Microsoft.KeyVault/vaults", "kv--double", "kv-single"},
		{sub + "/providers/Microsoft.ContainerRegistry/checkNameAvailability?api-version=2023-07-01", "Microsoft.ContainerRegistry/registries", "acr-hyphen", "acrnohyphen"},
		{sub + "/providers/Microsoft.ServiceBus/CheckNameAvailability?api-version=2021-11-01", "Microsoft.ServiceBus/namespaces", "sb1", "sbnamespace1"},
		{sub + "/providers/Microsoft.Sql/checkNameAvailability?api-version=2021-11-01", "Microsoft.Sql/servers", "-sqlserver", "sqlserver-1"},
	}
	for _, tc := range cases {
		for _, name := range []string{tc.bad, tc.good} {
			resp, got := c.do(http.MethodPost, tc.path, map[string]any{"name": name, "type": tc.typ})
			mustStatus(t, resp, got, http.StatusOK)
			available := got["nameAvailable"]
			if available == nil {
				available = got["available"]
			}
			if want := name == tc.good; available != want {
				t.Errorf("%s %q: %v, want available %v", tc.typ, name, got, want)
			}
		}
	}
}

// TestResourceGroupNamesFollowARMsRule: ARM refuses a resource group named
// "." or "..", one ending in a period, one with a character outside its
// rule and one longer than 90 characters; letters of any script are names.
func TestResourceGroupNamesFollowARMsRule(t *testing.T) {
	c := start(t, Options{Subscription: strings.TrimPrefix(sub, "/subscriptions/")}, false)
	for _, name := range []string{"..", ".", "group.", "bad!name", "a b", strings.Repeat("g", 91)} {
		resp, got := c.do(http.MethodPut, sub+"/resourceGroups/"+name+rgAPI, map[string]any{"location": "westus2"})
		if resp.StatusCode != http.StatusBadRequest || errorCode(got) != "InvalidResourceGroup" {
			t.Errorf("PUT resource group %q: %d %v, want 400 InvalidResourceGroup", name, resp.StatusCode, got)
		}
	}
	resp, list := c.do(http.MethodGet, sub+"/resourceGroups"+rgAPI, nil)
	mustStatus(t, resp, list, http.StatusOK)
	if v, _ := list["value"].([]any); len(v) != 0 {
		t.Errorf("refused groups were stored: %v", v)
	}
	for _, name := range []string{"my.group_(1)-x", "grüße", strings.Repeat("g", 90)} {
		c.mustPut(sub+"/resourceGroups/"+name, map[string]any{"location": "westus2"})
	}
}

// TestDriftKeepsNoSecret: a change made outside any client that sets a
// secret (a spec secret, or what the REST specification marks write-only
// or sensitive) leaves it where ARM keeps it, with the provider: no GET
// returns it and neither the state nor the change history holds it.
func TestDriftKeepsNoSecret(t *testing.T) {
	dir := t.TempDir()
	run, err := Start(context.Background(), Options{StateDir: dir}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, run, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	const canary = "Canary-Dr1ft-Pa55word-93c4"
	mysql := rgID + "/providers/Microsoft.DBforMySQL/flexibleServers/mysql1"
	c.mustPut(mysql, map[string]any{"location": "westus2", "properties": map[string]any{"administratorLogin": "admin"}})
	store := rgID + "/providers/Microsoft.AppConfiguration/configurationStores/store1"
	c.mustPut(store, map[string]any{"location": "westus2", "sku": map[string]any{"name": "standard"}})
	admin := run.AdminClient()
	ctx := context.Background()
	// A spec secret, and a value the REST specification marks write-only, each beside a plain change.
	if err := admin.Drift(ctx, mysql, map[string]any{"properties": map[string]any{"administratorLoginPassword": canary, "administratorLogin": "portal-admin"}}); err != nil {
		t.Fatal(err)
	}
	if err := admin.Drift(ctx, store, map[string]any{"properties": map[string]any{"createMode": canary, "disableLocalAuth": true}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ id, api, plain string }{{mysql, apiFor(mysql), "administratorLogin"}, {store, "?api-version=2024-06-01", "disableLocalAuth"}} {
		resp, got := c.do(http.MethodGet, tc.id+tc.api, nil)
		mustStatus(t, resp, got, http.StatusOK)
		data, _ := json.Marshal(got)
		if strings.Contains(string(data), canary) {
			t.Errorf("GET %s returns the secret: %s", tc.id, data)
		}
		if v, _ := armjson.Lookup(got, []string{"properties", tc.plain}); v == nil || v == "admin" || v == false {
			t.Errorf("GET %s: the plain change to %s was lost: %v", tc.id, tc.plain, v)
		}
	}
	run.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Fatal("the emulator wrote no state")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), canary) {
			t.Errorf("%s holds the secret", filepath.Base(f))
		}
	}
}

// TestRegenerateKeyChangesThatKeyOnly: regenerating key1 (or a primary
// key) changes that key and no other, for every way the REST specs name
// the key: a storage account's keyName, a cache's keyType, a Service Bus
// rule's keyType (its connection strings with its keys); a request that
// names no key regenerates them all.
func TestRegenerateKeyChangesThatKeyOnly(t *testing.T) {
	c := startWithGroup(t, Options{})
	post := func(path string, body any) map[string]any {
		t.Helper()
		resource := path[:strings.LastIndexByte(path, '/')]
		resp, got := c.do(http.MethodPost, path+apiFor(resource), body)
		mustStatus(t, resp, got, http.StatusOK)
		return got
	}
	storageKeys := func(m map[string]any) (string, string) {
		list, _ := m["keys"].([]any)
		if len(list) != 2 {
			t.Fatalf("keys: %v", m)
		}
		return list[0].(map[string]any)["value"].(string), list[1].(map[string]any)["value"].(string)
	}
	sa := rgID + "/providers/Microsoft.Storage/storageAccounts/regenkeys1"
	c.mustPut(sa, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	k1, k2 := storageKeys(post(sa+"/listKeys", nil))
	n1, n2 := storageKeys(post(sa+"/regenerateKey", map[string]any{"keyName": "key1"}))
	if n1 == k1 || n2 != k2 {
		t.Errorf("regenerateKey key1: key1 changed %v, key2 changed %v; want key1 only", n1 != k1, n2 != k2)
	}
	if l1, l2 := storageKeys(post(sa+"/listKeys", nil)); l1 != n1 || l2 != k2 {
		t.Errorf("listKeys after regenerating key1 does not answer the new key1 and the old key2")
	}
	m1, m2 := storageKeys(post(sa+"/regenerateKey", map[string]any{"keyName": "key2"}))
	if m1 != n1 || m2 == k2 {
		t.Errorf("regenerateKey key2: key1 changed %v, key2 changed %v; want key2 only", m1 != n1, m2 != k2)
	}
	resp, got := c.do(http.MethodPost, sa+"/regenerateKey"+apiFor(sa), map[string]any{"keyName": "key9x"})
	mustStatus(t, resp, got, http.StatusBadRequest)

	redis := rgID + "/providers/Microsoft.Cache/redis/regenredis1"
	c.mustPut(redis, map[string]any{"location": "westus2", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}})
	before := post(redis+"/listKeys", nil)
	after := post(redis+"/regenerateKey", map[string]any{"keyType": "Secondary"})
	if after["secondaryKey"] == before["secondaryKey"] || after["primaryKey"] != before["primaryKey"] {
		t.Errorf("redis regenerateKey Secondary: %v then %v; want the secondary key only changed", before, after)
	}

	ns := rgID + "/providers/Microsoft.ServiceBus/namespaces/regen-namespace1"
	c.mustPut(ns, map[string]any{"location": "westus2", "sku": map[string]any{"name": "Standard"}})
	rule := ns + "/AuthorizationRules/rule1"
	c.mustPut(rule, map[string]any{"properties": map[string]any{"rights": []any{"Listen"}}})
	before = post(rule+"/listKeys", nil)
	after = post(rule+"/regenerateKeys", map[string]any{"keyType": "PrimaryKey"})
	for _, f := range []string{"primaryKey", "primaryConnectionString"} {
		if after[f] == before[f] {
			t.Errorf("service bus regenerateKeys PrimaryKey kept %s", f)
		}
	}
	for _, f := range []string{"secondaryKey", "secondaryConnectionString"} {
		if after[f] != before[f] {
			t.Errorf("service bus regenerateKeys PrimaryKey changed %s", f)
		}
	}

	// Naming no key (a Log Analytics workspace's regenerateSharedKey) changes every key.
	ws := rgID + "/providers/Microsoft.OperationalInsights/workspaces/regen-workspace1"
	c.mustPut(ws, map[string]any{"location": "westus2", "properties": map[string]any{"sku": map[string]any{"name": "PerGB2018"}}})
	before = post(ws+"/sharedKeys", nil)
	after = post(ws+"/regenerateSharedKey", nil)
	if after["primarySharedKey"] == before["primarySharedKey"] || after["secondarySharedKey"] == before["secondarySharedKey"] {
		t.Errorf("regenerateSharedKey (no key named): %v then %v; want both keys new", before, after)
	}
}

// TestSubscriptionTagNames: the tag names API (the SDKs' TagsClient, `az
// tag create|list|add-value`) counts the tags the subscription's groups and
// resources carry, lists predefined names and values beside them, and
// refuses what ARM refuses.
func TestSubscriptionTagNames(t *testing.T) {
	c := startWithGroup(t, Options{})
	c.mustPut(sub+"/resourceGroups/rg2", map[string]any{"location": "westus2", "tags": map[string]any{"env": "prod"}})
	vnet := func(name string, tags map[string]any) {
		c.mustPut(rgID+"/providers/Microsoft.Network/virtualNetworks/"+name, map[string]any{"location": "westus2", "tags": tags,
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	}
	vnet("vnet1", map[string]any{"env": "prod", "team": "a"})
	vnet("vnet2", map[string]any{"Env": "test"})
	tagNames := sub + "/tagNames"
	resp, got := c.do(http.MethodPut, tagNames+"/costCenter"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusCreated)
	if got["tagName"] != "costCenter" || got["id"] != tagNames+"/costCenter" {
		t.Errorf("PUT tagNames/costCenter: %v", got)
	}
	resp, got = c.do(http.MethodPut, tagNames+"/costCenter"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	resp, got = c.do(http.MethodPut, tagNames+"/costCenter/tagValues/cc-42"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusCreated)
	if got["tagValue"] != "cc-42" {
		t.Errorf("PUT tagValues/cc-42: %v", got)
	}

	resp, got = c.do(http.MethodGet, tagNames+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	counts := map[string]float64{}
	for _, v := range got["value"].([]any) {
		d := v.(map[string]any)
		name := d["tagName"].(string)
		counts[name] = d["count"].(map[string]any)["value"].(float64)
		for _, tv := range d["values"].([]any) {
			val := tv.(map[string]any)
			counts[name+"="+val["tagValue"].(string)] = val["count"].(map[string]any)["value"].(float64)
		}
	}
	want := map[string]float64{"env": 3, "env=prod": 2, "env=test": 1, "team": 1, "team=a": 1, "costCenter": 0, "costCenter=cc-42": 0}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("tag usage %s: %v, want %v (all: %v)", k, counts[k], n, counts)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("tag usage: %v, want exactly %v", counts, want)
	}

	// Refusals: a reserved prefix; a value of a name never predefined; deleting a name in use, or one with values.
	resp, got = c.do(http.MethodPut, tagNames+"/azureThing"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusBadRequest)
	resp, got = c.do(http.MethodPut, tagNames+"/unknown/tagValues/x"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
	resp, got = c.do(http.MethodPut, tagNames+"/env"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusCreated)
	resp, got = c.do(http.MethodDelete, tagNames+"/env"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusConflict)
	resp, got = c.do(http.MethodDelete, tagNames+"/costCenter"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusConflict)
	resp, got = c.do(http.MethodDelete, tagNames+"/costCenter/tagValues/cc-42"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	resp, got = c.do(http.MethodDelete, tagNames+"/costCenter"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	resp, got = c.do(http.MethodDelete, tagNames+"/costCenter"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusNoContent)
	resp, got = c.do(http.MethodGet, tagNames+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	for _, v := range got["value"].([]any) {
		if v.(map[string]any)["tagName"] == "costCenter" {
			t.Errorf("a deleted predefined name is listed: %v", v)
		}
	}
	resp, got = c.do(http.MethodGet, "/subscriptions/00000000-0000-0000-0000-00000000dead/tagNames"+rgAPI, nil)
	mustStatus(t, resp, got, http.StatusNotFound)
}

// TestSystemAssignedIdentityByScope: GET {scope}/providers/Microsoft.ManagedIdentity/identities/default
// answers the system-assigned identity of the resource at scope (the
// principal its body shows), and 404 for a resource without one or none at all.
func TestSystemAssignedIdentityByScope(t *testing.T) {
	c := startWithGroup(t, Options{})
	const identityAPI = "?api-version=2023-01-31"
	account := rgID + "/providers/Microsoft.Storage/storageAccounts/withidentity1"
	body := map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	plain := rgID + "/providers/Microsoft.Storage/storageAccounts/noidentity1"
	c.mustPut(plain, body)
	body["identity"] = map[string]any{"type": "SystemAssigned"}
	created := c.mustPut(account, body)
	principal, _ := armjson.Lookup(created, []string{"identity", "principalId"})
	if principal == nil || principal == "" {
		t.Fatalf("the resource got no principal: %v", created)
	}
	resp, got := c.do(http.MethodGet, account+"/providers/Microsoft.ManagedIdentity/identities/default"+identityAPI, nil)
	mustStatus(t, resp, got, http.StatusOK)
	props, _ := got["properties"].(map[string]any)
	if got["id"] != account+"/providers/Microsoft.ManagedIdentity/identities/default" || got["name"] != "default" || got["location"] != "westus2" ||
		props["principalId"] != principal || props["tenantId"] == "" || props["clientId"] == "" || props["clientId"] == principal {
		t.Errorf("identities/default: %v, want the principal %v", got, principal)
	}
	resp, again := c.do(http.MethodGet, account+"/providers/Microsoft.ManagedIdentity/identities/default"+identityAPI, nil)
	mustStatus(t, resp, again, http.StatusOK)
	if again["properties"].(map[string]any)["clientId"] != props["clientId"] {
		t.Error("the identity's client ID changes between reads")
	}
	for _, scope := range []string{plain, rgID + "/providers/Microsoft.Storage/storageAccounts/absent1"} {
		resp, got = c.do(http.MethodGet, scope+"/providers/Microsoft.ManagedIdentity/identities/default"+identityAPI, nil)
		mustStatus(t, resp, got, http.StatusNotFound)
	}
	resp, got = c.do(http.MethodPut, account+"/providers/Microsoft.ManagedIdentity/identities/default"+identityAPI, map[string]any{})
	mustStatus(t, resp, got, http.StatusMethodNotAllowed)
}

// TestResourceGroupExportTemplate: POST …/exportTemplate is a long-running
// operation whose result is a template of the group's resources: each
// top-level name a parameter ARM's way (with its default value on
// request), children under their parent's with a dependsOn, the options
// and the resources filter as documented, unknown IDs reported in the
// result's error; a bad option or a missing group is refused.
func TestResourceGroupExportTemplate(t *testing.T) {
	c := startWithGroup(t, Options{})
	vnet := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet-1"
	c.mustPut(vnet, map[string]any{"location": "westus2", "tags": map[string]any{"env": "test"},
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	c.mustPut(vnet+"/subnets/default", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	account := rgID + "/providers/Microsoft.Storage/storageAccounts/exported1"
	c.mustPut(account, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})

	exportOf := func(req map[string]any) map[string]any {
		t.Helper()
		resp := c.send(http.MethodPost, rgID+"/exportTemplate"+rgAPI, req)
		if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Location") == "" {
			t.Fatalf("exportTemplate: %d, Location %q; want 202 with a Location", resp.StatusCode, resp.Header.Get("Location"))
		}
		got, err := c.pollUntilDone(resp)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// By name within the types asked about (a storage account's default services share one name).
	byName := func(template map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, r := range template["resources"].([]any) {
			r := r.(map[string]any)
			switch r["type"] {
			case "Microsoft.Network/virtualNetworks", "Microsoft.Network/virtualNetworks/subnets", "Microsoft.Storage/storageAccounts":
				out[r["name"].(string)] = r
			}
		}
		return out
	}

	got := exportOf(map[string]any{"resources": []any{"*"}})
	if got["error"] != nil {
		t.Errorf("export of everything reports an error: %v", got["error"])
	}
	template := got["template"].(map[string]any)
	params := template["parameters"].(map[string]any)
	if p, _ := params["virtualNetworks_vnet_1_name"].(map[string]any); p["type"] != "String" || p["defaultValue"] != nil {
		t.Errorf("parameters: %v, want virtualNetworks_vnet_1_name a String without a default", params)
	}
	if _, ok := params["storageAccounts_exported1_name"]; !ok || len(params) != 2 {
		t.Errorf("parameters: %v, want one per top-level resource", params)
	}
	resources := byName(template)
	if len(resources) != 3 {
		t.Fatalf("resources: %v, want the network, its subnet and the account", template["resources"])
	}
	if props := resources["[parameters('storageAccounts_exported1_name')]"]["properties"].(map[string]any); props["primaryEndpoints"] != nil || props["creationTime"] != nil {
		t.Errorf("the account's properties hold what only ARM sets: %v", props)
	}
	net := resources["[parameters('virtualNetworks_vnet_1_name')]"]
	if net["type"] != "Microsoft.Network/virtualNetworks" || net["location"] != "westus2" || net["apiVersion"] == "" {
		t.Errorf("the network: %v", net)
	}
	if props := net["properties"].(map[string]any); props["provisioningState"] != nil || props["addressSpace"] == nil {
		t.Errorf("the network's properties: %v, want what was set without what ARM owns", props)
	}
	subnet := resources["[concat(parameters('virtualNetworks_vnet_1_name'), '/default')]"]
	if subnet == nil || fmt.Sprint(subnet["dependsOn"]) != "[[resourceId('Microsoft.Network/virtualNetworks', parameters('virtualNetworks_vnet_1_name'))]]" {
		t.Errorf("the subnet: %v", subnet)
	}

	got = exportOf(map[string]any{"resources": []any{account, rgID + "/providers/Microsoft.Storage/storageAccounts/absent1"},
		"options": "IncludeParameterDefaultValue,IncludeComments"})
	template = got["template"].(map[string]any)
	resources = byName(template)
	sa := resources["[parameters('storageAccounts_exported1_name')]"]
	if len(template["resources"].([]any)) != 1 || sa == nil || sa["comments"] == nil {
		t.Errorf("export of one account with comments: %v", template["resources"])
	}
	if p := template["parameters"].(map[string]any)["storageAccounts_exported1_name"].(map[string]any); p["defaultValue"] != "exported1" {
		t.Errorf("IncludeParameterDefaultValue: %v", p)
	}
	if e, _ := got["error"].(map[string]any); e["code"] != "ExportTemplateCompletedWithErrors" || !strings.Contains(fmt.Sprint(e["details"]), "absent1") {
		t.Errorf("an unknown resource is not reported: %v", got["error"])
	}

	got = exportOf(map[string]any{"resources": []any{"*"}, "options": "SkipAllParameterization"})
	template = got["template"].(map[string]any)
	resources = byName(template)
	if len(template["parameters"].(map[string]any)) != 0 || resources["vnet-1/default"] == nil || resources["exported1"] == nil {
		t.Errorf("SkipAllParameterization: %v", template)
	}
	if fmt.Sprint(resources["vnet-1/default"]["dependsOn"]) != "[[resourceId('Microsoft.Network/virtualNetworks', 'vnet-1')]]" {
		t.Errorf("a literal child's dependsOn: %v", resources["vnet-1/default"]["dependsOn"])
	}

	resp, body := c.do(http.MethodPost, rgID+"/exportTemplate"+rgAPI, map[string]any{"resources": []any{"*"}, "options": "IncludeEverything"})
	mustStatus(t, resp, body, http.StatusBadRequest)
	resp, body = c.do(http.MethodPost, rgID+"/exportTemplate"+rgAPI, map[string]any{})
	mustStatus(t, resp, body, http.StatusBadRequest)
	resp, body = c.do(http.MethodPost, sub+"/resourceGroups/absent/exportTemplate"+rgAPI, map[string]any{"resources": []any{"*"}})
	mustStatus(t, resp, body, http.StatusNotFound)
	if errorCode(body) != "ResourceGroupNotFound" {
		t.Errorf("export of a missing group: %v", body)
	}
}
