package importer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

// TestReferencesByNameWithoutCycles: a reference to a resource imported in
// the same run is written by group, kind and name, whatever the case of the
// ARM ID; one to anything else by ARM ID. A reference that would make the
// imported manifests depend on themselves (a parent referring to its own
// child, or the second half of a mutual reference) stays by ARM ID, with a
// note: neither resource could be applied first.
func TestReferencesByNameWithoutCycles(t *testing.T) {
	reg := registry.Default()
	kind := func(armType string) *registry.Kind {
		gk, ok := reg.KindForARMType(armType)
		if !ok {
			t.Fatalf("no kind for %s", armType)
		}
		k, _ := reg.Lookup(gk.Group, registry.Newest(reg.Versions(gk.Group, gk.Kind)), gk.Kind)
		return k
	}
	resource := func(id, name, armType string) *Resource {
		return &Resource{ID: id, Name: name, Kind: kind(armType)}
	}
	group := resource(rg, "imp-rg", "Microsoft.Resources/resourceGroups")
	vnet := resource(rg+"/providers/Microsoft.Network/virtualNetworks/net", "net", "Microsoft.Network/virtualNetworks")
	subnet := resource(vnet.ID+"/subnets/web", "web", "Microsoft.Network/virtualNetworks/subnets")
	nsg := resource(rg+"/providers/Microsoft.Network/networkSecurityGroups/nsg", "nsg", "Microsoft.Network/networkSecurityGroups")
	l := newLinker()
	l.add(group, nil)
	l.add(vnet, group)
	l.add(subnet, vnet)
	l.add(nsg, group)

	byName := func(r *Resource) map[string]any {
		return map[string]any{"group": r.Kind.Group, "kind": r.Kind.Kind, "name": r.Name}
	}
	outside := "/subscriptions/" + sub + "/resourceGroups/other/providers/Microsoft.Network/networkSecurityGroups/shared"
	for _, c := range []struct {
		from *Resource
		id   string
		want map[string]any
	}{
		{subnet, strings.ToUpper(nsg.ID), byName(nsg)},
		{subnet, outside, map[string]any{"armId": outside}},
		{vnet, subnet.ID, map[string]any{"armId": subnet.ID}}, // its own child
		{nsg, subnet.ID, map[string]any{"armId": subnet.ID}},  // the subnet refers to it already
		{nsg, nsg.ID, map[string]any{"armId": nsg.ID}},        // itself
	} {
		if got := l.referrer(c.from)(c.id); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s referring to %s: %v, want %v", c.from.Name, c.id, got, c.want)
		}
	}
	for _, r := range []*Resource{vnet, nsg} {
		if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "a reference by name would make a cycle") {
			t.Errorf("%s: no note on the reference kept by ARM ID: %v", r.Name, r.Notes)
		}
	}
	if len(subnet.Notes) != 0 {
		t.Errorf("subnet: notes %v", subnet.Notes)
	}
}
