package planner

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// The base's body and the manifests' differ where the change under review
// changes them, in the differ's path form: map keys added and removed,
// named list items by name, other items by position, a list of another
// length as a whole.
func TestBaseDiffPaths(t *testing.T) {
	base := map[string]any{
		"location": "westus2",
		"tags":     map[string]any{"env": "dev", "team": "a", "cost.center": "1"},
		"properties": map[string]any{
			"subnets":  []any{map[string]any{"name": "web", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}, map[string]any{"name": "db"}},
			"prefixes": []any{"10.0.0.0/16"},
			"rules":    []any{map[string]any{"port": 80.0}, map[string]any{"port": 443.0}},
		},
	}
	head := map[string]any{
		"location": "westus2",
		"tags":     map[string]any{"env": "prod", "team": "a", "owner": "x"},
		"properties": map[string]any{
			"subnets":  []any{map[string]any{"name": "web", "properties": map[string]any{"addressPrefix": "10.0.9.0/24"}}},
			"prefixes": []any{"10.0.0.0/16", "10.1.0.0/16"},
			"rules":    []any{map[string]any{"port": 80.0}, map[string]any{"port": 8443.0}},
		},
	}
	d := baseDiff{inBase: true}
	walkDiff("", base, head, &d)
	sort.Strings(d.paths)
	want := []string{
		"properties.prefixes",
		"properties.rules[1].port",
		"properties.subnets[name=db]",
		"properties.subnets[name=web].properties.addressPrefix",
		"tags.env",
		"tags.owner",
		`tags["cost.center"]`,
	}
	if !slices.Equal(d.paths, want) {
		t.Errorf("paths %q, want %q", d.paths, want)
	}
	for path, origin := range map[string]Origin{
		"tags.env":                     OriginChange,
		"TAGS.ENV":                     OriginChange, // a removal names Azure's key case
		"tags.drifted":                 OriginDrift,
		"properties.prefixes":          OriginChange,
		"properties.subnets[name=web]": OriginChange, // around a changed path
		"properties.subnets[name=web].properties.addressPrefix": OriginChange,
		"properties.subnets[name=api]":                          OriginDrift,
		"properties.rules[0].port":                              OriginDrift,
		"location":                                              OriginDrift,
	} {
		if got := d.origin(path); got != origin {
			t.Errorf("origin of %s: %s, want %s", path, got, origin)
		}
	}
	if got := (baseDiff{}).origin("tags.a"); got != OriginChange {
		t.Errorf("a resource new in this change: %s, want change", got)
	}
	if got := (baseDiff{inBase: true, whole: true}).origin("tags.a"); got != OriginDrift {
		t.Errorf("an unchanged object whose base body could not be built: %s, want drift", got)
	}
	if got := (baseDiff{inBase: true, whole: true, differs: true}).origin("tags.a"); got != OriginChange {
		t.Errorf("a changed object whose base body could not be built: %s, want change", got)
	}
}

// seedThreeWay creates what applying threeway-base.yaml made, a tag the
// portal added since to the network, and an identity outside the manifests
// in the group the change removes.
func seedThreeWay(t *testing.T, az *testAzure) {
	rg := "/subscriptions/" + testSub + "/resourceGroups/tw"
	gone := "/subscriptions/" + testSub + "/resourceGroups/tw-gone"
	ids := "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
	az.put(t, rg, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev"}})
	az.put(t, rg+"/providers/Microsoft.Network/virtualNetworks/tw-net", "2020-11-01", map[string]any{"location": "westus2",
		"tags": map[string]any{"owner": "portal"}, "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	for _, subnet := range [][2]string{{"web", "10.0.1.0/24"}, {"db", "10.0.2.0/24"}} { // in order: the network lists them so, and the golden files show it
		az.put(t, rg+"/providers/Microsoft.Network/virtualNetworks/tw-net/subnets/"+subnet[0], "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": subnet[1]}})
	}
	az.put(t, rg+"/providers/Microsoft.DBforMySQL/flexibleServers/tw-mysql", "2023-12-30", map[string]any{"location": "westus2", "properties": map[string]any{"administratorLogin": "admin"}})
	for _, name := range []string{"tw-replace", "tw-keep", "tw-old"} {
		az.put(t, rg+ids+name, "2023-01-31", map[string]any{"location": "westus2"})
	}
	az.put(t, gone, "2020-06-01", map[string]any{"location": "westus2"})
	az.put(t, gone+ids+"tw-gone-id", "2023-01-31", map[string]any{"location": "westus2"})
	az.put(t, gone+ids+"stray", "2023-01-31", map[string]any{"location": "westus2"})
}

// A three-way plan (--base): each change's origin, the removals as the
// operator treats deleted objects (delete, cascade, detach, the cascade
// guard), the consumer of a rotated Secret, and a requested replacement, in
// every output form.
func TestThreeWayPlan(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	seedThreeWay(t, az)
	head, base := loadScenario(t, "testdata/threeway-head.yaml"), loadScenario(t, "testdata/threeway-base.yaml")
	p, diags := Make(context.Background(), head, Options{
		Reader:  az.client,
		Inputs:  Inputs{Paths: []string{"testdata/threeway-head.yaml"}, Namespace: "default", Base: "testdata/threeway-base.yaml"},
		Base:    base,
		Replace: []string{"UserAssignedIdentity/tw-replace"},
	})
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	renderAll(t, "threeway", p)
	var all bytes.Buffer
	_ = WriteJSON(&all, p)
	_ = WriteText(&all, p, RenderOptions{ShowUnchanged: true})
	for _, secret := range []string{"base-password-never-printed", "head-password-never-printed"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("the plan shows a secret value")
		}
	}
	type want struct {
		action     Action
		reason     Reason
		cascadedBy string
		origins    map[string]Origin
	}
	rg := "resources.azure.com/ResourceGroup/default/"
	wants := map[string]want{
		"tw":         {ActionUpdate, ReasonChanged, "", map[string]Origin{"tags.env": OriginChange}},
		"tw-net":     {ActionUpdate, ReasonChanged, "", map[string]Origin{"tags.owner": OriginDrift}},
		"tw-web":     {ActionNoChange, ReasonMatches, "", nil},
		"tw-mysql":   {ActionUpdate, ReasonSecretChanged, "", map[string]Origin{"properties.administratorLoginPassword": OriginChange}},
		"tw-replace": {ActionRecreate, ReasonReplaceRequested, "", map[string]Origin{"location": OriginDrift}},
		"tw-new":     {ActionCreate, ReasonMissing, "", map[string]Origin{"location": OriginChange}},
		"tw-db":      {ActionDelete, ReasonRemoved, "", nil},
		"tw-keep":    {ActionDetach, ReasonForget, "", nil},
		"tw-old":     {ActionDelete, ReasonRemoved, "", nil},
		"tw-gone":    {ActionDelete, ReasonRemoved, "", nil},
		"tw-gone-id": {ActionDelete, ReasonRemoved, rg + "tw-gone", nil},
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
	var gone *Resource
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
	if got := p.SummaryLine(); got != "Plan: 1 to create, 3 to update, 1 to replace, 4 to delete, 1 to detach, 1 unchanged, 0 skipped, 0 blocked; this change: 9, drift: 1." {
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
