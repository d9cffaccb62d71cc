package bodydiff

import (
	"reflect"
	"testing"
)

// A setting the REST specification says stays on once on (Key Vault's
// enableSoftDelete: "once set to true, it cannot be reverted to false";
// a storage account's largeFileSharesState: "cannot be disabled once it is
// enabled") that Azure holds on while the body sends off is no change: no
// PUT can turn it off. Turning it on still shows, as does turning off a
// setting the specification says nothing of.
func TestDiffOneWaySettings(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	storage := kindOf(t, "storage.azure.com", "v1api20230101", "StorageAccount")
	runDiffCases(t, []diffCase{
		{"soft delete kept on", vault,
			props("properties", props("enableSoftDelete", false)), props("properties", props("enableSoftDelete", true)), nil, nil, nil},
		{"soft delete turned on", vault,
			props("properties", props("enableSoftDelete", true)), props("properties", props("enableSoftDelete", false)),
			[]string{"properties.enableSoftDelete"}, nil, nil},
		{"another boolean turned off", vault,
			props("properties", props("enableRbacAuthorization", false)), props("properties", props("enableRbacAuthorization", true)),
			[]string{"properties.enableRbacAuthorization"}, nil, nil},
		{"large file shares kept enabled", storage,
			props("properties", props("largeFileSharesState", "Disabled")), props("properties", props("largeFileSharesState", "Enabled")), nil, nil, nil},
		{"large file shares enabled", storage,
			props("properties", props("largeFileSharesState", "Enabled")), props("properties", props("largeFileSharesState", "Disabled")),
			[]string{"properties.largeFileSharesState"}, nil, nil},
		{"another enum set to Disabled", storage,
			props("properties", props("publicNetworkAccess", "Disabled")), props("properties", props("publicNetworkAccess", "Enabled")),
			[]string{"properties.publicNetworkAccess"}, nil, nil},
	})
}

// What Azure holds at paths the kind's spec (this CRD version) has no field
// for is listed apart, with the reason: a network's subnets (kinds of their
// own in the CRDs) are accepted by a PUT of its api-version, without their
// read-only parts; encryption and flowTimeoutInMinutes are not known to the
// REST specification of 2020-11-01. ARM's envelope (IDs, etags, types,
// provisioningState) is never listed; the newer CRD version has fields for
// encryption and flowTimeoutInMinutes, so they are Azure-only there.
func TestDiffUnexpressed(t *testing.T) {
	held := props("location", "westus", "id", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v", "etag", "W/1",
		"properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"}), "provisioningState", "Succeeded", "resourceGuid", "g",
			"encryption", props("enabled", true, "enforcement", "AllowUnencrypted"), "flowTimeoutInMinutes", 10.0,
			"subnets", []any{props("name", "a", "id", "x", "etag", "W/2", "properties", props("addressPrefix", "10.0.0.0/24", "provisioningState", "Succeeded"))}))
	desired := props("location", "westus", "properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"})))
	old := For(kindOf(t, "network.azure.com", "v1api20201101", "VirtualNetwork")).Compare(desired, held)
	want := []PathValue{
		{Path: "properties.encryption", Value: props("enabled", true, "enforcement", "AllowUnencrypted"), Reason: ReasonUnknownToAPI},
		{Path: "properties.flowTimeoutInMinutes", Value: 10.0, Reason: ReasonUnknownToAPI},
		{Path: "properties.subnets", Value: []any{props("name", "a", "id", "x", "properties", props("addressPrefix", "10.0.0.0/24"))}, Reason: ReasonUnexpressed},
	}
	if !reflect.DeepEqual(old.Unexpressed, want) || len(old.AzureOnly) != 0 || len(old.Changes) != 0 {
		t.Errorf("v1api20201101: unexpressed %+v, azure only %+v, changes %+v;\nwant unexpressed %+v", old.Unexpressed, old.AzureOnly, old.Changes, want)
	}
	newer := For(kindOf(t, "network.azure.com", "v1api20240301", "VirtualNetwork")).Compare(desired, held)
	var azureOnly []string
	for _, v := range newer.AzureOnly {
		azureOnly = append(azureOnly, v.Path)
	}
	if !reflect.DeepEqual(azureOnly, []string{"properties.encryption", "properties.flowTimeoutInMinutes"}) || len(newer.Unexpressed) != 1 || newer.Unexpressed[0].Path != "properties.subnets" {
		t.Errorf("v1api20240301: azure only %v, unexpressed %+v", azureOnly, newer.Unexpressed)
	}
}

// A list of enum values whose REST specification says nothing of its order
// (Key Vault's access-policy permissions) is the set of options it names:
// Azure returning it in another order and case is no change. A value added
// or taken away still shows, as does reordering a list that is not one of
// enum values (DNS servers, where order is the lookup order) or whose
// description speaks of its order (an application gateway's cipher suites,
// "enabled in the specified order").
func TestDiffEnumSets(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	vnet := kindOf(t, "network.azure.com", "v1api20201101", "VirtualNetwork")
	gateway := kindOf(t, "network.azure.com", "v1api20220701", "ApplicationGateway")
	keys := func(perms ...any) map[string]any {
		return props("properties", props("accessPolicies", []any{props("objectId", "o1", "permissions", props("keys", perms))}))
	}
	runDiffCases(t, []diffCase{
		{"permissions in Azure's order and case", vault, keys("Get", "List", "Sign"), keys("sign", "get", "list"), nil, nil, nil},
		{"a permission added", vault, keys("Get", "List", "Sign"), keys("get", "list"),
			[]string{"properties.accessPolicies[0].permissions.keys"}, nil, nil},
		{"a permission taken away", vault, keys("Get"), keys("get", "list"),
			[]string{"properties.accessPolicies[0].permissions.keys"}, nil, nil},
		{"DNS servers reordered", vnet,
			props("properties", props("dhcpOptions", props("dnsServers", []any{"10.0.0.4", "10.0.0.5"}))),
			props("properties", props("dhcpOptions", props("dnsServers", []any{"10.0.0.5", "10.0.0.4"}))),
			[]string{"properties.dhcpOptions.dnsServers"}, nil, nil},
		{"cipher suites reordered", gateway,
			props("properties", props("sslPolicy", props("cipherSuites", []any{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}))),
			props("properties", props("sslPolicy", props("cipherSuites", []any{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"}))),
			[]string{"properties.sslPolicy.cipherSuites"}, nil, nil},
		{"disabled protocols in another order", gateway,
			props("properties", props("sslPolicy", props("disabledSslProtocols", []any{"TLSv1_0", "TLSv1_1"}))),
			props("properties", props("sslPolicy", props("disabledSslProtocols", []any{"TLSv1_1", "TLSv1_0"}))), nil, nil, nil},
	})
}
