package graph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

const rg = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
spec:
  location: westus2
`

const vnet = `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet1
spec:
  location: westus2
  owner:
    name: rg1
  addressSpace:
    addressPrefixes: [10.0.0.0/16]
`

// build writes the documents to one file (joined by ---) and resolves it.
func build(t *testing.T, docs ...string) (*graph.Graph, diag.List, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags.Err())
	}
	g, more := graph.Build(res, graph.Options{Subscription: "00000000-0000-0000-0000-000000000001"})
	return g, append(diags, more...), file
}

func TestBuildComputesARMIDs(t *testing.T) {
	subnet := `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet1
spec:
  owner:
    name: vnet1
  addressPrefix: 10.0.0.0/24
`
	assignment := `apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: 5f6b5d3c-9c1e-4a0c-8f5c-2f0b0b2a9a11
spec:
  owner:
    group: network.azure.com
    kind: VirtualNetwork
    name: vnet1
  principalId: 11111111-1111-1111-1111-111111111111
  roleDefinitionReference:
    armId: /subscriptions/00000000-0000-0000-0000-000000000001/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`
	g, diags, _ := build(t, assignment, subnet, vnet, rg)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors: %v", diags.Err())
	}
	const rgID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg1"
	const vnetID = rgID + "/providers/Microsoft.Network/virtualNetworks/vnet1"
	want := []struct{ name, id string }{
		{"rg1", rgID},
		{"vnet1", vnetID},
		{"5f6b5d3c-9c1e-4a0c-8f5c-2f0b0b2a9a11", vnetID + "/providers/Microsoft.Authorization/roleAssignments/5f6b5d3c-9c1e-4a0c-8f5c-2f0b0b2a9a11"},
		{"subnet1", vnetID + "/subnets/subnet1"},
	}
	if len(g.Nodes) != len(want) {
		t.Fatalf("got %d nodes, want %d", len(g.Nodes), len(want))
	}
	for i, w := range want {
		n := g.Nodes[i]
		if n.Object.Name != w.name || n.ID != w.id {
			t.Errorf("node %d = %s %s, want %s %s", i, n.Object.Name, n.ID, w.name, w.id)
		}
	}
}

// TestAliasesStandForTheirNodes: a YAML alias reads as the node it names, as
// kubectl sends it; an owner named through one resolves like a literal name.
func TestAliasesStandForTheirNodes(t *testing.T) {
	aliased := `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet1
spec:
  location: westus2
  owner: &owner
    name: &group rg1
  addressSpace:
    addressPrefixes: [10.0.0.0/16]
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet1
spec:
  owner:
    name: vnet1
  addressPrefix: 10.0.0.0/24
  azureName: *group
`
	g, diags, _ := build(t, rg, aliased)
	if diags.HasErrors() {
		t.Fatalf("unexpected errors: %v", diags.Err())
	}
	const vnetID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/vnet1"
	for _, n := range g.Nodes {
		want := map[string]string{"rg1": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg1", "vnet1": vnetID, "subnet1": vnetID + "/subnets/rg1"}[n.Object.Name]
		if n.ID != want {
			t.Errorf("%s: ID %s, want %s", n.Object.Name, n.ID, want)
		}
	}
	if len(g.Nodes) != 3 {
		t.Errorf("got %d nodes, want 3", len(g.Nodes))
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name string
		docs []string
		// line is the line in the joined file; want is a substring of the message.
		line  int
		field string
		want  string
	}{
		{
			name: "owner missing",
			docs: []string{rg, `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet1
spec:
  owner:
    name: nope
  addressPrefix: 10.0.0.0/24
`},
			line: 13, field: "spec.owner", want: `owner VirtualNetwork "nope" is not in the input`,
		},
		{
			name: "ignore-changes path that does not parse",
			docs: []string{`apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
  annotations:
    azk.azkcli.io/ignore-changes: "tags.owner, properties..sku"
spec:
  location: westus2
`},
			line: 6, field: "metadata.annotations.azk.azkcli.io/ignore-changes", want: `"properties..sku": empty property name`,
		},
		{
			name: "owner of the wrong kind",
			docs: []string{rg, `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet1
spec:
  owner:
    name: rg1
  addressPrefix: 10.0.0.0/24
`},
			line: 13, field: "spec.owner", want: `owner "rg1" must be a VirtualNetwork, but rg1 is a ResourceGroup`,
		},
		{
			name: "reference target missing",
			docs: []string{rg, `apiVersion: network.azure.com/v1api20201101
kind: NetworkInterface
metadata:
  name: nic1
spec:
  location: westus2
  owner:
    name: rg1
  ipConfigurations:
    - name: ipconfig1
      subnet:
        reference:
          group: network.azure.com
          kind: VirtualNetworksSubnet
          name: missing
`},
			line: 19, field: "spec.ipConfigurations[0].subnet.reference", want: `reference target network.azure.com/VirtualNetworksSubnet "missing" is not in the input`,
		},
		{
			name: "cycle",
			docs: []string{`apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: ra
