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
// version, v1api20201101 of a network) and cannot be kept is named:
// encryption and flowTimeoutInMinutes, unknown to the REST specification of
// 2020-11-01, are listed as what the PUT may reset, with the reason, and
// the PUT body does not carry them. (What a PUT of the api-version accepts
// is kept: TestDiffUnexpressed, merge().) Enforce lists neither.
func TestDriftPolicyMergeBeyondSchema(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Put(t, rgDrift, "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, rgDrift+"/providers/Microsoft.Network/virtualNetworks/vnet-dns", "2024-03-01", map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}},
			"encryption": map[string]any{"enabled": true, "enforcement": "AllowUnencrypted"}, "flowTimeoutInMinutes": 10.0,
			"subnets": []any{map[string]any{"name": "default", "properties": map[string]any{"addressPrefix": "10.0.0.0/24"}}}}})
	g := writeInput(t, driftInput("{}"))

	merge := planWith(t, az, g, planner.Options{DriftPolicy: "merge"})["vnet-dns"]
	if merge.Action != planner.ActionUpdate {
		t.Fatalf("merge: action %s, want update (the DNS servers)", merge.Action)
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
	for _, v := range append(enforce.Kept, enforce.AzureOnly...) {
		if v.Reason != "" {
			t.Errorf("enforce: lists %+v beyond the schema", v)
		}
	}
}
