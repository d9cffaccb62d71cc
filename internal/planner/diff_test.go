package planner

import (
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
}

func runDiffCases(t *testing.T, cases []diffCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := newDiffer(tt.kind).diff(tt.desired, tt.current)
			var paths []string
			for _, c := range got {
				paths = append(paths, c.Path)
			}
			if len(paths) != len(tt.want) {
				t.Fatalf("changes %+v, want paths %v", got, tt.want)
			}
			for i := range paths {
				if paths[i] != tt.want[i] {
					t.Fatalf("changes %+v, want paths %v", got, tt.want)
				}
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

// TestDiffWhatARMDoesNotReturn: a property ARM does not return is not a
// change when the current body lacks it, by the REST specification's facts
// and ARM's resource model; the same property is compared when returned.
func TestDiffWhatARMDoesNotReturn(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	vm := kindOf(t, "compute.azure.com", "v1api20220301", "VirtualMachine")
	workbook := kindOf(t, "insights.azure.com", "v1api20230601", "Workbook")
	mariadb := kindOf(t, "dbformariadb.azure.com", "v1api20180601", "Server")
	rule := kindOf(t, "servicebus.azure.com", "v1api20240101", "NamespacesTopicsSubscriptionsRule")
	compute := kindOf(t, "machinelearningservices.azure.com", "v1api20210701", "WorkspacesCompute")
	runDiffCases(t, []diffCase{
		{"write-only (REST flag)", vault,
			props("properties", props("createMode", "default", "enableRbacAuthorization", true)),
			props("properties", props("enableRbacAuthorization", true)), nil},
		{"write-only even when returned otherwise", vault,
			props("properties", props("createMode", "default")),
			props("properties", props("createMode", "recover")), nil},
		{"a returned property is compared", vault,
			props("properties", props("enableRbacAuthorization", true)),
			props("properties", props("enableRbacAuthorization", false)), []string{"properties.enableRbacAuthorization"}},
		{"secret (CRD secret reference), as a recorded plain string", vm,
			props("properties", props("osProfile", props("adminPassword", "{PASSWORD}", "adminUsername", "adminUser"))),
			props("properties", props("osProfile", props("adminUsername", "adminUser"))), nil},
		{"required in the REST specification, so never unset: not returned", workbook,
			props("properties", props("serializedData", "{}", "displayName", "w")),
			props("properties", props("displayName", "w")), nil},
		{"required but returned with another value", workbook,
			props("properties", props("serializedData", "{}", "displayName", "w")),
			props("properties", props("displayName", "v")), []string{"properties.displayName"}},
		{"required inside an object Azure does not have: added", workbook,
			props("properties", props("displayName", "w")),
			props("location", "westus"), []string{"properties.displayName"}},
		{"discriminator of create-only alternatives", mariadb,
			props("properties", props("createMode", "Default", "version", "10.3")),
			props("properties", props("version", "10.3")), nil},
		{"the alternative a selector does not pick", rule,
			props("properties", props("filterType", "SqlFilter", "correlationFilter", props("contentType", "text"),
				"sqlFilter", props("sqlExpression", "1=1"))),
			props("properties", props("filterType", "SqlFilter", "sqlFilter", props("sqlExpression", "1=1"))), nil},
		{"the alternative a selector picks", rule,
			props("properties", props("filterType", "CorrelationFilter", "correlationFilter", props("contentType", "text"))),
			props("properties", props("filterType", "CorrelationFilter")), []string{"properties.correlationFilter.contentType"}},
		{"credentials withheld whole", compute,
			props("properties", props("computeType", "VirtualMachine", "properties", props("administratorAccount",
				props("username", "admin", "password", "{PASSWORD}"), "sshPort", 22.0))),
			props("properties", props("computeType", "VirtualMachine", "properties", props("administratorAccount", nil, "sshPort", 22.0))), nil},
		{"credentials returned are compared, their secret never", compute,
			props("properties", props("properties", props("administratorAccount", props("username", "admin", "password", "{PASSWORD}")))),
			props("properties", props("properties", props("administratorAccount", props("username", "root")))),
			[]string{"properties.properties.administratorAccount.username"}},
		{"location and sku of a type that keeps none", compute,
			props("location", "westus3", "sku", props("name", "Standard_S1")),
			props("properties", props()), nil},
		{"sku dimensions a SKU does not have", vault,
			props("sku", props("name", "Free", "capacity", 1.0)),
			props("sku", props("name", "Free")), nil},
		{"sku name is compared", vault,
			props("sku", props("name", "Free")),
			props("sku", props("name", "Basic")), []string{"sku.name"}},
		{"false is absent", rule,
			props("properties", props("action", props("requiresPreprocessing", false, "sqlExpression", "x"))),
			props("properties", props("action", props("sqlExpression", "x"))), nil},
		{"true is not absent", rule,
			props("properties", props("action", props("requiresPreprocessing", true, "sqlExpression", "x"))),
			props("properties", props("action", props("sqlExpression", "x"))), []string{"properties.action.requiresPreprocessing"}},
	})
	if got := newDiffer(vm).diff(props("properties", props("osProfile", props("adminPassword", "{PASSWORD}"))), nil); len(got) != 1 || !got[0].Sensitive || got[0].After != nil {
		t.Errorf("a created secret: %+v, want one sensitive change without a value", got)
	}
}

// TestDiffEquivalences: values ARM stores in another form are not changes,
// for any type; other differences of the same fields are.
func TestDiffEquivalences(t *testing.T) {
	k := kindOf(t, "operationalinsights.azure.com", "v1api20210601", "Workspace")
	d := newDiffer(k)
	tests := []struct {
		schema     string
		want, have any
		equal      bool
	}{
		{"properties.x", "true", "True", true},
		{"properties.x", true, "true", true},
		{"properties.x", "false", true, false},
		{"properties.x", 3.0, 3.0000000001, true},
		{"properties.sku.name", "PerGB2018", 4.0, true}, // its index in the REST specification's values
		{"properties.sku.name", "PerGB2018", 3.0, false},
		{"properties.sku.name", "pergb2018", "PerGB2018", true},
		{"location", "West US 2", "westus2", true},
		{"properties.replicaLocations[]", "East US", "eastus", true},
		{"properties.locations[].locationName", "eastus", "East US", true},
		{"location", "westus", "westus2", false},
		{"properties.id", "/subscriptions/S/resourceGroups/RG/providers/A/b/c", "/subscriptions/s/resourcegroups/rg/providers/a/b/c", true},
		{"properties.scope", "/resourceGroups/rg/providers/A/b/c", "/subscriptions/s/resourceGroups/rg/providers/A/b/c", true},
		{"properties.scope", "/resourceGroups/rg/providers/A/b/c", "/subscriptions/s/resourceGroups/other/providers/A/b/c", false},
		{"properties.url", "https://example.com/path", "https://example.com/path/", true},
		{"properties.url", "https://example.com/Path", "https://example.com/path", false},
		{"properties.doc", `{"a": [1, 2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", true},
		{"properties.doc", `{"a": [1, 2]}`, `{"a":[2,1]}`, false},
		{"properties.doc", "<a><b x=\"1\">t</b></a>", "<a>\n  <b x=\"1\">t</b>\n</a>", true},
		{"properties.doc", "<a><b>t</b></a>", "<a><b>u</b></a>", false},
		{"properties.charset", "utf8", "UTF8", true},
		{"properties.text", "Hello world", "hello world", false},
		{"tags{}", "Prod", "prod", false},
		{"properties.guid", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "6f9619ff-8b86-d011-b42d-00c04fc964ff", true},
	}
	for _, tt := range tests {
		if got := d.equal(tt.schema, tt.want, tt.have); got != tt.equal {
			t.Errorf("equal(%s, %v, %v) = %v, want %v", tt.schema, tt.want, tt.have, got, tt.equal)
		}
	}
}

// TestDiffRemovals: a PUT replaces tags and the keys of maps whole, and the
// items of lists; what Azure has beyond the body there is a removal. What
// the body omits entirely, and the extra keys of fixed-schema objects, are
// not claimed.
func TestDiffRemovals(t *testing.T) {
	rg := kindOf(t, "resources.azure.com", "v1api20200601", "ResourceGroup")
	pool := kindOf(t, "containerservice.azure.com", "v1api20240901", "ManagedClustersAgentPool")
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	runDiffCases(t, []diffCase{
		{"a body without tags clears them", rg,
			props("location", "westus"),
			props("location", "westus", "tags", props("owner", "portal", "hidden-link:x", "y")), []string{"tags.owner"}},
		{"tags beyond the body's", rg,
			props("location", "westus", "tags", props("env", "prod")),
			props("location", "westus", "tags", props("env", "prod", "Owner", "portal", "ENV2", "x")), []string{"tags.ENV2", "tags.Owner"}},
		{"tag keys in any case", rg,
			props("tags", props("Env", "prod")),
			props("tags", props("env", "prod")), nil},
		{"keys of a map property", pool,
			props("properties", props("nodeLabels", props("a", "1"))),
			props("properties", props("nodeLabels", props("a", "1", "b", "2"))), []string{"properties.nodeLabels.b"}},
		{"an empty map clears it", pool,
			props("properties", props("nodeLabels", props())),
			props("properties", props("nodeLabels", props("b", "2"))), []string{"properties.nodeLabels.b"}},
		{"a property the body omits is not claimed", pool,
			props("properties", props("count", 3.0)),
			props("properties", props("count", 3.0, "nodeLabels", props("b", "2"), "osType", "Linux")), nil},
		{"extra keys of a fixed-schema object are not claimed", vault,
			props("properties", props("sku", props("name", "standard"))),
			props("properties", props("sku", props("name", "standard", "family", "A"))), nil},
		{"list items beyond the body's", vault,
			props("properties", props("accessPolicies", []any{props("objectId", "o1")})),
			props("properties", props("accessPolicies", []any{props("objectId", "o1"), props("objectId", "o2")})),
			[]string{"properties.accessPolicies[1]"}},
		{"scalar lists compare whole", pool,
			props("properties", props("availabilityZones", []any{"1"})),
			props("properties", props("availabilityZones", []any{"1", "2"})), []string{"properties.availabilityZones"}},
	})
	if got := newDiffer(rg).diff(props("location", "westus"), nil); len(got) != 1 {
		t.Errorf("a create: %+v, want the location only", got)
	}
}

// TestDiffUnknownWriteOnly: a write-only value known only at apply (a
// vault's createMode, default or recover) is no change to an existing resource.
func TestDiffUnknownWriteOnly(t *testing.T) {
	vault := kindOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	desired := props("properties", props("createMode", convert.Unknown{Reason: "default, or recover"}))
	if got := newDiffer(vault).diff(desired, props("properties", props())); len(got) != 0 {
		t.Errorf("existing vault: %+v", got)
	}
	if got := newDiffer(vault).diff(desired, nil); len(got) != 1 || !got[0].Unknown {
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
		{"the Consumption profile Container Apps adds", env,
			props("properties", props("workloadProfiles", []any{d8})),
			props("properties", props("workloadProfiles", []any{d8, consumption})), nil},
		{"a profile set outside the manifests is removed", env,
			props("properties", props("workloadProfiles", []any{d8})),
			props("properties", props("workloadProfiles", []any{d8, consumption, gpu})), []string{"properties.workloadProfiles[name=gpu]"}},
		{"MySQL's utf8 alias", db,
			props("properties", props("charset", "utf8", "collation", "utf8_general_ci")),
			props("properties", props("charset", "utf8mb3", "collation", "utf8mb3_general_ci")), nil},
		{"another MySQL charset is a change", db,
			props("properties", props("charset", "utf8mb4")),
			props("properties", props("charset", "utf8mb3")), []string{"properties.charset"}},
	})
}
