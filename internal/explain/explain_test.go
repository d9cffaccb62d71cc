package explain

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

func TestExplainResolvesKindsAndFields(t *testing.T) {
	reg := registry.Default()
	for _, c := range []struct {
		query, version string
		group, kind    string
		path, armPath  string
	}{
		{"VirtualNetwork", "", "network.azure.com", "VirtualNetwork", "spec", ""},
		{"virtualnetwork.addressSpace", "", "network.azure.com", "VirtualNetwork", "spec.addressSpace", "properties.addressSpace"},
		{"VirtualNetwork.network.azure.com.spec.addressSpace.addressPrefixes", "", "network.azure.com", "VirtualNetwork", "spec.addressSpace.addressPrefixes", "properties.addressSpace.addressPrefixes"},
		{"dbforpostgresql.azure.com/FlexibleServer.administratorLoginPassword", "", "dbforpostgresql.azure.com", "FlexibleServer", "spec.administratorLoginPassword", "properties.administratorLoginPassword"},
		// Through list items, and a reference's ARM path is the ID it resolves to.
		{"VirtualNetworksSubnet.delegations.serviceName", "v1api20201101", "network.azure.com", "VirtualNetworksSubnet", "spec.delegations.serviceName", "properties.delegations[].properties.serviceName"},
		{"VirtualNetworksSubnet.networkSecurityGroup.reference", "v1api20201101", "network.azure.com", "VirtualNetworksSubnet", "spec.networkSecurityGroup.reference", "properties.networkSecurityGroup.id"},
		{"UserAssignedIdentity.status.principalId", "", "managedidentity.azure.com", "UserAssignedIdentity", "status.principalId", "properties.principalId"},
		// Fields that never reach ARM have no ARM path.
		{"ResourceGroup.spec.azureName", "", "resources.azure.com", "ResourceGroup", "spec.azureName", ""},
	} {
		e, err := Explain(reg, c.query, c.version, false)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if e.Kind.Group != c.group || e.Kind.Kind != c.kind || e.Field.Path != c.path || e.Field.ARMPath != c.armPath {
			t.Errorf("%s: %s/%s %s at %q, want %s/%s %s at %q", c.query, e.Kind.Group, e.Kind.Kind, e.Field.Path, e.Field.ARMPath, c.group, c.kind, c.path, c.armPath)
		}
	}
}

func TestExplainFacts(t *testing.T) {
	reg := registry.Default()
	e, err := Explain(reg, "dbforpostgresql.azure.com/FlexibleServer.administratorLoginPassword", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Field.Sensitive || e.Field.Reference != "secret" {
		t.Errorf("administratorLoginPassword: %+v, want a sensitive secret reference", e.Field)
	}
	e, err = Explain(reg, "NetworkSecurityGroupsSecurityRule.spec", "v1api20201101", false)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Field{}
	for _, f := range e.Field.Fields {
		byName[f.Path] = f
	}
	if f := byName["spec.owner"]; !f.Required || f.Reference != "owner" {
		t.Errorf("owner: %+v", f)
	}
	if f := byName["spec.direction"]; strings.Join(f.Enum, ",") != "Inbound,Outbound" || f.ARMPath != "properties.direction" {
		t.Errorf("direction: %+v", f)
	}
	if e.Kind.Version != "v1api20201101" || e.Kind.APIVersion != "2020-11-01" || strings.Join(e.Kind.Owners, ",") != "NetworkSecurityGroup" {
		t.Errorf("kind: %+v", e.Kind)
	}
}

func TestExplainErrors(t *testing.T) {
	reg := registry.Default()
	for query, want := range map[string]string{
		"VirtualNetwrok":              `unknown kind "VirtualNetwrok"; did you mean VirtualNetwork?`,
		"FlexibleServer":              "FlexibleServer is a kind of several groups: name one (dbformysql.azure.com/FlexibleServer, dbforpostgresql.azure.com/FlexibleServer)",
		"VirtualNetwork.adressSpace":  `field "adressSpace" does not exist in spec; did you mean "addressSpace"?`,
		"VirtualNetwork.spec.nothing": `field "nothing" does not exist in spec`,
		"Nothing":                     `unknown kind "Nothing" (azk api-resources lists them)`,
	} {
		_, err := Explain(reg, query, "", false)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", query, err, want)
		}
	}
	if _, err := Explain(reg, "VirtualNetwork", "v1api20201201", false); err == nil || !strings.Contains(err.Error(), "(nearest: v1api20201101)") {
		t.Errorf("unserved version: %v", err)
	}
}

func TestKindsAtTheirNewestVersion(t *testing.T) {
	kinds := Kinds(registry.Default(), "network.azure.com")
	for _, k := range kinds {
		if k.Group != "network.azure.com" || k.Version != registry.Newest(k.Versions) {
			t.Errorf("%+v", k)
		}
		if k.Kind == "VirtualNetwork" && k.Version != "v20250301" {
			t.Errorf("VirtualNetwork at %s, want the newest by date v20250301", k.Version)
		}
	}
	if len(kinds) < 20 {
		t.Errorf("%d network kinds", len(kinds))
	}
}
