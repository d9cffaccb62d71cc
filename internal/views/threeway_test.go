package views

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// seedThreeWay creates what applying threeway-base.yaml made, a tag the
// portal added since to the network, and an identity outside the manifests
// in the group the change removes.
func seedThreeWay(t *testing.T, az *testAzure) {
	rg := "/subscriptions/" + testSub + "/resourceGroups/tw"
	gone := "/subscriptions/" + testSub + "/resourceGroups/tw-gone"
	ids := "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
	az.Put(t, rg, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev"}})
	az.Put(t, rg+"/providers/Microsoft.Network/virtualNetworks/tw-net", "2020-11-01", map[string]any{"location": "westus2",
		"tags": map[string]any{"owner": "portal"}, "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	for _, subnet := range [][2]string{{"web", "10.0.1.0/24"}, {"db", "10.0.2.0/24"}} { // in order: the network lists them so, and the golden files show it
		az.Put(t, rg+"/providers/Microsoft.Network/virtualNetworks/tw-net/subnets/"+subnet[0], "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": subnet[1]}})
	}
	az.Put(t, rg+"/providers/Microsoft.DBforMySQL/flexibleServers/tw-mysql", "2023-12-30", map[string]any{"location": "westus2", "properties": map[string]any{"administratorLogin": "admin"}})
	for _, name := range []string{"tw-replace", "tw-keep", "tw-old"} {
		az.Put(t, rg+ids+name, "2023-01-31", map[string]any{"location": "westus2"})
	}
	az.Put(t, gone, "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, gone+ids+"tw-gone-id", "2023-01-31", map[string]any{"location": "westus2"})
	az.Put(t, gone+ids+"stray", "2023-01-31", map[string]any{"location": "westus2"})
}

// A three-way plan (--base): each change's origin, the removals as the
// operator treats deleted objects (delete, cascade, detach, the cascade
// guard), the consumer of a rotated Secret, and a requested replacement, in
// every output form.
func TestThreeWayPlan(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	seedThreeWay(t, az)
	head, base := loadScenario(t, "testdata/threeway-head.yaml"), loadScenario(t, "testdata/threeway-base.yaml")
	p, diags := planner.Make(context.Background(), head, planner.Options{
		Reader:  az.Client,
		Inputs:  planner.Inputs{Paths: []string{"testdata/threeway-head.yaml"}, Namespace: "default", Base: "testdata/threeway-base.yaml"},
		Base:    base,
		Replace: []string{"UserAssignedIdentity/tw-replace"},
	})
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	renderAll(t, "threeway", p)
	var all bytes.Buffer
	_ = JSON(&all, p)
	_ = Text(&all, p, Options{ShowUnchanged: true})
	for _, secret := range []string{"base-password-never-printed", "head-password-never-printed"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("the plan shows a secret value")
		}
	}
	type want struct {
		action     planner.Action
		reason     planner.Reason
		cascadedBy string
		origins    map[string]planner.Origin
	}
	rg := "resources.azure.com/ResourceGroup/default/"
	wants := map[string]want{
		"tw":         {planner.ActionUpdate, planner.ReasonChanged, "", map[string]planner.Origin{"tags.env": planner.OriginChange}},
		"tw-net":     {planner.ActionUpdate, planner.ReasonChanged, "", map[string]planner.Origin{"tags.owner": planner.OriginDrift}},
		"tw-web":     {planner.ActionNoChange, planner.ReasonMatches, "", nil},
		"tw-mysql":   {planner.ActionUpdate, planner.ReasonSecretChanged, "", map[string]planner.Origin{"properties.administratorLoginPassword": planner.OriginChange}},
		"tw-replace": {planner.ActionRecreate, planner.ReasonReplaceRequested, "", map[string]planner.Origin{"location": planner.OriginDrift}},
		"tw-new":     {planner.ActionCreate, planner.ReasonMissing, "", map[string]planner.Origin{"location": planner.OriginChange}},
		"tw-db":      {planner.ActionDelete, planner.ReasonRemoved, "", nil},
		"tw-keep":    {planner.ActionDetach, planner.ReasonForget, "", nil},
		"tw-old":     {planner.ActionDelete, planner.ReasonRemoved, "", nil},
		"tw-gone":    {planner.ActionDelete, planner.ReasonRemoved, "", nil},
		"tw-gone-id": {planner.ActionDelete, planner.ReasonRemoved, rg + "tw-gone", nil},
	}
	for _, r := range p.Resources {
		w, ok := wants[r.Name]
		if !ok {
			t.Errorf("unexpected %s", r.Address)
			continue
		}
		delete(wants, r.Name)
		if r.Action != w.action || r.Reason != w.reason || r.CascadedBy != w.cascadedBy {
			t.Errorf("%s: %s %s %q, want %s %s %q (reasons %v)", r.Name, r.Action, r.Reason, r.CascadedBy, w.action, w.reason, w.cascadedBy, r.Reasons)
		}
		for _, c := range r.Changes {
			if o, ok := w.origins[c.Path]; ok && c.Origin != o {
				t.Errorf("%s %s: origin %s, want %s", r.Name, c.Path, c.Origin, o)
			}
			if c.Origin == "" {
				t.Errorf("%s %s has no origin", r.Name, c.Path)
			}
		}
	}
	for name := range wants {
		t.Errorf("%s is not in the plan", name)
	}
	var gone *planner.Resource
	for _, r := range p.Resources {
		if r.Name == "tw-gone" {
			gone = r
		}
	}
	if gone == nil || len(gone.Cascades) != 1 || !strings.HasSuffix(gone.Cascades[0].ID, "/stray") {
		t.Errorf("the removed group's cascades: %+v, want the stray identity", gone)
	}
	if len(p.Unmanaged) != 0 {
		t.Errorf("unmanaged %v: the removed resources are planned, not unmanaged", p.Unmanaged)
	}
	if got := SummaryLine(p); got != "Plan: 1 to create, 3 to update, 1 to replace, 4 to delete, 1 to detach, 1 unchanged, 0 skipped, 0 blocked; this change: 9, drift: 1." {
		t.Errorf("summary: %s", got)
	}
	// The deletions come after the rest, children and dependents first.
	var order []string
	for _, r := range p.Resources {
		if r.Removed() {
			order = append(order, r.Name)
		}
	}
	if !slices.Equal(order, []string{"tw-gone-id", "tw-gone", "tw-old", "tw-keep", "tw-db"}) {
		t.Errorf("removals in the order %v", order)
	}
}
