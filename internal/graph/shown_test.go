package graph_test

import (
	"slices"
	"strings"
	"testing"
)

// TestShownListsPlainValuesNeverSecretData: the strings azk prints as they
// are cover the manifests' plain values, keys, names and the ARM IDs made of
// them, and never the data of a Secret; WhereShown names the first use.
func TestShownListsPlainValuesNeverSecretData(t *testing.T) {
	secret := `apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password: never-shown-value
`
	config := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  endpoint: https://api.contoso.com/v1
`
	g, diags, file := build(t, rg, vnet, secret, config)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	var shown []string
	g.Shown(func(v string) { shown = append(shown, v) })
	for _, want := range []string{"rg1", "westus2", "10.0.0.0/16", "addressPrefixes", "creds", "https://api.contoso.com/v1",
		"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/vnet1",
		"network.azure.com/VirtualNetwork/default/vnet1", "00000000-0000-0000-0000-000000000001"} {
		if !slices.Contains(shown, want) {
			t.Errorf("%q is not among the shown values", want)
		}
	}
	for _, v := range shown {
		if strings.Contains(v, "never-shown-value") {
			t.Errorf("a Secret's data is shown: %q", v)
		}
	}
	use, ok := g.WhereShown("api.contoso.com")
	if !ok || use.Field != "data.endpoint" || use.Address != "v1/ConfigMap/default/settings" || use.Source.File != file || use.Source.Line != 31 {
		t.Errorf("WhereShown(host) = %+v, %v", use, ok)
	}
	if use, ok := g.WhereShown("00000000-0000-0000-0000-000000000001"); !ok || use.Field != "the ARM ID" || use.Address != "resources.azure.com/ResourceGroup/default/rg1" {
		t.Errorf("WhereShown(subscription) = %+v, %v", use, ok)
	}
	if use, ok := g.WhereShown("10.0.0.0/16"); !ok || use.Field != "spec.addressSpace.addressPrefixes[0]" {
		t.Errorf("WhereShown(prefix) = %+v, %v", use, ok)
	}
	if _, ok := g.WhereShown("never-shown-value"); ok {
		t.Error("a Secret's data was found shown")
	}
}
