package preflight

import "testing"

// TestRoleScopeComparesWholeSegments: with --as, a role assigned at
// resource group app is evaluated by covers; it must not reach app2, whose
// ID merely starts with the same characters.
func TestRoleScopeComparesWholeSegments(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000000"
	app := sub + "/resourceGroups/app"
	for _, c := range []struct {
		scope, id string
		want      bool
	}{
		{app, sub + "/resourceGroups/app2/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", false},
		{app, sub + "/resourceGroups/app2", false},
		{app + "/", sub + "/resourceGroups/app2/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", false},
		{app, sub + "/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", true},
		{app, sub + "/resourceGroups/APP/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", true},
		{app, app, true},
		{sub, app + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", true},
		{sub + "/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/i", app, false}, // below is not above
	} {
		if got := covers(c.scope, c.id); got != c.want {
			t.Errorf("covers(%s, %s) = %v, want %v", c.scope, c.id, got, c.want)
		}
	}
}
