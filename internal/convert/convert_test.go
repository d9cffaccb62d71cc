package convert_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

const sub = "00000000-0000-0000-0000-000000000001"

const rg = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
spec:
  location: westus2
`

// render loads the documents, resolves them and converts every resource,
// returning the requests by metadata.name.
func render(t *testing.T, src convert.Sources, docs ...string) (map[string]*convert.Request, diag.List) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags.Err())
	}
	g, diags := graph.Build(res, graph.Options{Subscription: sub})
	if diags.HasErrors() {
		t.Fatalf("graph: %v", diags.Err())
	}
	reqs, diags := convert.Requests(g, src)
	out := map[string]*convert.Request{}
	for _, r := range reqs {
		out[r.Node.Object.Name] = r
	}
	return out, diags
}

// bodyJSON is the request body as ARM would receive it.
func bodyJSON(t *testing.T, r *convert.Request) string {
	t.Helper()
	b, err := convert.MarshalRequest(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func noEnv(string) (string, bool) { return "", false }

func TestFieldsLandWhereARMPutsThem(t *testing.T) {
	nic := `apiVersion: network.azure.com/v1api20201101
kind: NetworkInterface
metadata:
  name: nic1
spec:
  azureName: nic-one
  location: westus2
  owner:
    name: rg1
  tags:
    env: test
  ipConfigurations:
    - name: ipconfig1
      privateIPAllocationMethod: Dynamic
      subnet:
        reference:
          armId: /subscriptions/` + sub + `/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/s
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, nic)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r := reqs["nic1"]
	wantURL := "/subscriptions/" + sub + "/resourceGroups/rg1/providers/Microsoft.Network/networkInterfaces/nic-one?api-version=2020-11-01"
	if r.Method != "PUT" || r.URL != wantURL {
		t.Errorf("got %s %s, want PUT %s", r.Method, r.URL, wantURL)
	}
	want := `{"location":"westus2","name":"nic-one","properties":{"ipConfigurations":[{"name":"ipconfig1","properties":{"privateIPAllocationMethod":"Dynamic","subnet":{"id":"/subscriptions/` + sub + `/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/s"}}}]},"tags":{"env":"test"}}`
	if got := bodyJSON(t, r); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestReferencesToInputResourcesUseTheirARMIDs(t *testing.T) {
	identity := `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  location: westus2
  owner:
    name: rg1
`
	server := `apiVersion: dbformysql.azure.com/v1api20210501
kind: FlexibleServer
metadata:
  name: mysql1
spec:
  location: westus2
  owner:
    name: rg1
  version: "8.0.21"
  identity:
    type: UserAssigned
    userAssignedIdentities:
      - reference:
          group: managedidentity.azure.com
          kind: UserAssignedIdentity
          name: id1
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, identity, server)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	idID := "/subscriptions/" + sub + "/resourceGroups/rg1/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id1"
	got := bodyJSON(t, reqs["mysql1"])
	if !strings.Contains(got, `"identity":{"type":"UserAssigned","userAssignedIdentities":{"`+idID+`":{}}}`) {
		t.Errorf("user-assigned identities are not a map keyed by ARM ID: %s", got)
	}
}

func TestOperatorOnlyFieldsNeverReachARM(t *testing.T) {
	identity := `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  azureName: identity-one
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    configMaps:
      principalId:
        name: cm
        key: principalId
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, identity)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	got := bodyJSON(t, reqs["id1"])
	if want := `{"location":"westus2","name":"identity-one"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

const vm = `apiVersion: compute.azure.com/v1api20220301
kind: VirtualMachine
metadata:
  name: vm1
spec:
  location: westus2
  owner:
    name: rg1
  hardwareProfile:
    vmSize: Standard_A1_v2
  osProfile:
    computerName: vm1
    adminUsername: azureuser
    adminPassword:
      name: vm-secret
      key: password
