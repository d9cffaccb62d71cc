package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// savedByHand saves a plan of a resource group and a network in it, with
// one unmanaged resource beside them, as azk plan --out would.
func savedByHand(t testing.TB) string {
	t.Helper()
	const sub = "00000000-0000-0000-0000-000000000000"
	rg := "/subscriptions/" + sub + "/resourceGroups/rg"
	p := &planner.Plan{FormatVersion: planner.FormatVersion, Subscription: sub, InputsDigest: "sha256:x", Resources: []*planner.Resource{
		{Address: "resources.azure.com/ResourceGroup/default/rg", Kind: "ResourceGroup", Namespace: "default", Name: "rg",
			ARMID: rg, ARMType: "Microsoft.Resources/resourceGroups", APIVersion: "2020-06-01", Action: planner.ActionNoChange, Reason: planner.ReasonMatches},
		{Address: "network.azure.com/VirtualNetwork/default/vnet", Kind: "VirtualNetwork", Namespace: "default", Name: "vnet",
			ARMID: rg + "/providers/Microsoft.Network/virtualNetworks/vnet", ARMType: "Microsoft.Network/virtualNetworks", APIVersion: "2020-11-01",
			Action: planner.ActionCreate, Reason: planner.ReasonMissing, Desired: map[string]any{"location": "westus2"}},
	}, Unmanaged: []string{rg + "/providers/Microsoft.Network/virtualNetworks/other"}}
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := Save(file, p); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestSavedPlanContentIsChecked: with the digest recomputed, content azk
// could not have written is refused on load, so show never prints it and
// apply never compares against it: unmanaged entries that are no ARM IDs
// of the plan's resource groups, "(redacted)" in an identity, an ARM ID
// that does not parse (issue 22, item 6).
func TestSavedPlanContentIsChecked(t *testing.T) {
	file := savedByHand(t)
	if _, err := Load(file); err != nil {
		t.Fatalf("the plan as saved: %v", err)
	}
	vnet := func(tree map[string]any) map[string]any { return resourceNamed(tree, "vnet") }
	for _, tt := range []struct {
		name string
		edit func(tree map[string]any)
		want string
	}{
		{"unmanaged text", func(tree map[string]any) {
			tree["unmanaged"] = []any{"\x1b[2J All clear: nothing will be deleted"}
		}, "unmanaged: "},
		{"unmanaged elsewhere", func(tree map[string]any) {
			tree["unmanaged"] = []any{"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/victim/providers/Microsoft.Network/virtualNetworks/v"}
		}, "unmanaged: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/victim/providers/Microsoft.Network/virtualNetworks/v is not in a resource group of the plan's resources"},
		{"unmanaged group itself", func(tree map[string]any) {
			tree["unmanaged"] = []any{"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"}
		}, "is not in a resource group of the plan's resources"},
		{"unmanaged child elsewhere", func(tree map[string]any) {
			tree["unmanagedChildren"] = []any{map[string]any{"armId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/victim/providers/Microsoft.Network/virtualNetworks/v/subnets/s",
				"parent": "network.azure.com/VirtualNetwork/default/vnet", "parentArmId": vnet(tree)["armId"]}}
		}, "unmanagedChildren: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/victim/providers/Microsoft.Network/virtualNetworks/v/subnets/s is not below the plan's resource network.azure.com/VirtualNetwork/default/vnet"},
		{"unmanaged child text", func(tree map[string]any) {
			tree["unmanagedChildren"] = []any{map[string]any{"armId": "`x` All clear", "parent": "network.azure.com/VirtualNetwork/default/vnet", "parentArmId": vnet(tree)["armId"]}}
		}, "unmanagedChildren: "},
		{"redacted ARM ID", func(tree map[string]any) {
			vnet(tree)["armId"] = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/(redacted)"
		}, "network.azure.com/VirtualNetwork/default/vnet: its armId holds (redacted)"},
		{"redacted address", func(tree map[string]any) {
			vnet(tree)["address"] = "network.azure.com/VirtualNetwork/default/(redacted)"
		}, "its address holds (redacted)"},
		{"ARM ID that does not parse", func(tree map[string]any) {
			vnet(tree)["armId"] = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet?x=1"
		}, "network.azure.com/VirtualNetwork/default/vnet: "},
		{"write without ARM ID", func(tree map[string]any) {
			vnet(tree)["armId"] = ""
		}, "a write without an ARM ID"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(editPlan(t, file, true, tt.edit))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "azk did not write this; make the plan again") {
				t.Errorf("loaded: %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestTruncatedPlanIsAnError: a plan file cut short is an error saying so,
// not manifests to read (issue 22, item 6); a JSON manifest, whole or cut
// short, is still left to the loader.
func TestTruncatedPlanIsAnError(t *testing.T) {
	data, err := os.ReadFile(savedByHand(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, n := range []int{len(data) / 2, len(data) - 3, 40} {
		cut := write("cut.azk", data[:n])
		if p, err := LoadIfSaved(cut); err == nil || !strings.Contains(err.Error(), "a saved plan that cannot be read") || p != nil {
			t.Errorf("cut at %d of %d bytes: %v", n, len(data), err)
		}
	}
	manifest := `{"apiVersion": "resources.azure.com/v1api20200601", "kind": "ResourceGroup", "metadata": {"name": "rg"}, "spec": {"location": "westus2"}}`
	for _, m := range []string{manifest, manifest[:60]} {
		if p, err := LoadIfSaved(write("rg.json", []byte(m))); p != nil || err != nil {
			t.Errorf("a JSON manifest %q: %v, %v; want it left to the loader", m, p, err)
		}
	}
}
