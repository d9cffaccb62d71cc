package bodydiff

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/registry"
)

func kindOf(t *testing.T, group, version, kind string) *registry.Kind {
	t.Helper()
	k, ok := registry.Default().Lookup(group, version, kind)
	if !ok {
		t.Fatalf("%s/%s %s is not in the registry", group, version, kind)
	}
	return k
}

type diffCase struct {
	name             string
	kind             *registry.Kind
	desired, current map[string]any
	want             []string // paths of the expected changes, in order
	// notReturned are the expected paths the GET lacks, whether the REST
	// specification says ARM withholds them (notReturned) or not (lacking):
	// each case compares a body with the GET after it was sent. azureOnly
	// are the expected paths of what Azure holds beyond the body. Both in order.
	notReturned, azureOnly []string
}

func runDiffCases(t *testing.T, cases []diffCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := For(tt.kind).Compare(tt.desired, tt.current)
			var changes, notReturned, azureOnly []string
			for _, c := range got.Changes {
				changes = append(changes, c.Path)
			}
			for _, v := range append(got.NotReturned, got.Lacking...) {
				notReturned = append(notReturned, v.Path)
			}
			slices.Sort(notReturned)
			for _, v := range got.AzureOnly {
				azureOnly = append(azureOnly, v.Path)
			}
			if !slices.Equal(changes, tt.want) || !slices.Equal(notReturned, slices.Sorted(slices.Values(tt.notReturned))) || !slices.Equal(azureOnly, tt.azureOnly) {
				t.Fatalf("changes %+v, not returned %+v, lacking %+v, azure only %+v;\nwant changes %v, not returned %v, azure only %v",
					got.Changes, got.NotReturned, got.Lacking, got.AzureOnly, tt.want, tt.notReturned, tt.azureOnly)
			}
		})
	}
}