`

func TestSecretFromInputSecret(t *testing.T) {
	for name, secret := range map[string]string{
		"data":       "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vm-secret\ndata:\n  password: czNjcjN0IQ==\n",
		"stringData": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vm-secret\nstringData:\n  password: s3cr3t!\n",
	} {
		t.Run(name, func(t *testing.T) {
			reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, secret, vm)
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			r := reqs["vm1"]
			if got := bodyJSON(t, r); !strings.Contains(got, `"adminPassword":"s3cr3t!"`) {
				t.Errorf("request body lacks the secret: %s", got)
			}
			printed, _ := json.Marshal(r.Body)
			if strings.Contains(string(printed), "s3cr3t") || !strings.Contains(string(printed), `"adminPassword":"(sensitive)"`) {
				t.Errorf("printed body shows the secret: %s", printed)
			}
		})
	}
}

func TestSecretFromEnvironment(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == "AZK_SECRET_VM_SECRET_PASSWORD" {
			return "from-env", true
		}
		return "", false
	}
	reqs, diags := render(t, convert.Sources{LookupEnv: env}, rg, vm)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if got := bodyJSON(t, reqs["vm1"]); !strings.Contains(got, `"adminPassword":"from-env"`) {
		t.Errorf("secret not taken from AZK_SECRET_VM_SECRET_PASSWORD: %s", got)
	}
}

func TestMissingSecretNamesBothPlaces(t *testing.T) {
	_, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, vm)
	err := diags.Err()
	if err == nil {
		t.Fatal("no error for a missing secret")
	}
	for _, want := range []string{"compute.azure.com/VirtualMachine/default/vm1", "spec.osProfile.adminPassword", "v1 Secret default/vm-secret", "AZK_SECRET_VM_SECRET_PASSWORD", "in.yaml:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

const exporter = `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    configMaps:
      principalId:
        name: identity-settings
        key: principalId
`

const assignment = `apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: 0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: rg1
  principalIdFromConfig:
    name: identity-settings
    key: principalId
  roleDefinitionReference:
    armId: /subscriptions/` + sub + `/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`

func TestConfigMapFromInputConfigMap(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: identity-settings\ndata:\n  principalId: 22222222-2222-2222-2222-222222222222\n"
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, cm, assignment)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if got := bodyJSON(t, reqs["0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11"]); !strings.Contains(got, `"principalId":"22222222-2222-2222-2222-222222222222"`) {
		t.Errorf("principalId not from the config map: %s", got)
	}
}

func TestConfigMapChainedFromExporterStatus(t *testing.T) {
	// Before the identity exists the value is unknown and the body cannot be sent.
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, exporter, assignment)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r := reqs["0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11"]
	if printed, _ := json.Marshal(r.Body); !strings.Contains(string(printed), `"principalId":"(known after apply)"`) {
		t.Errorf("principalId should be known after apply: %s", printed)
	}
	if _, err := convert.MarshalRequest(r.Body); err == nil || !strings.Contains(err.Error(), "properties.principalId") {
		t.Errorf("MarshalRequest must refuse an unknown value, got %v", err)
	}
	// Once the identity has been read back, its status fills the value.
	status := func(n *graph.Node) map[string]any {
		if n.Object.Name != "id1" {
			return nil
		}
		return convert.Status(n.Kind, map[string]any{"properties": map[string]any{"principalId": "33333333-3333-3333-3333-333333333333"}})
	}
	reqs, diags = render(t, convert.Sources{LookupEnv: noEnv, Status: status}, rg, exporter, assignment)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if got := bodyJSON(t, reqs["0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11"]); !strings.Contains(got, `"principalId":"33333333-3333-3333-3333-333333333333"`) {
		t.Errorf("principalId not chained from the identity's status: %s", got)
	}
}

func TestFixedNames(t *testing.T) {
	account := `apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata:
  name: acct1
spec:
  location: westus2
  kind: StorageV2
  sku:
    name: Standard_LRS
  owner:
    name: rg1
---
apiVersion: storage.azure.com/v1api20230101
kind: StorageAccountsBlobService
metadata:
  name: blob1
spec:
  owner:
    name: acct1
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, account)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r := reqs["blob1"]
	if want := "/subscriptions/" + sub + "/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/acct1/blobServices/default?api-version=2023-01-01"; r.URL != want {
		t.Errorf("URL %s, want %s", r.URL, want)
	}
	if got := bodyJSON(t, r); got != `{"name":"default"}` {
		t.Errorf("body %s", got)
	}
}

