package extensions

import "testing"

// Each provider behaviour holds for the values it documents and no others:
// a rule that swallowed real changes would hide them from plans.
func TestStoredValues(t *testing.T) {
	consumption := map[string]any{"name": "Consumption", "workloadProfileType": "Consumption"}
	dedicated := map[string]any{"name": "gpu", "workloadProfileType": "NC24-A100"}
	for _, c := range []struct {
		armType, path string
		want, have    any
		equivalent    bool
	}{
		{"Microsoft.DBforMySQL/flexibleServers/databases", "properties.charset", "utf8", "utf8mb3", true},
		{"Microsoft.DBforMySQL/flexibleServers/databases", "properties.collation", "utf8_unicode_ci", "utf8mb3_unicode_ci", true},
		{"Microsoft.DBforMySQL/flexibleServers/databases", "properties.charset", "utf8mb4", "utf8mb3", false},
		{"Microsoft.DBforMySQL/flexibleServers/databases", "properties.collation", "utf8mb4_bin", "utf8mb3_bin", false},
		{"Microsoft.OperationalInsights/workspaces", "properties.sku.name", "Standalone", "PerGB2018", true},
		{"Microsoft.OperationalInsights/workspaces", "properties.sku.name", "CapacityReservation", "PerGB2018", false},
		{"Microsoft.MachineLearningServices/workspaces", "sku.name", "Standard_S1", "Basic", true},
		{"Microsoft.MachineLearningServices/workspaces", "sku.name", "Basic", "Enterprise", false},
		{"Microsoft.MachineLearningServices/workspaces", "properties.allowPublicAccessWhenBehindVnet", false, true, true},
		{"Microsoft.MachineLearningServices/workspaces", "properties.friendlyName", "a", "b", false},
		{"Microsoft.MachineLearningServices/registries", "properties.regionDetails[].acrDetails[].systemCreatedAcrAccount.acrAccountName", "mine", "f5a87f41da8", true},
		{"Microsoft.MachineLearningServices/registries", "properties.regionDetails[].location", "westus", "eastus", false},
	} {
		s := StoredValuesFor(c.armType)
		if s == nil {
			t.Fatalf("%s has no stored-values rules", c.armType)
		}
		if got := s.Equivalent(c.path, c.want, c.have); got != c.equivalent {
			t.Errorf("%s %s: %v stored as %v: equivalent %v, want %v", c.armType, c.path, c.want, c.have, got, c.equivalent)
		}
	}
	env := StoredValuesFor("Microsoft.App/managedEnvironments")
	if !env.AddedByProvider("properties.workloadProfiles", consumption) || env.AddedByProvider("properties.workloadProfiles", dedicated) {
		t.Error("only the Consumption profile is the provider's own")
	}
	if StoredValuesFor("Microsoft.Network/virtualNetworks") != nil {
		t.Error("a provider that stores what it is sent has rules")
	}
}
