package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// planAddresses runs azk plan -o json and returns the address and action of
// every resource of the plan.
func planAddresses(t *testing.T, args ...string) map[string]string {
	t.Helper()
	out, errOut, code := azk(t, "", append([]string{"plan", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("plan %v: exit %d\n%s", args, code, errOut)
	}
	var p struct {
		Resources []struct{ Address, Action string }
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan -o json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, r := range p.Resources {
		got[r.Address] = r.Action
	}
	return got
}

func keys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTargetPlansAppliesAndDestroysPartOfAStack acts on one subnet of the
// quick start: the plan holds it and what it depends on, apply writes only
// it (and azk checks the writes against that plan), destroy deletes it
// alone, and everything else stays as it was.
func TestTargetPlansAppliesAndDestroysPartOfAStack(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	subnet := "network.azure.com/VirtualNetworksSubnet/default/web"
	want := []string{
		"network.azure.com/NetworkSecurityGroup/default/quickstart-nsg",
		"network.azure.com/VirtualNetwork/default/quickstart-vnet",
		subnet,
		"resources.azure.com/ResourceGroup/default/azk-quickstart",
	}
	if got := keys(planAddresses(t, with(dir, "--target", "VirtualNetworksSubnet/web")...)); !slices.Equal(got, want) {
		t.Errorf("plan --target: resources %v, want the subnet and what it depends on %v", got, want)
	}

	// Change the subnet and the storage account: a targeted apply writes only the subnet.
	editFile(t, filepath.Join(dir, "network.yaml"), "addressPrefix: 10.10.1.0/24", "addressPrefix: 10.10.3.0/24")
	editFile(t, filepath.Join(dir, "storage.yaml"), "accessTier: Hot", "accessTier: Cool")
	out, errOut, code := azk(t, "", with("apply", "-auto-approve", "-target", subnet, dir)...)
	if code != 0 {
		t.Fatalf("apply -target: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply -target", out, "Apply complete! Resources: 0 created, 1 updated, 0 failed.")
	mustContain(t, "apply -target warning", errOut, "Warning: acting on part of the inputs: 4 of 9 resources (1 chosen, and what they depend on); the other 5 were not considered")
	full := planAddresses(t, with(dir)...)
	if full[subnet] != "no-change" || full["storage.azure.com/StorageAccount/default/azkquickstartsa"] != "update" {
		t.Errorf("after apply -target, the full plan: %v; want the subnet unchanged and the storage account still to update", full)
	}

	// A targeted destroy deletes the subnet alone.
	out, errOut, code = azk(t, "", with("destroy", "--auto-approve", "--target", "VirtualNetworksSubnet/default/web", dir)...)
	if code != 0 {
		t.Fatalf("destroy --target: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "destroy --target", out, "Destroy complete! Resources: 1 deleted, 0 deleted by cascade, 0 detached, 0 failed.")
	full = planAddresses(t, with(dir)...)
	for address, action := range full {
		if wantAction := map[bool]string{true: "create", false: "no-change"}[address == subnet]; action != wantAction && address != "storage.azure.com/StorageAccount/default/azkquickstartsa" {
			t.Errorf("after destroy --target, %s: %s, want %s", address, action, wantAction)
		}
	}

	// Destroying the security group takes what depends on it: its rule (a
	// child, deleted by cascade) and the subnet that references it (already gone).
	out, errOut, code = azk(t, "", with("destroy", "--auto-approve", "--target", "NetworkSecurityGroup/quickstart-nsg", dir)...)
	if code != 0 {
		t.Fatalf("destroy --target nsg: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "destroy --target nsg", out,
		"network.azure.com/NetworkSecurityGroupsSecurityRule/default/allow-https",
		"Destroy complete! Resources: 1 deleted, 1 deleted by cascade, 0 detached, 0 failed.")
	mustContain(t, "destroy --target nsg warning", errOut, "3 of 9 resources (1 chosen, and what depends on them)")
}

// TestSelectorAndTargetErrors: a label selector picks resources by their
// labels; a target or selector naming nothing is an error, with the
// nearest address as a hint.
func TestSelectorAndTargetErrors(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }
	// The quick start labels its storage account tier: data.
	got := keys(planAddresses(t, with(dir, "-l", "tier=data")...))
	want := []string{"resources.azure.com/ResourceGroup/default/azk-quickstart", "storage.azure.com/StorageAccount/default/azkquickstartsa"}
	if !slices.Equal(got, want) {
		t.Errorf("plan -l tier=data: %v, want %v", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "VirtualNetworksSubnet/wbe"}, "--target VirtualNetworksSubnet/wbe: no resource of the inputs has that address (group/Kind/namespace/name, Kind/namespace/name or Kind/name); did you mean VirtualNetworksSubnet/web?"},
		{[]string{"--selector", "tier=web"}, `--selector "tier=web": no resource of the inputs has matching labels`},
		{[]string{"--selector", "tier in (web"}, `--selector "tier in (web": `},
	} {
		_, errOut, code := azk(t, "", with(append([]string{"plan", dir}, c.args...)...)...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("plan %v: exit %d, stderr %q; want exit 1 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestSavedPlanKeepsItsTarget: a plan saved with -target applies exactly
// that part when applied later.
func TestSavedPlanKeepsItsTarget(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }
	saved := filepath.Join(t.TempDir(), "plan.azk")
	if _, errOut, code := azk(t, "", with("plan", dir, "-target", "ResourceGroup/azk-quickstart", "-out", saved)...); code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	out, errOut, code := azk(t, "", with("apply", saved)...)
	if code != 0 {
		t.Fatalf("apply saved: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply of the saved plan", out, "Apply complete! Resources: 1 created, 0 updated, 0 failed.")
}
