package applier_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// keyToApp: a storage account exports key1 and its blob endpoint into a
// Secret (operatorSpec.secrets); a container app reads both through secret
// references.
const keyToApp = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: keys
spec:
  location: westus2
---
apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata:
  name: keysdata
spec:
  location: westus2
  owner:
    name: keys
  kind: StorageV2
  sku:
    name: Standard_LRS
  operatorSpec:
    secrets:
      key1:
        name: keysdata-secrets
        key: key1
      blobEndpoint:
        name: keysdata-secrets
        key: blob
---
apiVersion: app.azure.com/v1api20250101
kind: ManagedEnvironment
metadata:
  name: keys-env
spec:
  location: westus2
  owner:
    name: keys
---
apiVersion: app.azure.com/v1api20250101
kind: ContainerApp
metadata:
  name: keys-app
spec:
  location: westus2
  owner:
    name: keys
  environmentReference:
    group: app.azure.com
    kind: ManagedEnvironment
    name: keys-env
  configuration:
    secrets:
      - name: storage-key
        value:
          name: keysdata-secrets
          key: key1
      - name: blob-endpoint
        value:
          name: keysdata-secrets
          key: blob
  template:
    containers:
      - name: app
        image: nginx:latest
        env:
          - name: STORAGE_KEY
            secretRef: storage-key
`

// TestSecretExportedToAConsumer: the plan shows the consumer's secret as
// sensitive and known after apply and the account's exports; apply creates
// the account, fetches key1 with listKeys (a read the plan announced) and
// sends it in the app's PUT; the value is handed to the run's redaction;
// a re-plan is quiet and its apply neither writes nor fetches.
func TestSecretExportedToAConsumer(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	g := load(t, writeManifests(t, keyToApp))
	resources := e.decide(t, g)
	byAddr := map[string]*planner.Resource{}
	for _, r := range resources {
		byAddr[r.Address] = r
	}
	account := byAddr["storage.azure.com/StorageAccount/default/keysdata"]
	app := byAddr["app.azure.com/ContainerApp/default/keys-app"]
	if !slices.Equal(app.DependsOn, []string{"resources.azure.com/ResourceGroup/default/keys", "app.azure.com/ManagedEnvironment/default/keys-env", "storage.azure.com/StorageAccount/default/keysdata"}) {
		t.Errorf("the app depends on %v", app.DependsOn)
	}
	var secretChanges []string
	for _, c := range app.Changes {
		if c.Sensitive && c.Unknown {
			secretChanges = append(secretChanges, c.Path)
		}
	}
	if want := []string{"properties.configuration.secrets[name=storage-key].value", "properties.configuration.secrets[name=blob-endpoint].value"}; !slices.Equal(secretChanges, want) {
		t.Errorf("sensitive, known-after-apply changes %v, want %v", secretChanges, want)
	}
	if len(account.Exports) != 2 || account.Exports[0].From != "POST listKeys" || account.Exports[1].From != "status.primaryEndpoints.blob" {
		t.Errorf("the account's exports: %+v", account.Exports)
	}
	if want := []string{account.ARMID + "/listKeys"}; !slices.Equal(account.SecretReads, want) {
		t.Errorf("secret reads %v, want %v", account.SecretReads, want)
	}

	var mu sync.Mutex
	var redacted []string
	opts := e.options(g, &recorder{})
	opts.Redact = func(values ...string) {
		mu.Lock()
		defer mu.Unlock()
		redacted = append(redacted, values...)
	}
	rep := e.apply(t, testkit.Context(t), resources, opts)
	if rep.Failed() {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("apply failed:\n%s", b.String())
	}
	if !e.writes.all()["POST "+strings.ToLower(account.ARMID)+"/listkeys"] {
		t.Error("apply did not fetch the key with listKeys")
	}
	op, err := e.client.Post(testkit.Context(t), account.ARMID+"/listKeys", "2023-01-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := op.Wait(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	var keys struct {
		Keys []struct{ KeyName, Value string }
	}
	if err := json.Unmarshal(resp.Body, &keys); err != nil || len(keys.Keys) == 0 || keys.Keys[0].KeyName != "key1" {
		t.Fatalf("listKeys answered %s (%v)", resp.Body, err)
	}
	key1 := keys.Keys[0].Value
	var sent struct {
		Properties struct {
			Configuration struct {
				Secrets []struct{ Name, Value string }
			}
		}
	}
	if err := json.Unmarshal(e.writes.body("PUT", app.ARMID), &sent); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range sent.Properties.Configuration.Secrets {
		got[s.Name] = s.Value
	}
	if got["storage-key"] != key1 || got["blob-endpoint"] != "https://keysdata.blob.core.windows.net/" {
		t.Errorf("the app's PUT carried secrets %v; want key1 and the blob endpoint", got)
	}
	if !slices.Contains(redacted, key1) {
		t.Error("the fetched key was not handed to the run's redaction")
	}
	if slices.Contains(redacted, "https://keysdata.blob.core.windows.net/") {
		t.Error("the blob endpoint, which any GET shows, was handed to redaction")
	}

	again := e.decide(t, g)
	for _, r := range again {
		if r.Action != planner.ActionNoChange {
			t.Errorf("re-plan: %s is %s: %+v", r.Address, r.Action, r.Changes)
		}
	}
	rep = e.apply(t, testkit.Context(t), again, e.options(g, &recorder{}))
	if rep.Failed() || rep.Count(applier.OutcomeUnchanged) != len(again) {
		t.Errorf("re-apply: %v", outcomes(rep))
	}
	if sent := e.writes.all(); len(sent) != 0 {
		t.Errorf("the re-apply sent %v", sent)
	}
}

// endpointNIC adds to the private endpoint's GETs the network interface
// Azure creates for it, which the emulator does not.
type endpointNIC struct {
	next     policy.Transporter
	endpoint string
	nic      string
}

func (e *endpointNIC) Do(req *http.Request) (*http.Response, error) {
	resp, err := e.next.Do(req)
	if err != nil || req.Method != http.MethodGet || !strings.EqualFold(req.URL.Path, e.endpoint) || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	return editBody(resp, func(body map[string]any) {
		armjson.Put(body, []string{"properties", "networkInterfaces"}, []any{map[string]any{"id": e.nic}})
	}), nil
}

const endpointDNS = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: pe
spec:
  location: westus2
---
apiVersion: network.azure.com/v1api20220701
kind: PrivateEndpoint
metadata:
  name: blob-endpoint
spec:
  location: westus2
  owner:
    name: pe
  subnet:
    reference:
      armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/net/subnets/endpoints
  privateLinkServiceConnections:
    - name: blob
      groupIds: [blob]
      privateLinkServiceReference:
        armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/net/providers/Microsoft.Storage/storageAccounts/shared
  operatorSpec:
    configMaps:
      primaryNicPrivateIpAddress:
        name: blob-endpoint
        key: ip
---
apiVersion: network.azure.com/v1api20180901
kind: PrivateDnsZone
metadata:
  name: privatelink.blob.core.windows.net
spec:
  location: global
  owner:
    name: pe
---
apiVersion: network.azure.com/v1api20200601
kind: PrivateDnsZonesARecord
metadata:
  name: shared
spec:
  owner:
    name: privatelink.blob.core.windows.net
  ttl: 300
  aRecords:
    - ipv4AddressFromConfig:
        name: blob-endpoint
        key: ip
`

