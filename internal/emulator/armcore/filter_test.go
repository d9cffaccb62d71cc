package armcore

import "testing"

// TestListFilters follows the $filter grammar of ARM's Resources - List and
// Resource Groups - List operations, and refuses what ARM refuses
// (InvalidFilterInQueryString) rather than ignoring it.
func TestListFilters(t *testing.T) {
	vnet := listed{typ: "Microsoft.Network/virtualNetworks", name: "demo-net", location: "westus2", group: "rg1", tags: map[string]any{"Env": "dev"}}
	kv := listed{typ: "Microsoft.KeyVault/vaults", name: "kv", location: "eastus", group: "rg2", tags: map[string]any{"department": "it"}}
	for _, tc := range []struct {
		filter     string
		groups     bool
		vnet, kv   bool
		refusedErr bool
	}{
		{filter: "", vnet: true, kv: true},
		{filter: "resourceType eq 'microsoft.network/virtualnetworks'", vnet: true},
		{filter: "resourceType ne 'Microsoft.Network/virtualNetworks'", kv: true},
		{filter: "substringof('demo', name)", vnet: true},
		{filter: "substringof('demo', name) or resourceType eq 'Microsoft.KeyVault/vaults'", vnet: true, kv: true},
		{filter: "resourceGroup eq 'rg2' and resourceType eq 'Microsoft.KeyVault/vaults'", kv: true},
		{filter: "location eq 'West US 2'", vnet: true},
		{filter: "tagName eq 'env'", vnet: true},
		{filter: "tagName eq 'env' and tagValue eq 'dev'", vnet: true},
		{filter: "tagName eq 'env' and tagValue eq 'prod'"},
		{filter: "startswith(tagName, 'depart')", kv: true},
		{filter: "tagName eq 'env'", groups: true, vnet: true},
		{filter: "name eq 'kv'", groups: true, refusedErr: true},
		{filter: "resourceType eq 'x' and tagName eq 'env'", refusedErr: true},
		{filter: "tagValue eq 'dev'", refusedErr: true},
		{filter: "identity/principalId eq 'x'", refusedErr: true},
		{filter: "(name eq 'kv')", refusedErr: true},
		{filter: "substringof('x', location)", refusedErr: true},
	} {
		f, err := parseListFilter(tc.filter, tc.groups)
		if tc.refusedErr {
			if ae, ok := err.(*Error); !ok || ae.Code != "InvalidFilterInQueryString" {
				t.Errorf("%q: %v, want InvalidFilterInQueryString", tc.filter, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.filter, err)
			continue
		}
		if f.matches(vnet) != tc.vnet || f.matches(kv) != tc.kv {
			t.Errorf("%q: network %v vault %v, want %v %v", tc.filter, f.matches(vnet), f.matches(kv), tc.vnet, tc.kv)
		}
	}
}
