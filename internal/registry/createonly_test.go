package registry_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
)

// bodyPaths are the ARM body paths a kind's spec fields reach, written as
// create-only facts are (list items "[]", map values "{}").
func bodyPaths(spec *registry.Field) map[string]bool {
	out := map[string]bool{}
	var walk func(f *registry.Field, at string)
	walk = func(f *registry.Field, at string) {
		if f == nil {
			return
		}
		if at != "" {
			out[at] = true
		}
		if f.Ref != "" || f.KeyedByRef {
			return // a reference is one string in ARM
		}
		switch f.Type {
		case registry.TypeObject:
			for _, c := range f.Fields {
				if c.ARM != nil {
					walk(c, armjson.Join(at, strings.Join(c.ARM, ".")))
				}
			}
		case registry.TypeArray:
			walk(f.Items, at+"[]")
		case registry.TypeMap:
			walk(f.Values, at+"{}")
		}
	}
	walk(spec, "")
	return out
}

// TestCreateOnlyFacts lists, from the generated facts, how many kinds have
// create-only facts and from which source, and fails on a fact at a
// property the kind's spec does not reach, a fact without a source, or an
// identity or provider fact without the code ARM answers. It checks the
// phrase parser's results against the real descriptions: properties they
// call create-only are facts, wordings that are conditional or about
// another resource are not.
func TestCreateOnlyFacts(t *testing.T) {
	reg := registry.Default()
	kindsBy, factsBy := map[string]int{}, map[string]int{}
	withFacts, withBodyFacts, arm := 0, 0, 0
	for _, gvk := range reg.All() {
		k, _ := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !k.IsARM() {
			if len(k.CreateOnly) > 0 {
				t.Errorf("%s/%s: create-only facts on a kind that is not an ARM resource", gvk.APIVersion(), gvk.Kind)
			}
			continue
		}
		arm++
		reached := bodyPaths(k.Spec)
		sources := map[string]bool{}
		beyondLocation := false
		for _, c := range k.CreateOnly {
			if !reached[c.Path] {
				t.Errorf("%s/%s: create-only %s is no property of the kind's body", gvk.APIVersion(), gvk.Kind, c.Path)
			}
			if len(c.Sources) == 0 {
				t.Errorf("%s/%s: create-only %s has no source", gvk.APIVersion(), gvk.Kind, c.Path)
			}
			for _, s := range c.Sources {
				if (s == registry.CreateOnlyFromIdentity || s == registry.CreateOnlyFromProvider) && c.Code == "" {
					t.Errorf("%s/%s: create-only %s (%s) without ARM's code", gvk.APIVersion(), gvk.Kind, c.Path, s)
				}
				factsBy[s]++
				sources[s] = true
			}
			beyondLocation = beyondLocation || c.Path != "location"
		}
		for s := range sources {
			kindsBy[s]++
		}
		if len(k.CreateOnly) > 0 {
			withFacts++
		}
		if beyondLocation {
			withBodyFacts++
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%d ARM kinds (group/version/kind); %d with create-only facts, %d beyond location\n", arm, withFacts, withBodyFacts)
	fmt.Fprintf(&table, "%-10s %6s %6s\n", "source", "kinds", "facts")
	names := make([]string, 0, len(kindsBy))
	for s := range kindsBy {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		fmt.Fprintf(&table, "%-10s %6d %6d\n", s, kindsBy[s], factsBy[s])
	}
	t.Log("\n" + table.String())
	for _, s := range []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD, registry.CreateOnlyFromIdentity, registry.CreateOnlyFromProvider, registry.CreateOnlyFromLocation} {
		if kindsBy[s] == 0 {
			t.Errorf("no kind has a create-only fact from %s", s)
		}
	}

	cases := []struct {
		group, version, kind, path string
		want                       []string // the sources; nil: not create-only
	}{
		{"documentdb.azure.com", "v1api20240815", "SqlDatabaseContainer", "properties.resource.partitionKey", []string{registry.CreateOnlyFromProvider}},
		{"documentdb.azure.com", "v1api20240815", "DatabaseAccount", "kind", []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD}},
		{"authorization.azure.com", "v1api20220401", "RoleAssignment", "properties.principalId", []string{registry.CreateOnlyFromIdentity}},
		{"containerservice.azure.com", "v1api20250801", "ManagedCluster", "properties.dnsPrefix", []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD}},
		{"containerservice.azure.com", "v1api20250801", "ManagedCluster", "properties.agentPoolProfiles[].osDiskType", []string{registry.CreateOnlyFromRESTSpec}},
		{"network.azure.com", "v1api20240301", "VirtualNetworksSubnet", "properties.defaultOutboundAccess", []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD}},
		{"resources.azure.com", "v1api20200601", "ResourceGroup", "location", []string{registry.CreateOnlyFromRESTSpec, registry.CreateOnlyFromCRD, registry.CreateOnlyFromLocation}},
		// Shared with scale sets: "… can only be set when you create the scale set".
		{"compute.azure.com", "v1api20220301", "VirtualMachine", "properties.storageProfile.osDisk.managedDisk.storageAccountType", nil},
		// "Some of the settings cannot be changed once VM is provisioned."
		{"compute.azure.com", "v1api20220301", "VirtualMachine", "properties.osProfile", nil},
		// "… can't be changed after you create the endpoint": not the load balancer.
		{"network.azure.com", "v1api20201101", "LoadBalancer", "properties.loadBalancingRules[].properties.enableFloatingIP", nil},
		// Updated in place by ARM (Update-AzFederatedIdentityCredential).
		{"managedidentity.azure.com", "v1api20230131", "FederatedIdentityCredential", "properties.subject", nil},
	}
	for _, c := range cases {
		k, ok := reg.Lookup(c.group, c.version, c.kind)
		if !ok {
			t.Errorf("%s/%s %s is not served", c.group, c.version, c.kind)
			continue
		}
		if !bodyPaths(k.Spec)[c.path] {
			t.Errorf("%s/%s %s has no %s: the case checks nothing", c.group, c.version, c.kind, c.path)
			continue
		}
		var got []string
		if f := k.CreateOnlyAt(c.path); f != nil {
			got = f.Sources
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s: create-only sources %v, want %v", c.kind, c.path, got, c.want)
		}
	}
}
