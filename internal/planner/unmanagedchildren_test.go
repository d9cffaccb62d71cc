package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

// TestUnmanagedCollections: the unmanaged report lists, under a resource,
// the child collections of the types ASO has a kind for, going through the
// fixed-name singletons Azure makes with their parent to the collections
// under them, and never a read-only type, a type Azure cannot delete on its
// own, or a resource group's contents (the resource-group-level report's).
func TestUnmanagedCollections(t *testing.T) {
	paths := func(armType string) map[string]childCollection {
		out := map[string]childCollection{}
		for _, c := range unmanagedCollections(armType) {
			out[c.Path] = c
		}
		return out
	}
	for armType, want := range map[string][]string{
		"Microsoft.Network/virtualNetworks":              {"subnets", "virtualNetworkPeerings"},
		"Microsoft.Storage/storageAccounts":              {"blobServices/default/containers", "fileServices/default/shares", "queueServices/default/queues", "tableServices/default/tables"},
		"Microsoft.Storage/storageAccounts/blobServices": {"containers"},
		"Microsoft.DBforPostgreSQL/flexibleServers":      {"databases", "firewallRules"},
		"Microsoft.Sql/servers":                          {"databases", "firewallRules"},
	} {
		got := paths(armType)
		for _, path := range want {
			if _, ok := got[path]; !ok {
				t.Errorf("%s: %s is not listed (listed: %v)", armType, path, got)
			}
		}
	}
	containers := paths("Microsoft.Storage/storageAccounts")["blobServices/default/containers"]
	if !slices.Equal(containers.Through, []string{"blobServices/default"}) || containers.APIVersion == "" {
		t.Errorf("a storage account's containers: through %q at api-version %q, want through blobServices/default at one", containers.Through, containers.APIVersion)
	}
	if subnets := paths("Microsoft.Network/virtualNetworks")["subnets"]; len(subnets.Through) != 0 {
		t.Errorf("a network's subnets go through %q, want a direct child", subnets.Through)
	}
	if _, ok := paths("Microsoft.DBforPostgreSQL/flexibleServers")["configurations"]; ok {
		t.Errorf("a PostgreSQL server's configurations are listed: Azure makes them with the server and cannot delete them")
	}
	if got := unmanagedCollections("Microsoft.Resources/resourceGroups"); len(got) != 0 {
		t.Errorf("a resource group's children are listed here too: %v", got)
	}
	// Over every type ASO has a kind for: each listed collection is of a
	// type ASO has a kind for, that is neither read-only nor undeletable,
	// whose path goes from the resource through fixed-name singletons only.
	reg := registry.Default()
	seen := map[string]bool{}
	for _, gvk := range reg.All() {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || k.ARMType == "" || seen[strings.ToLower(k.ARMType)] {
			continue
		}
		seen[strings.ToLower(k.ARMType)] = true
		for _, c := range unmanagedCollections(k.ARMType) {
			at, known := reg.ARMType(c.Type)
			switch {
			case !known || len(reg.KindsOfARMType(c.Type)) == 0:
				t.Errorf("%s: %s lists %s, which ASO has no kind for", k.ARMType, c.Path, c.Type)
			case at.ReadOnlyType || at.NoDelete || len(at.FixedNames) > 0:
				t.Errorf("%s: %s lists %s, read-only, undeletable or of fixed names", k.ARMType, c.Path, c.Type)
			case !strings.EqualFold(k.ARMType+"/"+strings.Join(segmentsOf(c.Path), "/"), c.Type):
				t.Errorf("%s: %s is not a collection of %s under it", k.ARMType, c.Path, c.Type)
			}
		}
	}
}

// segmentsOf is the type segments of a path below a resource: every other
// segment, the names of the singletons on the way left out.
func segmentsOf(path string) []string {
	parts := strings.Split(path, "/")
	var out []string
	for i := 0; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}

// TestKeepUnmanagedChildren: a child under a resource the plan deletes or
// replaces is the cascade guard's to name, a child the plan deletes or
// detaches itself is named by the plan, and one ARM lists with its resource
// group is in the resource-group-level list already: none is listed again.
func TestKeepUnmanagedChildren(t *testing.T) {
	const rg = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network"
	p := &Plan{
		Resources: []*Resource{
			{ARMID: rg + "/virtualNetworks/kept", Action: ActionNoChange},
			{ARMID: rg + "/virtualNetworks/replaced", Action: ActionRecreate},
			{ARMID: rg + "/virtualNetworks/kept/subnets/removed", Action: ActionDetach},
		},
		Unmanaged: []string{rg + "/privateDnsZones/z/virtualNetworkLinks/tracked"},
	}
	children := []UnmanagedChild{
		{ID: rg + "/virtualNetworks/kept/subnets/portal", ParentID: rg + "/virtualNetworks/kept"},
		{ID: rg + "/virtualNetworks/replaced/subnets/portal", ParentID: rg + "/virtualNetworks/replaced"},
		{ID: rg + "/virtualNetworks/kept/subnets/removed", ParentID: rg + "/virtualNetworks/kept"},
		{ID: rg + "/privateDnsZones/z/virtualNetworkLinks/tracked", ParentID: rg + "/privateDnsZones/z"},
	}
	got := keepUnmanagedChildren(children, p)
	if len(got) != 1 || got[0].ID != rg+"/virtualNetworks/kept/subnets/portal" {
		t.Errorf("kept %+v, want the subnet under the network that stays", got)
	}
}
