package applier_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/testkit"
)

// applied applies the manifests and fails the test if anything fails.
func (e *env) applied(t *testing.T, g *graph.Graph) {
	t.Helper()
	if rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, &recorder{})); rep.Failed() {
		t.Fatalf("apply: %v", outcomes(rep))
	}
}

func deletions(p *applier.DestroyPlan) map[string]applier.DestroyAction {
	out := map[string]applier.DestroyAction{}
	for _, d := range p.Deletions {
		out[d.Address] = d.Action
	}
	return out
}

// TestDestroyFlagsDefeatedDetach marks the blob service detach-on-delete:
// deleting the resource group would remove it anyway, which needs --allow-cascade.
func TestDestroyFlagsDefeatedDetach(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(quickstart, "*.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), "  name: azkquickstartsa-blob\n",
			"  name: azkquickstartsa-blob\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n", 1))
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := load(t, dir)
	e.applied(t, g)
	p, err := applier.PlanDestroy(testkit.Context(t), g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cascades) != 1 || p.Cascades[0].Address != "storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob" {
		t.Fatalf("cascades %+v, want the detach-on-delete blob service only", p.Cascades)
	}
}

func TestDestroyQuickstartCascadesFromTheResourceGroup(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "*", Delete: 100 * time.Millisecond}}}, 10)
	g := load(t, quickstart)
	e.applied(t, g)
	ctx := testkit.Context(t)
	p, err := applier.PlanDestroy(ctx, g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	got := deletions(p)
	const rg = "resources.azure.com/ResourceGroup/default/azk-quickstart"
	if got[rg] != applier.DestroyDelete {
		t.Fatalf("resource group: %s, want delete", got[rg])
	}
	for addr, action := range got {
		if addr != rg && action != applier.DestroyCascade {
			t.Errorf("%s: %s, want cascade with the resource group", addr, action)
		}
	}
	if len(p.Cascades) != 0 {
		t.Fatalf("cascades %+v, want none: everything is in the manifests", p.Cascades)
	}

	rec := &recorder{}
	rep := applier.Destroy(ctx, p, e.options(g, rec))
	if rep.Failed() {
		t.Fatalf("destroy: %v", outcomes(rep))
	}
	if s := rep.Summary(); s != "Destroy complete! Resources: 1 deleted, 8 deleted by cascade, 0 detached, 0 failed." {
		t.Errorf("summary %q", s)
	}
	for _, n := range g.Nodes {
		if e.get(t, n.ID, n.Kind.APIVersion) != nil {
			t.Errorf("%s still exists", n.ID)
		}
	}

	// Destroying again finds everything gone, which is success.
	p, err = applier.PlanDestroy(ctx, g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	rep = applier.Destroy(ctx, p, e.options(g, &recorder{}))
	if rep.Failed() || rep.Count(applier.OutcomeAlreadyGone) != len(g.Nodes) {
		t.Errorf("second destroy: %v", outcomes(rep))
	}
}

func TestDestroyFindsUnmanagedResourcesThatWouldCascade(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	g := load(t, quickstart)
	e.applied(t, g)
	ctx := testkit.Context(t)
	var vnet, rgID string
	for _, n := range g.Nodes {
		switch n.Kind.Kind {
		case "VirtualNetwork":
			vnet = n.ID
		case "ResourceGroup":
			rgID = n.ID
		}
	}
	strays := []string{vnet + "/subnets/made-in-portal", rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/someone-elses"}
	for _, id := range strays {
		version := "2023-01-31" // the identity's
		if strings.Contains(id, "/subnets/") {
			version = "2020-11-01"
		}
		op, err := e.client.Put(ctx, id, version, map[string]any{"location": "westus2", "properties": map[string]any{"addressPrefix": "10.10.9.0/24"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p, err := applier.PlanDestroy(ctx, g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, c := range p.Cascades {
		found[strings.ToLower(c.ID)] = c.Address == "" && c.By == "resources.azure.com/ResourceGroup/default/azk-quickstart"
	}
	for _, id := range strays {
		if !found[strings.ToLower(id)] {
			t.Errorf("%s is not reported as removed with the resource group; cascades: %+v", id, p.Cascades)
		}
	}
	var text bytes.Buffer
	p.WriteText(&text)
	if !strings.Contains(text.String(), "! "+strays[1]+" (not in the input; removed with resources.azure.com/ResourceGroup/default/azk-quickstart)") {
		t.Errorf("destroy plan text:\n%s", text.String())
	}
}

func TestDestroyHonoursPoliciesAndReverseOrder(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "*", Delete: 150 * time.Millisecond}}}, 10)
	// The resource group is skip, so its contents are deleted one by one, in
	// reverse dependency order; the subnet goes with its network, and the
	// security group it references can go only after that.
	docs := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: keep
  annotations:
    serviceoperator.azure.com/reconcile-policy: skip
spec:
  location: westus2
---
apiVersion: network.azure.com/v1api20201101
kind: NetworkSecurityGroup
metadata:
  name: nsg
spec:
  location: westus2
  owner: {name: keep}
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet
spec:
  location: westus2
  owner: {name: keep}
  addressSpace: {addressPrefixes: [10.0.0.0/16]}
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet
spec:
  owner: {name: vnet}
  addressPrefix: 10.0.1.0/24
  networkSecurityGroup:
    reference: {group: network.azure.com, kind: NetworkSecurityGroup, name: nsg}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: shared
  annotations:
    serviceoperator.azure.com/reconcile-policy: detach-on-delete
spec:
  location: westus2
  owner: {name: keep}
`
	g := load(t, writeManifests(t, docs))
	ctx := testkit.Context(t)
	// reconcile-policy skip never creates: the group exists already.
	op, err := e.client.Put(ctx, g.Nodes[0].ID, "2020-06-01", map[string]any{"location": "westus2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	e.applied(t, g)
	p, err := applier.PlanDestroy(ctx, g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cascades) != 0 {
		t.Fatalf("unexpected cascades %+v", p.Cascades)
	}
	rec := &recorder{}
	rep := applier.Destroy(ctx, p, e.options(g, rec))
	got := outcomes(rep)
	want := map[string]applier.Outcome{
		"resources.azure.com/ResourceGroup/default/keep":                applier.OutcomeSkipped,
		"network.azure.com/NetworkSecurityGroup/default/nsg":            applier.OutcomeDeleted,
		"network.azure.com/VirtualNetwork/default/vnet":                 applier.OutcomeDeleted,
		"network.azure.com/VirtualNetworksSubnet/default/subnet":        applier.OutcomeCascaded,
		"managedidentity.azure.com/UserAssignedIdentity/default/shared": applier.OutcomeDetached,
	}
	for addr, o := range want {
		if got[addr] != o {
			t.Errorf("%s: %s, want %s", addr, got[addr], o)
		}
	}
	if nsgStart, vnetEnd := rec.index(applier.EventStart, "network.azure.com/NetworkSecurityGroup/default/nsg"), rec.index(applier.EventEnd, "network.azure.com/VirtualNetwork/default/vnet"); nsgStart < vnetEnd {
		t.Errorf("the security group was deleted (event %d) before the network holding the subnet that uses it was gone (event %d)", nsgStart, vnetEnd)
	}
	for _, n := range g.Nodes {
		exists := e.get(t, n.ID, n.Kind.APIVersion) != nil
		if keep := n.Object.Name == "keep" || n.Object.Name == "shared"; exists != keep {
			t.Errorf("%s exists=%v after destroy, want %v", n.ID, exists, keep)
		}
	}
}