func props(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// TestDiffWhatARMDoesNotReturn: a property the body sets that Azure's object
// lacks is not returned by ARM: listed, never a change, whether or not the
// REST specification says why. A property ARM returns is compared; a map key
// or a list item Azure lacks is an addition.
func TestDiffWhatARMDoesNotReturn(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	vm := kindOf(t, "compute.azure.com", "v1api20220301", "VirtualMachine")
	workbook := kindOf(t, "insights.azure.com", "v1api20230601", "Workbook")
	mariadb := kindOf(t, "dbformariadb.azure.com", "v1api20180601", "Server")
	rule := kindOf(t, "servicebus.azure.com", "v1api20240101", "NamespacesTopicsSubscriptionsRule")
	compute := kindOf(t, "machinelearningservices.azure.com", "v1api20210701", "WorkspacesCompute")
	pool := kindOf(t, "containerservice.azure.com", "v1api20240901", "ManagedClustersAgentPool")
	rg := kindOf(t, "resources.azure.com", "v1api20200601", "ResourceGroup")
	runDiffCases(t, []diffCase{
		{"write-only (REST flag)", vault,
			props("properties", props("createMode", "default", "enableRbacAuthorization", true)),
			props("properties", props("enableRbacAuthorization", true)), nil, []string{"properties.createMode"}, nil},
		{"write-only returned otherwise is not compared", vault,
			props("properties", props("createMode", "default")),
			props("properties", props("createMode", "recover")), nil, nil, nil},
		{"not returned though the specification does not say so", vault,
			props("properties", props("enablePurgeProtection", true, "enableRbacAuthorization", true)),
			props("properties", props("enableRbacAuthorization", true)), nil, []string{"properties.enablePurgeProtection"}, nil},
		{"a returned property is compared", vault,
			props("properties", props("enableRbacAuthorization", true)),
			props("properties", props("enableRbacAuthorization", false)), []string{"properties.enableRbacAuthorization"}, nil, nil},
		{"secret (CRD secret reference), as a recorded plain string", vm,
			props("properties", props("osProfile", props("adminPassword", "{PASSWORD}", "adminUsername", "adminUser"))),
			props("properties", props("osProfile", props("adminUsername", "adminUser"))), nil, nil, nil},
		{"required in the REST specification", workbook,
			props("properties", props("serializedData", "{}", "displayName", "w")),
			props("properties", props("displayName", "w")), nil, []string{"properties.serializedData"}, nil},
		{"not returned beside a returned change", workbook,
			props("properties", props("serializedData", "{}", "displayName", "w")),
			props("properties", props("displayName", "v")), []string{"properties.displayName"}, []string{"properties.serializedData"}, nil},
		{"a whole object Azure does not return", workbook,
			props("properties", props("displayName", "w")),
			props("location", "westus"), nil, []string{"properties"}, []string{"location"}},
		{"discriminator of create-only alternatives", mariadb,
			props("properties", props("createMode", "Default", "version", "10.3")),
			props("properties", props("version", "10.3")), nil, []string{"properties.createMode"}, nil},
		{"the alternative a selector does not pick", rule,
			props("properties", props("filterType", "SqlFilter", "correlationFilter", props("contentType", "text"),
				"sqlFilter", props("sqlExpression", "1=1"))),
			props("properties", props("filterType", "SqlFilter", "sqlFilter", props("sqlExpression", "1=1"))), nil, []string{"properties.correlationFilter"}, nil},
		{"credentials withheld whole", compute,
			props("properties", props("computeType", "VirtualMachine", "properties", props("administratorAccount",
				props("username", "admin", "password", "{PASSWORD}"), "sshPort", 22.0))),
			props("properties", props("computeType", "VirtualMachine", "properties", props("administratorAccount", nil, "sshPort", 22.0))),
			nil, []string{"properties.properties.administratorAccount"}, nil},
		{"credentials returned are compared, their secret never", compute,
			props("properties", props("properties", props("administratorAccount", props("username", "admin", "password", "{PASSWORD}")))),
			props("properties", props("properties", props("administratorAccount", props("username", "root")))),
			[]string{"properties.properties.administratorAccount.username"}, nil, nil},
		{"location and sku of a type that keeps none", compute,
			props("location", "westus3", "sku", props("name", "Standard_S1")),
			props("properties", props()), nil, []string{"location", "sku"}, nil},
		{"sku dimensions a SKU does not have", vault,
			props("sku", props("name", "Free", "capacity", 1.0)),
			props("sku", props("name", "Free")), nil, []string{"sku.capacity"}, nil},
		{"sku name is compared", vault,
			props("sku", props("name", "Free")),
			props("sku", props("name", "Basic")), []string{"sku.name"}, nil, nil},
		{"false and empty are absent", rule,
			props("properties", props("action", props("requiresPreprocessing", false, "sqlExpression", "x", "compatibilityLevel", ""))),
			props("properties", props("action", props("sqlExpression", "x"))), nil, nil, nil},
		{"a masked value is not returned", vault,
			props("properties", props("tenantId", "00000000-0000-0000-0000-000000000001")),
			props("properties", props("tenantId", "********")), nil, []string{"properties.tenantId"}, nil},
		{"a value known after apply is a change", vault,
			props("properties", props("tenantId", convert.Unknown{Reason: "x"})),
			props("properties", props()), []string{"properties.tenantId"}, nil, nil},
		{"a map key Azure lacks is added", pool,
			props("properties", props("nodeLabels", props("a", "1", "c", "3"))),
			props("properties", props("nodeLabels", props("a", "1"))), []string{"properties.nodeLabels.c"}, nil, nil},
		{"tags Azure lacks are added", rg,
			props("location", "westus", "tags", props("env", "prod")),
			props("location", "westus"), []string{"tags.env"}, nil, nil},
		{"a list item Azure lacks is added", vault,
			props("properties", props("accessPolicies", []any{props("objectId", "o1"), props("objectId", "o2")})),
			props("properties", props("accessPolicies", []any{props("objectId", "o1")})), []string{"properties.accessPolicies[1].objectId"}, nil, nil},
	})
	if got := For(vm).Diff(props("properties", props("osProfile", props("adminPassword", "{PASSWORD}"))), nil); len(got) != 1 || !got[0].Sensitive || got[0].After != nil {
		t.Errorf("a created secret: %+v, want one sensitive change without a value", got)
	}
	// What is listed as not returned never shows a secret.
	got := For(compute).Compare(
		props("properties", props("properties", props("administratorAccount", props("username", "admin", "password", "hunter2")))),
		props("properties", props("properties", props())))
	if len(got.Lacking) != 1 || strings.Contains(Format(got.Lacking[0].Value), "hunter2") {
		t.Errorf("credentials Azure lacks: %+v", got.Lacking)
	}
	masked := For(vault).Compare(props("properties", props("tenantId", "t")), props("properties", props("tenantId", "***")))
	if len(masked.NotReturned) != 1 || !masked.NotReturned[0].Sensitive || masked.NotReturned[0].Value != nil {
		t.Errorf("a masked value: %+v, want it sensitive and without a value", masked.NotReturned)
	}
}

// TestDiffAzureOnly: what Azure holds at paths a PUT can set that the body
// omits is listed with Azure's value (not a change): properties the body
// does not set, keys Azure adds to a map, named items Azure adds to a list.
// Read-only paths (not in the kind's spec, or flagged by the REST
// specification) and secrets never are. Tags stay removals, and so do the
// unnamed items of a list, which a PUT replaces.
func TestDiffAzureOnly(t *testing.T) {
	rg := kindOf(t, "resources.azure.com", "v1api20200601", "ResourceGroup")
	pool := kindOf(t, "containerservice.azure.com", "v1api20240901", "ManagedClustersAgentPool")
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	vnet := kindOf(t, "network.azure.com", "v1api20201101", "VirtualNetwork")
	storage := kindOf(t, "storage.azure.com", "v1api20230101", "StorageAccount")
	vm := kindOf(t, "compute.azure.com", "v1api20220301", "VirtualMachine")
	env := kindOf(t, "app.azure.com", "v1api20240301", "ManagedEnvironment")
	runDiffCases(t, []diffCase{
		{"a body without tags clears them", rg,
			props("location", "westus"),
			props("location", "westus", "tags", props("owner", "portal", "hidden-link:x", "y")), []string{"tags.owner"}, nil, nil},
		{"tags beyond the body's are removed", rg,
			props("location", "westus", "tags", props("env", "prod")),
			props("location", "westus", "tags", props("env", "prod", "Owner", "portal", "ENV2", "x")), []string{"tags.ENV2", "tags.Owner"}, nil, nil},
		{"tag keys in any case", rg,
			props("tags", props("Env", "prod")),
			props("tags", props("env", "prod")), nil, nil, nil},
		{"keys Azure adds to a map", pool,
			props("properties", props("nodeLabels", props("a", "1"))),
			props("properties", props("nodeLabels", props("a", "1", "b", "2"))), nil, nil, []string{"properties.nodeLabels.b"}},
		{"keys Azure holds beside an empty map", pool,
			props("properties", props("nodeLabels", props())),
			props("properties", props("nodeLabels", props("b", "2"))), nil, nil, []string{"properties.nodeLabels.b"}},
		{"properties the body omits", pool,
			props("properties", props("count", 3.0)),
			props("properties", props("count", 3.0, "nodeLabels", props("b", "2"), "osType", "Linux", "provisioningState", "Succeeded")),
			nil, nil, []string{"properties.nodeLabels", "properties.osType"}},
		{"the DNS servers set outside the manifests", vnet,
			props("location", "westus", "properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"}))),
			props("location", "westus", "id", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v", "etag", "W/1",
				"properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"}), "dhcpOptions", props("dnsServers", []any{"10.0.0.4"}),
					"resourceGuid", "g", "provisioningState", "Succeeded", "subnets", []any{props("name", "a", "id", "x")})),
			nil, nil, []string{"properties.dhcpOptions"}},
		{"read-only in the REST specification though the spec has it", storage,
			props("location", "westus", "sku", props("name", "Standard_LRS")),
			props("location", "westus", "sku", props("name", "Standard_LRS", "tier", "Standard")), nil, nil, nil},
		{"secrets never", vm,
			props("location", "westus", "properties", props("osProfile", props("adminUsername", "u"))),
			props("location", "westus", "properties", props("osProfile", props("adminUsername", "u", "adminPassword", "p"))), nil, nil, nil},
		{"keys of a fixed-schema object the body sets", vault,
			props("properties", props("sku", props("name", "standard"))),
			props("properties", props("sku", props("name", "standard", "family", "A"))), nil, nil, []string{"properties.sku.family"}},
		{"named items Azure adds to a list", env,
			props("properties", props("workloadProfiles", []any{props("name", "d8", "workloadProfileType", "D8")})),
			props("properties", props("workloadProfiles", []any{props("name", "d8", "workloadProfileType", "D8"), props("name", "gpu", "workloadProfileType", "NC24-A100")})),
			nil, nil, []string{"properties.workloadProfiles[name=gpu]"}},
		{"unnamed items beyond the body's are removed", vault,
			props("properties", props("accessPolicies", []any{props("objectId", "o1")})),
			props("properties", props("accessPolicies", []any{props("objectId", "o1"), props("objectId", "o2")})),
			[]string{"properties.accessPolicies[1]"}, nil, nil},
		{"scalar lists compare whole", pool,
			props("properties", props("availabilityZones", []any{"1"})),
			props("properties", props("availabilityZones", []any{"1", "2"})), []string{"properties.availabilityZones"}, nil, nil},
	})
	if got := For(rg).Diff(props("location", "westus"), nil); len(got) != 1 {
		t.Errorf("a create: %+v, want the location only", got)
	}
	dns := For(vnet).Compare(props("properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"}))),
		props("properties", props("addressSpace", props("addressPrefixes", []any{"10.0.0.0/16"}), "dhcpOptions", props("dnsServers", []any{"10.0.0.4"}))))
	if len(dns.AzureOnly) != 1 || !reflect.DeepEqual(dns.AzureOnly[0].Value, props("dnsServers", []any{"10.0.0.4"})) {
		t.Errorf("DNS servers: %+v", dns.AzureOnly)
	}
	// Azure's value is listed as a PUT could carry it: read-only parts left
	// out; a property the REST specification does not know is listed apart,
	// with the reason.
	got := For(pool).Compare(props("properties", props("count", 3.0)),
		props("properties", props("count", 3.0, "creationData", props("sourceResourceId", "/subscriptions/s/x", "computed", "y"),
			"currentOrchestratorVersion", "1.29.7", "nodeImageVersion", "AKSUbuntu")))
	if len(got.AzureOnly) != 1 || got.AzureOnly[0].Path != "properties.creationData" ||
		!reflect.DeepEqual(got.AzureOnly[0].Value, props("sourceResourceId", "/subscriptions/s/x")) {
		t.Errorf("azure only: %+v, want the creation data only", got.AzureOnly)
	}
	if want := []PathValue{{Path: "properties.creationData.computed", Value: "y", Reason: ReasonUnknownToAPI}}; !reflect.DeepEqual(got.Unexpressed, want) {
		t.Errorf("unexpressed: %+v, want %+v", got.Unexpressed, want)
	}
}

