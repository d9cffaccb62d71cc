package corpusgen

import (
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

func observedOf(t *testing.T, group, version, kind string) *registry.Observed {
	t.Helper()
	for _, k := range built(t).Kinds {
		if k.Group == group && k.Version == version && k.Kind == kind {
			if k.Observed == nil {
				return &registry.Observed{}
			}
			return k.Observed
		}
	}
	t.Fatalf("%s/%s %s not built", group, version, kind)
	return nil
}

func TestObservedFromRecordings(t *testing.T) {
	conn := observedOf(t, "machinelearningservices.azure.com", "v1api20240401", "WorkspacesConnection")
	if !slices.Contains(conn.WriteOnly, "properties.value") {
		t.Errorf("ML connection value not write-only: %+v", conn)
	}
	db := observedOf(t, "dbforpostgresql.azure.com", "v1api20221201", "FlexibleServersDatabase")
	if !slices.Contains(db.CaseFolded, "properties.charset") || slices.Contains(db.CaseFolded, "properties.collation") {
		t.Errorf("postgres database case folding: %+v", db)
	}
	env := observedOf(t, "app.azure.com", "v1api20240301", "ManagedEnvironment")
	if !slices.Contains(env.AddedItems, registry.AddedItem{Path: "properties.workloadProfiles", Name: "Consumption"}) {
		t.Errorf("managed environment added items: %+v", env)
	}
	// A registry's system-created account names are assigned by ARM in the
	// one recording that has them: not a rule.
	reg := observedOf(t, "machinelearningservices.azure.com", "v1api20240401", "Registry")
	for _, r := range reg.Rewrites {
		t.Errorf("rewrite learnt from a single recording: %+v", r)
	}
	// Values ARM returns as sent teach nothing.
	vnet := observedOf(t, "network.azure.com", "v1api20201101", "VirtualNetwork")
	if len(vnet.WriteOnly)+len(vnet.CaseFolded)+len(vnet.Rewrites)+len(vnet.AddedItems) != 0 {
		t.Errorf("virtual network: %+v", vnet)
	}
}