spec:
  owner:
    group: authorization.azure.com
    kind: RoleDefinition
    name: rd
  principalId: p
  roleDefinitionReference:
    armId: /subscriptions/00000000-0000-0000-0000-000000000001/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`, `apiVersion: authorization.azure.com/v1api20220401
kind: RoleDefinition
metadata:
  name: rd
spec:
  owner:
    group: authorization.azure.com
    kind: RoleAssignment
    name: ra
  roleName: custom
`},
			line: 1, want: "dependency cycle: RoleAssignment/ra -> RoleDefinition/rd -> RoleAssignment/ra",
		},
		{
			name: "duplicate ARM ID",
			docs: []string{rg, vnet, strings.Replace(vnet, "name: vnet1\nspec:\n", "name: vnet2\nspec:\n  azureName: vnet1\n", 1)},
			line: 19, want: "same ARM ID as network.azure.com/VirtualNetwork/default/vnet1",
		},
		{
			name: "name breaks ARM path",
			docs: []string{rg, strings.Replace(vnet, "  location: westus2\n", "  azureName: a/b\n  location: westus2\n", 1)},
			line: 13, field: "spec.azureName", want: `Azure name "a/b" cannot be part of an ARM ID`,
		},
		{
			name: "name breaks kind's length rule",
			docs: []string{rg, `apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata:
  name: this-name-is-far-too-long-for-storage
spec:
  location: westus2
  kind: StorageV2
  sku:
    name: Standard_LRS
  owner:
    name: rg1
`},
			line: 11, field: "metadata.name", want: "at most 24 allowed for StorageAccount",
		},
		{
			// Nearest by date: a month before, not the next in sort order (2024).
			name: "unknown apiVersion suggests nearest",
			docs: []string{rg, strings.Replace(vnet, "v1api20201101", "v1api20201201", 1)},
			line: 8, field: "apiVersion", want: "nearest: network.azure.com/v1api20201101)",
		},
		{
			name: "unknown apiVersion nearest by date across version styles",
			docs: []string{rg, strings.Replace(vnet, "v1api20201101", "v20241001", 1)},
			line: 8, field: "apiVersion", want: "nearest: network.azure.com/v20250301)",
		},
		{
			name: "misspelt kind",
			docs: []string{rg, strings.Replace(vnet, "kind: VirtualNetwork", "kind: VirtualNetwrok", 1)},
			line: 8, field: "apiVersion", want: "unknown kind network.azure.com/v1api20201101 VirtualNetwrok; did you mean network.azure.com/v1api20201101 VirtualNetwork?",
		},
		{
			name: "misspelt group",
			docs: []string{rg, strings.Replace(vnet, "network.azure.com/v1api20201101", "netwrok.azure.com/v1api20201101", 1)},
			line: 8, field: "apiVersion", want: "did you mean network.azure.com/v1api20201101 VirtualNetwork?",
		},
		{
			name: "unknown kind",
			docs: []string{rg, strings.Replace(vnet, "kind: VirtualNetwork", "kind: Firewall", 1)},
			line: 8, field: "apiVersion", want: "unknown kind network.azure.com/v1api20201101 Firewall: not an ASO v2 resource kind",
		},
		{
			name: "misspelt spec field",
			docs: []string{rg, vnet + "  adressSpace: {}\n"},
			line: 18, field: "spec.adressSpace", want: `unknown field "adressSpace" (did you mean "addressSpace"?)`,
		},
		{
			name: "unknown spec field",
			docs: []string{rg, vnet + "  adressSpace: {}\n"},
			line: 18, field: "spec.adressSpace", want: `unknown field "adressSpace"`,
		},
		{
			name: "wrong type",
			docs: []string{rg, strings.Replace(vnet, "addressPrefixes: [10.0.0.0/16]", "addressPrefixes: 10.0.0.0/16", 1)},
			line: 17, field: "spec.addressSpace.addressPrefixes", want: "must be a list, got string",
		},
		{
			name: "bad enum value",
			docs: []string{rg, vnet + "  extendedLocation:\n    name: ez\n    type: Cloud\n"},
			line: 20, field: "spec.extendedLocation.type", want: `value "Cloud" is not one of: EdgeZone`,
		},
		{
			name: "bad policy value",
			docs: []string{rg, strings.Replace(vnet, "  name: vnet1\n", "  name: vnet1\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: keep\n", 1)},
			line: 13, field: "metadata.annotations.serviceoperator.azure.com/reconcile-policy", want: `unknown policy "keep"`,
		},
		{
			name: "both policies",
			docs: []string{rg, strings.Replace(vnet, "  name: vnet1\n", "  name: vnet1\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: manage\n    serviceoperator.azure.com/reconcile-policy-if-exists: skip\n", 1)},
			line: 12, field: "metadata.annotations", want: "not both",
		},
		{
			name: "config map missing",
			docs: []string{rg, `apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: ra
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: rg1
  principalIdFromConfig:
    name: identity-settings
    key: principalId
  roleDefinitionReference:
    wellKnownName: Reader