// TestDiffEquivalences: values ARM stores in another form are not changes,
// for any type; other differences of the same fields are.
func TestDiffEquivalences(t *testing.T) {
	k := kindOf(t, "operationalinsights.azure.com", "v1api20210601", "Workspace")
	d := For(k)
	tests := []struct {
		schema     string
		want, have any
		equal      bool
	}{
		{"properties.x", "true", "True", true},
		{"properties.x", true, "true", true},
		{"properties.x", "false", true, false},
		{"properties.x", 3.0, 3.0000000001, true},
		{"properties.x", 3.0, "3", true},
		{"properties.x", "30", 30.0, true},
		{"properties.x", 6.0, "6.0", true},
		{"properties.x", 3.0, "4", false},
		{"properties.x", 3.0, "three", false},
		{"properties.sku.name", "PerGB2018", 4.0, true}, // its index in the REST specification's values
		{"properties.sku.name", "PerGB2018", 3.0, false},
		{"properties.sku.name", "pergb2018", "PerGB2018", true},
		{"location", "West US 2", "westus2", true},
		{"properties.replicaLocations[]", "East US", "eastus", true},
		{"properties.locations[].locationName", "eastus", "East US", true},
		{"location", "westus", "westus2", false},
		{"properties.id", "/subscriptions/S/resourceGroups/RG/providers/A/b/c", "/subscriptions/s/resourcegroups/rg/providers/a/b/c", true},
		{"properties.scope", "/resourceGroups/rg/providers/A/b/c", "/subscriptions/s/resourceGroups/rg/providers/A/b/c", true},
		{"properties.scope", "resourceGroups/rg/providers/A/b/c", "/subscriptions/s/resourceGroups/rg/providers/A/b/c", true},
		{"properties.scope", "/resourceGroups/rg/providers/A/b/c", "/subscriptions/s/resourceGroups/other/providers/A/b/c", false},
		{"properties.url", "https://example.com/path", "https://example.com/path/", true},
		{"properties.url", "https://example.com/Path", "https://example.com/path", false},
		{"properties.path", "api/v1", "/api/v1", true},
		{"properties.path", "/api/v1", "api/v1", true},
		{"properties.path", "api/v1", "/api/v2", false},
		{"properties.path", "logs/", "logs", false},
		{"properties.path", "API", "/api", false},
		{"properties.version", "6.0", "6", true},
		{"properties.version", "1.20.0", "1.20", true},
		{"properties.version", "1.10", "1.1", false},
		{"properties.version", "6.0", "7", false},
		{"properties.start", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00.0000000Z", true},
		{"properties.start", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+00:00", true},
		{"properties.start", "2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00Z", true},
		{"properties.start", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00", true},
		{"properties.start", "2024-05-01T10:00:00Z", "2024-05-01T11:00:00Z", false},
		{"properties.retention", "PT1H", "01:00:00", true},
		{"properties.retention", "P1D", "1.00:00:00", true},
		{"properties.retention", "PT60M", "PT1H", true},
		{"properties.retention", "P1W", "P7D", true},
		{"properties.retention", "PT1H", "PT2H", false},
		{"properties.retention", "P1M", "P30D", false}, // a month has no fixed length
		{"properties.address", "10.0.0.1", "10.0.0.1/32", true},
		{"properties.address", "2001:DB8::1", "2001:db8:0:0:0:0:0:1", true},
		{"properties.address", "10.0.0.1", "10.0.0.2/32", false},
		{"properties.address", "10.0.0.0/24", "10.0.0.0/16", false},
		{"identity.type", "SystemAssigned, UserAssigned", "SystemAssigned,UserAssigned", true},
		{"properties.flags", "Read,Write", "write, read", true},
		{"properties.flags", "SystemAssigned", "SystemAssigned, UserAssigned", false},
		{"properties.servers", "10.0.0.1,10.0.0.2", "10.0.0.2,10.0.0.1", false}, // addresses keep their order
		{"properties.doc", `{"a": [1, 2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", true},
		{"properties.doc", `{"a": [1, 2]}`, `{"a":[2,1]}`, false},
		{"properties.doc", "<a><b x=\"1\">t</b></a>", "<a>\n  <b x=\"1\">t</b>\n</a>", true},
		{"properties.doc", "<a><b>t</b></a>", "<a><b>u</b></a>", false},
		{"properties.charset", "utf8", "UTF8", true},
		{"properties.text", "Hello world", "hello world", false},
		// The values of maps are the user's data, stored as sent.
		{"tags{}", "Prod", "prod", false},
		{"tags{}", "6.0", "6", false},
		{"tags{}", "api", "/api", false},
		{"tags{}", "a,b", "b,a", false},
		{"properties.guid", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "6f9619ff-8b86-d011-b42d-00c04fc964ff", true},
	}
	for _, tt := range tests {
		if got := d.equal(tt.schema, tt.want, tt.have); got != tt.equal {
			t.Errorf("equal(%s, %v, %v) = %v, want %v", tt.schema, tt.want, tt.have, got, tt.equal)
		}
	}
}

// TestDiffDroppedItems: list items that carry nothing (repeats, empty
// ones) and that Azure's list lacks are not returned; any other item Azure
// lacks is a change.
func TestDiffDroppedItems(t *testing.T) {
	vnet := kindOf(t, "network.azure.com", "v1api20201101", "VirtualNetwork")
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	prefixes := func(p ...any) map[string]any {
		return props("properties", props("addressSpace", props("addressPrefixes", p)))
	}
	policy := props("objectId", "o1", "tenantId", "t")
	runDiffCases(t, []diffCase{
		{"a repeated scalar", vnet, prefixes("10.0.0.0/16", "10.0.0.0/16", "10.1.0.0/16"), prefixes("10.0.0.0/16", "10.1.0.0/16"),
			nil, []string{"properties.addressSpace.addressPrefixes[1]"}, nil},
		{"an empty scalar", vnet, prefixes("10.0.0.0/16", ""), prefixes("10.0.0.0/16"),
			nil, []string{"properties.addressSpace.addressPrefixes[1]"}, nil},
		{"a repeated object", vault,
			props("properties", props("accessPolicies", []any{policy, policy})),
			props("properties", props("accessPolicies", []any{policy})), nil, []string{"properties.accessPolicies[1]"}, nil},
		{"an item added in the manifests", vnet, prefixes("10.0.0.0/16", "10.1.0.0/16", "10.2.0.0/16"), prefixes("10.0.0.0/16", "10.1.0.0/16"),
			[]string{"properties.addressSpace.addressPrefixes"}, nil, nil},
		{"a repeat beside a changed item", vnet, prefixes("10.0.0.0/16", "10.0.0.0/16"), prefixes("10.9.0.0/16"),
			[]string{"properties.addressSpace.addressPrefixes"}, nil, nil},
	})
}

// TestDiffRealChangesStillShow: no rule hides a value the user changed in
// the manifests that Azure holds: each is a change.
func TestDiffRealChangesStillShow(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	pool := kindOf(t, "containerservice.azure.com", "v1api20240901", "ManagedClustersAgentPool")
	rg := kindOf(t, "resources.azure.com", "v1api20200601", "ResourceGroup")
	env := kindOf(t, "app.azure.com", "v1api20240301", "ManagedEnvironment")
	runDiffCases(t, []diffCase{
		{"an enum value", vault, props("properties", props("sku", props("name", "premium"))), props("properties", props("sku", props("name", "standard"))),
			[]string{"properties.sku.name"}, nil, nil},
		{"a number", pool, props("properties", props("count", 4.0)), props("properties", props("count", "3")),
			[]string{"properties.count"}, nil, nil},
		{"a version", pool, props("properties", props("orchestratorVersion", "1.30")), props("properties", props("orchestratorVersion", "1.29")),
			[]string{"properties.orchestratorVersion"}, nil, nil},
		{"a map value", pool, props("properties", props("nodeLabels", props("a", "2"))), props("properties", props("nodeLabels", props("a", "1"))),
			[]string{"properties.nodeLabels.a"}, nil, nil},
		{"a tag value", rg, props("tags", props("env", "prod")), props("tags", props("env", "dev")),
			[]string{"tags.env"}, nil, nil},
		{"a named item's property", env,
			props("properties", props("workloadProfiles", []any{props("name", "d8", "workloadProfileType", "D8", "maximumCount", 5.0)})),
			props("properties", props("workloadProfiles", []any{props("name", "d8", "workloadProfileType", "D8", "maximumCount", 3.0)})),
			[]string{"properties.workloadProfiles[name=d8].maximumCount"}, nil, nil},
		{"a list emptied", pool, props("properties", props("availabilityZones", []any{})), props("properties", props("availabilityZones", []any{"1"})),
			[]string{"properties.availabilityZones"}, nil, nil},
		{"a flag set", pool, props("properties", props("enableAutoScaling", false)), props("properties", props("enableAutoScaling", true)),
			[]string{"properties.enableAutoScaling"}, nil, nil},
	})
}

// TestDiffUnknownWriteOnly: a write-only value known only at apply (a
// vault's createMode, default or recover) is no change to an existing resource.
func TestDiffUnknownWriteOnly(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	desired := props("properties", props("createMode", convert.Unknown{Reason: "default, or recover"}))
	if got := For(vault).Compare(desired, props("properties", props())); len(got.Changes) != 0 ||
		len(got.NotReturned) != 1 || got.NotReturned[0].Value != convert.UnknownText {
		t.Errorf("existing vault: %+v", got)
	}
	if got := For(vault).Diff(desired, nil); len(got) != 1 || !got[0].Unknown {
		t.Errorf("created vault: %+v", got)
	}
}

// TestDiffProviderBehaviour: what a resource provider documents about the
// values it stores (extensions.StoredValues) is no change, and only that.
func TestDiffProviderBehaviour(t *testing.T) {
	env := kindOf(t, "app.azure.com", "v1api20240301", "ManagedEnvironment")
	db := kindOf(t, "dbformysql.azure.com", "v1api20231230", "FlexibleServersDatabase")
	consumption := props("name", "Consumption", "workloadProfileType", "Consumption")
	gpu := props("name", "gpu", "workloadProfileType", "NC24-A100")
	d8 := props("name", "d8", "workloadProfileType", "D8", "minimumCount", 1.0, "maximumCount", 3.0)
	runDiffCases(t, []diffCase{
		{"the Consumption profile Container Apps adds and keeps", env,
			props("properties", props("workloadProfiles", []any{d8})),
			props("properties", props("workloadProfiles", []any{d8, consumption})), nil, nil, nil},
		{"a profile set outside the manifests is Azure's only", env,
			props("properties", props("workloadProfiles", []any{d8})),
			props("properties", props("workloadProfiles", []any{d8, consumption, gpu})), nil, nil, []string{"properties.workloadProfiles[name=gpu]"}},
		{"MySQL's utf8 alias", db,
			props("properties", props("charset", "utf8", "collation", "utf8_general_ci")),
			props("properties", props("charset", "utf8mb3", "collation", "utf8mb3_general_ci")), nil, nil, nil},
		{"another MySQL charset is a change", db,
			props("properties", props("charset", "utf8mb4")),
			props("properties", props("charset", "utf8mb3")), []string{"properties.charset"}, nil, nil},
	})
}