// TestPrivateEndpointExportsItsAddress: as the operator's extension does,
// a private endpoint exports its network interface's private IP address;
// apply reads it once the endpoint exists and the DNS record it feeds
// carries it, and a re-plan, which reads it too, is quiet.
func TestPrivateEndpointExportsItsAddress(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	net := "/subscriptions/" + subscription + "/resourceGroups/net"
	nic := net + "/providers/Microsoft.Network/networkInterfaces/blob-endpoint.nic"
	for _, put := range []struct {
		id, apiVersion string
		body           map[string]any
	}{
		{net, "2021-04-01", map[string]any{"location": "westus2"}},
		{net + "/providers/Microsoft.Network/virtualNetworks/net", "2022-07-01", map[string]any{"location": "westus2", "properties": map[string]any{
			"addressSpace": map[string]any{"addressPrefixes": []any{"10.9.0.0/16"}},
			"subnets":      []any{map[string]any{"name": "endpoints", "properties": map[string]any{"addressPrefix": "10.9.1.0/24"}}}}}},
		{net + "/providers/Microsoft.Storage/storageAccounts/shared", "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}},
		{nic, "2022-07-01", map[string]any{"location": "westus2", "properties": map[string]any{"ipConfigurations": []any{map[string]any{"name": "ipconfig1",
			"properties": map[string]any{"subnet": map[string]any{"id": net + "/providers/Microsoft.Network/virtualNetworks/net/subnets/endpoints"}}}}}}},
	} {
		op, err := e.client.Put(testkit.Context(t), put.id, put.apiVersion, put.body)
		if err == nil {
			_, err = op.Wait(testkit.Context(t))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	ip := testkit.At[string](t, e.get(t, nic, "2022-07-01"), "properties", "ipConfigurations", 0, "properties", "privateIPAddress")
	if ip != "10.9.1.4" {
		t.Fatalf("the emulator gave the NIC %v", ip)
	}
	endpoint := "/subscriptions/" + subscription + "/resourcegroups/pe/providers/microsoft.network/privateendpoints/blob-endpoint"
	e.writes.next = &endpointNIC{next: e.writes.next, endpoint: endpoint, nic: nic}
	g := load(t, writeManifests(t, endpointDNS))
	rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, &recorder{}))
	if rep.Failed() {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("apply failed:\n%s", b.String())
	}
	record := "/subscriptions/" + subscription + "/resourceGroups/pe/providers/Microsoft.Network/privateDnsZones/privatelink.blob.core.windows.net/A/shared"
	var sent struct {
		Properties struct {
			ARecords []struct{ IPv4Address string }
		}
	}
	if err := json.Unmarshal(e.writes.body("PUT", record), &sent); err != nil || len(sent.Properties.ARecords) != 1 || sent.Properties.ARecords[0].IPv4Address != ip {
		t.Errorf("the A record's PUT: %s (%v)", e.writes.body("PUT", record), err)
	}
	for _, r := range e.decide(t, g) {
		if r.Action != planner.ActionNoChange {
			t.Errorf("re-plan: %s is %s: %+v", r.Address, r.Action, r.Changes)
		}
	}
}
