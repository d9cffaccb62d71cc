package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
)

const input = `# Networking for the app.
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: web
spec:
  owner: {name: net} # the network
  # Web tier.
  addressPrefix: 10.0.1.0/24
  privateEndpointNetworkPolicies: Disabled # set by hand
  networkSecurityGroup:
    reference: {group: network.azure.com, kind: NetworkSecurityGroup, name: nsg}
  delegations:
    - name: d0
      serviceName: Microsoft.Sql/managedInstances
---
apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: reader
spec:
  owner: {name: net, group: network.azure.com, kind: VirtualNetwork}
  principalIdFromConfig: {name: ids, key: principalId}
  roleDefinitionReference: {armId: /subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7}
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: net
spec:
  location: westus2
  owner: {armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg}
  addressSpace: {addressPrefixes: [10.0.0.0/16]}
  tags: &shared {team: a}
---
apiVersion: network.azure.com/v1api20201101
kind: NetworkSecurityGroup
metadata:
  name: nsg
spec:
  location: westus2
  owner: {armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ids}
data: {principalId: 00000000-0000-0000-0000-0000000000aa}
`

// plan resolves input from a file and gives each resource the reflected
// differences listed for it (by name).
func plan(t *testing.T, reflected map[string][]planner.Change) (*planner.Plan, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stack.yaml")
	if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{path}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	g, diags := graph.Build(res, graph.Options{Subscription: "00000000-0000-0000-0000-000000000000"})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	p := &planner.Plan{}
	for _, n := range g.Nodes {
		p.Resources = append(p.Resources, &planner.Resource{Address: n.Address(), Name: n.Object.Name, Source: n.Object.Source.String(), Node: n, Reflected: reflected[n.Object.Name]})
	}
	return p, path
}

func entry(t *testing.T, res *Result, path string) Entry {
	t.Helper()
	for _, e := range res.Entries {
		if e.Path == path {
			return e
		}
	}
	t.Fatalf("no entry for %s in %+v", path, res.Entries)
	return Entry{}
}

// ARM paths map back to spec fields by the registry's facts; values are
// written in the spec's form, comments and layout kept; references,
// config-map values, secrets and YAML anchors are never written, each
// with why.
func TestPrepareMapsARMPathsToSpecFields(t *testing.T) {
	p, path := plan(t, map[string][]planner.Change{
		"web": {
			{Path: "properties.addressPrefix", Before: "10.0.2.0/24", After: "10.0.1.0/24"},
			{Path: "properties.privateEndpointNetworkPolicies", After: "Disabled"},
			{Path: "properties.networkSecurityGroup.id", Before: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/other"},
			{Path: "properties.delegations[name=d1]", Before: map[string]any{"name": "d1", "properties": map[string]any{"serviceName": "Microsoft.Web/serverFarms"}}},
			{Path: "properties.serviceEndpoints", Before: []any{map[string]any{"service": "Microsoft.Storage", "locations": []any{"westus2"}}}},
		},
		"reader": {{Path: "properties.principalId", Before: "00000000-0000-0000-0000-0000000000bb"}},
		"net": {
			{Path: "properties", Before: map[string]any{"dhcpOptions": map[string]any{"dnsServers": []any{"10.0.0.4"}}, "enableVmProtection": true}},
			{Path: "tags.owner", Before: "portal"},
		},
		"nsg": {{Path: `tags["cost.center"]`, Before: "42"}, {Path: "properties.securityRules", Before: "********"}},
	})
	res, err := Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"properties.addressPrefix":                  "spec.addressPrefix",
		"properties.privateEndpointNetworkPolicies": "spec.privateEndpointNetworkPolicies",
		"properties.delegations[name=d1]":           "spec.delegations[name=d1]",
		"properties.serviceEndpoints":               "spec.serviceEndpoints",
		`tags["cost.center"]`:                       `spec.tags["cost.center"]`,
	} {
		if e := entry(t, res, path); e.Field != want || e.Skipped != "" {
			t.Errorf("%s: %+v, want written at %s", path, e, want)
		}
	}
	if e := entry(t, res, "properties.privateEndpointNetworkPolicies"); !e.Remove {
		t.Errorf("a value Azure holds none of is taken out: %+v", e)
	}
	for path, why := range map[string]string{
		"properties.networkSecurityGroup.id": "a reference (armId or name)",
		"properties.principalId":             "config map",
		"tags.owner":                         "YAML alias or anchor",
		"properties.securityRules":           "a secret",
	} {
		if e := entry(t, res, path); !strings.Contains(e.Skipped, why) {
			t.Errorf("%s: %+v, want skipped as %q", path, e, why)
		}
	}
	var fields []string
	for _, e := range res.Entries {
		if e.Path == "properties" {
			fields = append(fields, e.Field)
		}
	}
	if strings.Join(fields, " ") != "spec.dhcpOptions spec.enableVmProtection" {
		t.Errorf("a value above the spec's fields goes to each field below it: %v", fields)
	}
	if len(res.Files) != 1 || res.Files[0].Path != path {
		t.Fatalf("files %+v", res.Files)
	}
	got := string(res.Files[0].After)
	for _, want := range []string{
		"# Networking for the app.\n", "owner: {name: net} # the network\n", "  # Web tier.\n  addressPrefix: 10.0.2.0/24\n",
		"    - name: d0\n      serviceName: Microsoft.Sql/managedInstances\n    - name: d1\n      serviceName: Microsoft.Web/serverFarms\n",
		"  serviceEndpoints:\n    - locations:\n        - westus2\n      service: Microsoft.Storage\n",
		"  dhcpOptions:\n    dnsServers:\n      - 10.0.0.4\n  enableVmProtection: true\n", // lists indented under their key, as the file's others
		"  tags: &shared {team: a}\n", "  tags:\n    cost.center: \"42\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("refreshed file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "privateEndpointNetworkPolicies") {
		t.Errorf("privateEndpointNetworkPolicies left in:\n%s", got)
	}
	if before, _ := os.ReadFile(path); string(before) != input {
		t.Fatalf("Prepare wrote the file")
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != got {
		t.Errorf("Write wrote something else")
	}
	if err := res.Write(); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Errorf("a second Write over a changed file: %v", err)
	}
}

// Standard input and kustomize output are not files azk can edit.
func TestPrepareSkipsWhatIsNoPlainFile(t *testing.T) {
	p, _ := plan(t, map[string][]planner.Change{"web": {{Path: "properties.addressPrefix", Before: "10.0.2.0/24"}}})
	for _, r := range p.Resources {
		r.Node.Object.Kustomization = "overlays/prod"
	}
	res, err := Prepare(p)
	if err != nil {
		t.Fatal(err)
	}
	if e := entry(t, res, "properties.addressPrefix"); !strings.Contains(e.Skipped, "kustomize output") || len(res.Files) != 0 {
		t.Errorf("%+v, files %d", e, len(res.Files))
	}
}
