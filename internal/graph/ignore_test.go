package graph_test

import (
	"strings"
	"testing"
)

// TestIgnoreChangesPathsAreCheckedAgainstTheSchema: every path of the
// ignore-changes annotation must be one the kind's requests can carry; a
// misspelt one is an error with the file and the line of that very path
// (in a literal block), the resource, the field, and the nearest property.
func TestIgnoreChangesPathsAreCheckedAgainstTheSchema(t *testing.T) {
	network := `apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet1
  annotations:
    azk.azkcli.io/ignore-changes: |
      tags["cost.center"]
      properties.dhcpOptions.dnsServers
      properties.subnets[name=web].properties.routeTable
      properties.adressSpace
      properties.dhcpOptions[name=x]
      properties.subnets.web
      properties.enableDdosProtection.more
      properties.dhcpOptions.dnsServer
spec:
  location: westus2
  owner:
    name: rg1
  addressSpace:
    addressPrefixes: [10.0.0.0/16]
`
	g, diags, file := build(t, rg, network)
	const field = "metadata.annotations.azk.azkcli.io/ignore-changes"
	const address = "network.azure.com/VirtualNetwork/default/vnet1"
	want := map[int]string{
		// rg is 6 lines and "---": the block's lines are 14 onwards.
		17: `"properties.adressSpace": VirtualNetwork has no property "adressSpace" under properties (did you mean "properties.addressSpace"?)`,
		18: `"properties.dhcpOptions[name=x]": properties.dhcpOptions is not a list, so [name=x] names nothing`,
		19: `"properties.subnets.web": properties.subnets is a list: choose an item with [name=NAME]`,
		20: `"properties.enableDdosProtection.more": properties.enableDdosProtection holds a single value: it has no property "more"`,
		21: `"properties.dhcpOptions.dnsServer": VirtualNetwork has no property "dnsServer" under properties.dhcpOptions (did you mean "properties.dhcpOptions.dnsServers"?)`,
	}
	got := map[int]string{}
	for _, d := range diags {
		if d.Field != field {
			t.Errorf("unexpected diagnostic: %v", d)
			continue
		}
		if d.Resource != address || d.Source.File != file {
			t.Errorf("%v: wrong resource or file", d)
		}
		got[d.Source.Line] = d.Message
	}
	for line, msg := range want {
		if got[line] != msg {
			t.Errorf("line %d: got %q\nwant %q", line, got[line], msg)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(got), len(want), got)
	}
	var kept []string
	for _, n := range g.Nodes {
		for _, p := range n.IgnoreChanges {
			kept = append(kept, p.String())
		}
	}
	if w := []string{`tags["cost.center"]`, "properties.dhcpOptions.dnsServers", "properties.subnets[name=web].properties.routeTable"}; strings.Join(kept, "\n") != strings.Join(w, "\n") {
		t.Errorf("kept %q, want %q", kept, w)
	}
}