// TestStableRoleAssignmentName checks the UUIDv5 name against one the operator
// produced in the corpus recording Test_Authorization_v20220401: role
// assignment aso-sample-contributor owned by resource group asotest-rg-yomsyg,
// in the harness's namespace.
func TestStableRoleAssignmentName(t *testing.T) {
	const ns = "aso-test-samples-creationanddeletion-test-authorization-v-57fde"
	docs := []string{
		strings.Replace(rg, "name: rg1", "name: asotest-rg-yomsyg\n  namespace: "+ns, 1),
		`apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: aso-sample-contributor
  namespace: ` + ns + `
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: asotest-rg-yomsyg
  principalId: 44444444-4444-4444-4444-444444444444
  roleDefinitionReference:
    wellKnownName: Reader
`}
	reader := func(name string) (string, bool) {
		return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", strings.EqualFold(name, "reader")
	}
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv, RoleDefinitionID: reader}, docs...)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r := reqs["aso-sample-contributor"]
	if !strings.Contains(r.URL, "/providers/Microsoft.Authorization/roleAssignments/ba0996d4-366e-50f8-b729-29e0171d18f4?") {
		t.Errorf("URL %s lacks the operator's stable name ba0996d4-366e-50f8-b729-29e0171d18f4", r.URL)
	}
	if got := bodyJSON(t, r); !strings.Contains(got, `"roleDefinitionId":"/subscriptions/`+sub+`/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"`) {
		t.Errorf("well-known role not resolved: %s", got)
	}
}

func TestKindWithoutARMMappingFails(t *testing.T) {
	group := `apiVersion: entra.azure.com/v1
kind: SecurityGroup
metadata:
  name: sg1
spec:
  displayName: group one
  mailNickname: sg1
`
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(group), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := loader.Load(loader.Options{Paths: []string{file}})
	g, _ := graph.Build(res, graph.Options{Subscription: sub})
	if len(g.Nodes) != 1 {
		t.Fatalf("want 1 node, got %d", len(g.Nodes))
	}
	r, diags := convert.Convert(g, g.Nodes[0], convert.Sources{})
	if r != nil || !strings.Contains(diags.Err().Error(), "SecurityGroup has no ARM mapping") {
		t.Errorf("want a clear no-ARM-mapping error, got request %v, %v", r, diags.Err())
	}
}

// TestExplicitCollections: in groups whose recorded requests carry explicit
// nulls, unset collections are sent as null, and those the operator sends
// empty (here AKS tags, node labels and taints) as {} or [].
func TestExplicitCollections(t *testing.T) {
	cluster := `apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata:
  name: aks1
spec:
  location: westus2
  owner:
    name: rg1
  dnsPrefix: aks1
  identity:
    type: SystemAssigned
  agentPoolProfiles:
    - name: pool1
      count: 1
      vmSize: Standard_DS2_v2
      mode: System
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, cluster)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	got := bodyJSON(t, reqs["aks1"])
	for _, want := range []string{`"tags":{}`, `"nodeLabels":{}`, `"nodeTaints":[]`, `"availabilityZones":null`, `"addonProfiles":null`, `"delegatedResources":null`} {
		if !strings.Contains(got, want) {
			t.Errorf("body lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, `"userAssignedIdentities"`) {
		t.Errorf("keyed identity maps are left out, not null: %s", got)
	}
}

// TestEmptySecretBlocks: an empty secret, in an input Secret or an
// environment variable set to nothing (an undefined CI secret), is an error
// naming the field and the key: Azure would otherwise be sent "".
func TestEmptySecretBlocks(t *testing.T) {
	empty := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vm-secret\nstringData:\n  password: \"\"\n"
	_, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, empty, vm)
	if err := diags.Err(); err == nil || !strings.Contains(err.Error(), "spec.osProfile.adminPassword") || !strings.Contains(err.Error(), "vm-secret key password is empty") {
		t.Errorf("empty input secret: got %v", err)
	}
	setEmpty := func(k string) (string, bool) { return "", k == "AZK_SECRET_VM_SECRET_PASSWORD" }
	_, diags = render(t, convert.Sources{LookupEnv: setEmpty}, rg, vm)
	if err := diags.Err(); err == nil || !strings.Contains(err.Error(), "AZK_SECRET_VM_SECRET_PASSWORD is set but empty") {
		t.Errorf("empty environment secret: got %v", err)
	}
}
