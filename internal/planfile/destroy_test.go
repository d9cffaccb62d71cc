package planfile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// TestMakeDestroy: a destroy plan holds what destroying the scenario does
// to what Azure has (nothing for what it lacks): the resource group is
// deleted and ARM takes everything in it along (cascadedBy), including
// resources whose policy keeps them and one the manifests do not hold, each
// listed in the group's cascades. Saved and loaded it is not stale; once a
// resource it did not list exists, it is; flags that plan changes are refused.
func TestMakeDestroy(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	g := loadScenario(t, "testdata/scenario.yaml")
	opts := planner.Options{Reader: az.Client, Inputs: planner.Inputs{Paths: []string{"testdata/scenario.yaml"}, Namespace: "default"}}
	p, diags := planner.MakeDestroy(context.Background(), g, opts)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	const group = "resources.azure.com/ResourceGroup/default/rg-adopt"
	want := map[string]string{ // name -> cascadedBy
		"rg-adopt": "", "vnet-detach": group, "nsg-readonly": group, "id-nochange": group, "vnet-update": group, "id-moved": group,
	}
	for _, r := range p.Resources {
		by, ok := want[r.Name]
		if !ok || r.Action != planner.ActionDelete || r.Reason != planner.ReasonDestroy || r.CascadedBy != by || !r.Exists {
			t.Errorf("%s: %s %s cascaded by %q, want delete cascaded by %q", r.Address, r.Action, r.Reason, r.CascadedBy, by)
		}
		delete(want, r.Name)
	}
	if len(want) > 0 || !p.Destroy || !p.HasChanges() {
		t.Errorf("not planned: %v; destroy %v", want, p.Destroy)
	}
	var cascades []string
	for _, c := range p.Resources[len(p.Resources)-1].Cascades {
		cascades = append(cascades, c.ID[strings.LastIndexByte(c.ID, '/')+1:]+": "+c.Reason)
	}
	for _, w := range []string{"vnet-detach: marked detach-on-delete", "nsg-readonly: marked skip", "strayaccount: not in the input"} {
		if !strings.Contains(strings.Join(cascades, "\n"), w) {
			t.Errorf("the group's cascades lack %q: %v", w, cascades)
		}
	}

	file := filepath.Join(t.TempDir(), "destroy.azk")
	if err := Save(file, p); err != nil {
		t.Fatal(err)
	}
	saved, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := planner.MakeDestroy(context.Background(), g, opts)
	if moved := Stale(context.Background(), saved, fresh); len(moved) != 0 || !saved.Destroy {
		t.Errorf("a saved destroy plan is stale at once: %v (destroy %v)", moved, saved.Destroy)
	}
	az.Put(t, rgAdopt+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-new", "2023-01-31", map[string]any{"location": "westus2"})
	fresh, _ = planner.MakeDestroy(context.Background(), g, opts)
	moved := strings.Join(Stale(context.Background(), saved, fresh), "\n")
	if !strings.Contains(moved, "managedidentity.azure.com/UserAssignedIdentity/default/id-new: to delete now, which the plan does not list") {
		t.Errorf("a resource created since the destroy plan is not reported:\n%s", moved)
	}

	for name, o := range map[string]planner.Options{
		"drift":   {Reader: az.Client, Drift: true},
		"replace": {Reader: az.Client, Replace: []string{"VirtualNetwork/vnet-update"}},
		"base":    {Reader: az.Client, Base: g},
		"policy":  {Reader: az.Client, ReconcilePolicyIfExists: "keep"},
		"reader":  {},
	} {
		if p, diags := planner.MakeDestroy(context.Background(), g, o); p != nil || !diags.HasErrors() {
			t.Errorf("%s: a destroy plan was made", name)
		}
	}
}