`},
			line: 17, field: "spec.principalIdFromConfig", want: `config map "identity-settings" key "principalId" is not in the input`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, file := build(t, tc.docs...)
			for _, d := range diags {
				if d.Severity == diag.SeverityError && strings.Contains(d.Message, tc.want) {
					if d.Source.File != file || d.Source.Line != tc.line || d.Field != tc.field {
						t.Errorf("error at %s field %q, want line %d field %q: %s", d.Source, d.Field, tc.line, tc.field, d.Message)
					}
					return
				}
			}
			t.Errorf("no error containing %q; got:\n%v", tc.want, diags.Err())
		})
	}
}

func TestSubscriptionFromARMIDOwner(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.yaml")
	os.WriteFile(file, []byte(strings.Replace(vnet, "    name: rg1\n", "    armId: /subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/existing\n", 1)), 0o644)
	res, _ := loader.Load(loader.Options{Paths: []string{file}})
	g, diags := graph.Build(res, graph.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if g.Subscription != "11111111-2222-3333-4444-555555555555" {
		t.Errorf("subscription %q", g.Subscription)
	}
	if want := "/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/existing/providers/Microsoft.Network/virtualNetworks/vnet1"; g.Nodes[0].ID != want {
		t.Errorf("ID %s", g.Nodes[0].ID)
	}
}

func TestRoleNames(t *testing.T) {
	assignment := func(name, extra string) string {
		return `apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: ` + name + `
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: rg1
  principalId: p
  roleDefinitionReference:
    armId: /subscriptions/00000000-0000-0000-0000-000000000001/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
` + extra
	}
	g, diags, _ := build(t, rg, assignment("3f2504e0-4f89-11d3-9a0c-0305e82c3301", ""))
	if diags.HasErrors() || !strings.HasSuffix(g.Nodes[1].ID, "/roleAssignments/3f2504e0-4f89-11d3-9a0c-0305e82c3301") {
		t.Errorf("a UUID metadata.name is the Azure name: %s %v", g.Nodes[1].ID, diags.Err())
	}
	_, diags, _ = build(t, rg, assignment("ra", "  operatorSpec:\n    namingConvention: random\n"))
	if err := diags.Err(); err == nil || !strings.Contains(err.Error(), "namingConvention random gives a name that is unknown") {
		t.Errorf("random naming must be reported as not plannable: %v", err)
	}
}

func TestCredentialFromPutsTheResourceInItsSubscription(t *testing.T) {
	secret := `apiVersion: v1
kind: Secret
metadata:
  name: other-sub
stringData:
  AZURE_SUBSCRIPTION_ID: 99999999-0000-0000-0000-000000000000
  AZURE_TENANT_ID: t
  AZURE_CLIENT_ID: c
  AZURE_CLIENT_SECRET: s3cret
`
	withCredential := strings.Replace(rg, "  name: rg1\n", "  name: rg1\n  annotations:\n    serviceoperator.azure.com/credential-from: other-sub\n", 1)
	g, diags, _ := build(t, secret, withCredential, vnet)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if g.Nodes[0].Credential == nil || g.Nodes[0].ID != "/subscriptions/99999999-0000-0000-0000-000000000000/resourceGroups/rg1" {
		t.Errorf("resource group %s, credential %v", g.Nodes[0].ID, g.Nodes[0].Credential)
	}
	if !strings.HasPrefix(g.Nodes[1].ID, "/subscriptions/99999999-0000-0000-0000-000000000000/resourceGroups/rg1/") {
		t.Errorf("the owned network is not under its resource group: %s", g.Nodes[1].ID)
	}
	_, diags, file := build(t, withCredential)
	if err := diags.Err(); err == nil || !strings.Contains(err.Error(), file+`:6: resources.azure.com/ResourceGroup/default/rg1: metadata.annotations.serviceoperator.azure.com/credential-from: credential secret "other-sub" is not in the input`) {
		t.Errorf("missing credential secret: %v", err)
	}
}

// A server and an administrator named by azureNameFromConfig (config map admin-settings, key principalId).
const (
	pgServer = `apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: pg1
spec:
  location: westus2
  owner:
    name: rg1
  version: "16"
`
	pgAdmin = `apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServersAdministrator
metadata:
  name: admin1
spec:
  owner:
    name: pg1
  azureNameFromConfig:
    name: admin-settings
    key: principalId
  principalType: ServicePrincipal
  principalName: app
  tenantId: 72f988bf-0000-4000-8000-000000000000
`
)

func TestAzureNameFromConfig(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-settings\ndata:\n  principalId: 0b3c2f8a-0000-4000-8000-000000000001\n"
	g, diags, _ := build(t, rg, pgServer, cm, pgAdmin)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if id := g.Nodes[len(g.Nodes)-1].ID; !strings.HasSuffix(id, "/flexibleServers/pg1/administrators/0b3c2f8a-0000-4000-8000-000000000001") {
		t.Errorf("ID %s does not use the config map's name", id)
	}
}
