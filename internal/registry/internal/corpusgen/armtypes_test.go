package corpusgen

import (
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

func bodyOf(t *testing.T, group, version, kind string) *registry.BodyFacts {
	t.Helper()
	for _, k := range built(t).Kinds {
		if k.Group == group && k.Version == version && k.Kind == kind {
			if k.Body == nil {
				t.Fatalf("%s/%s %s has no body facts", group, version, kind)
			}
			return k.Body
		}
	}
	t.Fatalf("%s/%s %s not built", group, version, kind)
	return nil
}

func enumOf(b *registry.BodyFacts, path string) []string {
	for _, e := range b.Enums {
		if e.Path == path {
			return e.Values
		}
	}
	return nil
}

// TestBodyFactsFromRESTSpecifications: the facts of each kind are those of
// the REST specification of its ARM type and api-version, at ARM body paths.
func TestBodyFactsFromRESTSpecifications(t *testing.T) {
	vm := bodyOf(t, "compute.azure.com", "v1api20220301", "VirtualMachine")
	if !slices.Contains(vm.Sensitive, "properties.osProfile.adminPassword") {
		t.Errorf("VM admin password not sensitive: %v", vm.Sensitive)
	}
	if !slices.Contains(vm.Maps, "tags") || !slices.Contains(vm.Maps, "identity.userAssignedIdentities") {
		t.Errorf("VM maps: %v", vm.Maps)
	}
	vault := bodyOf(t, "keyvault.azure.com", "v1api20230701", "Vault")
	if !slices.Contains(vault.WriteOnly, "properties.createMode") {
		t.Errorf("vault createMode not write-only: %v", vault.WriteOnly)
	}
	if slices.Contains(vault.WriteOnly, "properties.tenantId") || !slices.Contains(vault.Required, "properties.tenantId") {
		t.Errorf("vault tenantId: write-only %v, required %v", vault.WriteOnly, vault.Required)
	}
	// Below a read-only property nothing is listed: it is never sent.
	for _, p := range append(vault.Required, vault.WriteOnly...) {
		if p == "properties.provisioningState" || p == "properties.vaultUri" {
			t.Errorf("read-only %s listed", p)
		}
	}
	// Read-only properties are listed where the kind's spec has a field for
	// them, and only there.
	if storage := bodyOf(t, "storage.azure.com", "v1api20230101", "StorageAccount"); !slices.Contains(storage.ReadOnly, "sku.tier") || slices.Contains(storage.ReadOnly, "properties.provisioningState") {
		t.Errorf("storage account read-only paths: %v", storage.ReadOnly)
	}
	if len(vault.ReadOnly) != 0 {
		t.Errorf("vault read-only paths its spec lacks: %v", vault.ReadOnly)
	}
	// A discriminator whose alternatives are all create-only is write-only.
	if mariadb := bodyOf(t, "dbformariadb.azure.com", "v1api20180601", "Server"); !slices.Contains(mariadb.WriteOnly, "properties.createMode") {
		t.Errorf("mariadb createMode not write-only: %v", mariadb.WriteOnly)
	}
	// The discriminator of alternatives that GET returns is not.
	if compute := bodyOf(t, "machinelearningservices.azure.com", "v1api20210701", "WorkspacesCompute"); slices.Contains(compute.WriteOnly, "properties.computeType") {
		t.Error("ML compute computeType is write-only")
	}
	rule := bodyOf(t, "servicebus.azure.com", "v1api20240101", "NamespacesTopicsSubscriptionsRule")
	want := registry.Selector{Path: "properties.filterType", Alternatives: []string{"correlationFilter", "sqlFilter"}}
	if !slices.ContainsFunc(rule.Selectors, func(s registry.Selector) bool {
		return s.Path == want.Path && slices.Equal(s.Alternatives, want.Alternatives)
	}) {
		t.Errorf("service bus rule selectors: %+v", rule.Selectors)
	}
	// Enum values keep the specification's order: ARM may return an index.
	ws := bodyOf(t, "operationalinsights.azure.com", "v1api20210601", "Workspace")
	if got := enumOf(ws, "properties.sku.name"); len(got) < 5 || got[4] != "PerGB2018" {
		t.Errorf("workspace sku names: %v", got)
	}
}
