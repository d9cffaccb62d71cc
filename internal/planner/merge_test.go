package planner_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// Under merge, what Azure holds beyond the kind's schema (this CRD
// version, v1api20201101 of a network) is kept or named: its peerings (no
// field in the CRD, which makes them a kind of their own; accepted by a PUT
// of 2020-11-01) are kept in the PUT body and listed as kept, with the
// reason; encryption and flowTimeoutInMinutes, unknown to the REST
// specification of 2020-11-01, cannot be kept: they are listed as what the
// PUT may reset, with the reason, and the body does not carry them.
// Enforce keeps none of it and lists nothing with a reason.
func TestDriftPolicyMergeBeyondSchema(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Put(t, rgDrift, "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, rgDrift+"/providers/Microsoft.Network/virtualNetworks/vnet-dns", "2024-03-01", map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
			"encryption": map[string]any{"enabled": true, "enforcement": "AllowUnencrypted"}, "flowTimeoutInMinutes": 10.0,
			"subnets": []any{map[string]any{"name": "default", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}},
			"virtualNetworkPeerings": []any{map[string]any{"name": "to-hub", "properties": map[string]any{"allowForwardedTraffic": true,
				"remoteVirtualNetwork": map[string]any{"id": rgDrift + "/providers/Microsoft.Network/virtualNetworks/hub"}}}}}})
	g := writeInput(t, driftInput("{}"))

	merge := planWith(t, az, g, planner.Options{DriftPolicy: "merge"})["vnet-dns"]
	if merge.Action != planner.ActionUpdate {
		t.Fatalf("merge: action %s, want update (the DNS servers)", merge.Action)
	}
	peerings := []any{map[string]any{"name": "to-hub", "properties": map[string]any{"allowForwardedTraffic": true,
		"remoteVirtualNetwork": map[string]any{"id": rgDrift + "/providers/Microsoft.Network/virtualNetworks/hub"}}}}
	if !slices.ContainsFunc(merge.Kept, func(v planner.PathValue) bool {
		return v.Path == "properties.virtualNetworkPeerings" && v.Reason == bodydiff.ReasonUnexpressed && reflect.DeepEqual(v.Value, peerings)
	}) {
		t.Errorf("merge: kept %+v, want the peerings with the reason", merge.Kept)
	}
	if got := merge.Desired["properties"].(map[string]any)["virtualNetworkPeerings"]; !reflect.DeepEqual(got, peerings) {
		t.Errorf("merge: the PUT body's peerings %v, want Azure's %v", got, peerings)
	}
	var resets []planner.PathValue
	for _, v := range merge.AzureOnly {
		if v.Reason != "" {
			resets = append(resets, v)
		}
	}
	want := []planner.PathValue{
		{Path: "properties.encryption", Value: map[string]any{"enabled": true, "enforcement": "AllowUnencrypted"}, Reason: bodydiff.ReasonUnknownToAPI},
		{Path: "properties.flowTimeoutInMinutes", Value: 10.0, Reason: bodydiff.ReasonUnknownToAPI},
	}
	for _, w := range want {
		if !slices.ContainsFunc(resets, func(v planner.PathValue) bool { return reflect.DeepEqual(v, w) }) {
			t.Errorf("merge: may reset %+v,\nwant among them %+v", resets, w)
		}
	}
	if _, carried := merge.Desired["properties"].(map[string]any)["encryption"]; carried {
		t.Errorf("merge: the PUT body carries encryption, which api-version 2020-11-01 does not know")
	}

	enforce := planWith(t, az, g, planner.Options{})["vnet-dns"]
	if _, carried := enforce.Desired["properties"].(map[string]any)["virtualNetworkPeerings"]; carried {
		t.Errorf("enforce: the PUT body carries Azure's peerings")
	}
	for _, v := range append(enforce.Kept, enforce.AzureOnly...) {
		if v.Reason != "" {
			t.Errorf("enforce: lists %+v beyond the schema", v)
		}
	}
}
