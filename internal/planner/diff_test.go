package planner

import (
	"testing"

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

// TestObservedARMBehaviour: what the recordings show ARM does with a value
// is not a change, and only that: the same difference elsewhere still is.
func TestObservedARMBehaviour(t *testing.T) {
	tests := []struct {
		name                  string
		kind                  *registry.Kind
		desired, current      map[string]any
		wantChanges           int
		wantChangesWhenOthers int
		others                map[string]any
	}{
		{
			name:    "write-only child location",
			kind:    kindOf(t, "notificationhubs.azure.com", "v1api20230901", "NamespacesAuthorizationRule"),
			desired: map[string]any{"location": "westus2", "properties": map[string]any{"rights": []any{"Listen"}}},
			current: map[string]any{"properties": map[string]any{"rights": []any{"Listen"}}},
			// A property ARM returns is still compared.
			others: map[string]any{"properties": map[string]any{"rights": []any{"Send"}}}, wantChangesWhenOthers: 1,
		},
		{
			name:    "case ARM folds",
			kind:    kindOf(t, "dbforpostgresql.azure.com", "v1api20221201", "FlexibleServersDatabase"),
			desired: map[string]any{"properties": map[string]any{"charset": "utf8", "collation": "en_US.utf8"}},
			current: map[string]any{"properties": map[string]any{"charset": "UTF8", "collation": "en_US.utf8"}},
			// Collation case is kept by ARM: a case change there is a change.
			others: map[string]any{"properties": map[string]any{"charset": "UTF8", "collation": "EN_US.UTF8"}}, wantChangesWhenOthers: 1,
		},
		{
			name:    "value ARM rewrites",
			kind:    kindOf(t, "dbformysql.azure.com", "v1api20231230", "FlexibleServersDatabase"),
			desired: map[string]any{"properties": map[string]any{"charset": "utf8"}},
			current: map[string]any{"properties": map[string]any{"charset": "utf8mb3"}},
			others:  map[string]any{"properties": map[string]any{"charset": "latin1"}}, wantChangesWhenOthers: 1,
		},
		{
			name: "item ARM adds",
			kind: kindOf(t, "app.azure.com", "v1api20240301", "ManagedEnvironment"),
			desired: map[string]any{"properties": map[string]any{"workloadProfiles": []any{
				map[string]any{"name": "d4", "workloadProfileType": "D4"}}}},
			current: map[string]any{"properties": map[string]any{"workloadProfiles": []any{
				map[string]any{"name": "Consumption", "workloadProfileType": "Consumption"},
				map[string]any{"name": "d4", "workloadProfileType": "D4"}}}},
			others: map[string]any{"properties": map[string]any{"workloadProfiles": []any{
				map[string]any{"name": "d8", "workloadProfileType": "D8"},
				map[string]any{"name": "d4", "workloadProfileType": "D4"}}}}, wantChangesWhenOthers: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDiffer(tt.kind)
			if got := d.diff(tt.desired, tt.current); len(got) != tt.wantChanges {
				t.Errorf("against what ARM returns: %d changes, want %d: %+v", len(got), tt.wantChanges, got)
			}
			if got := d.diff(tt.desired, tt.others); len(got) != tt.wantChangesWhenOthers {
				t.Errorf("against another state: %d changes, want %d: %+v", len(got), tt.wantChangesWhenOthers, got)
			}
			if got := d.diff(tt.desired, nil); len(got) == 0 {
				t.Error("a create shows nothing")
			}
		})
	}
}
