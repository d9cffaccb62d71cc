package preflight

import (
	"testing"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/planner"
)

func TestPermissionPatterns(t *testing.T) {
	contributor := permission{Actions: []string{"*"}, NotActions: []string{"Microsoft.Authorization/*/Write", "Microsoft.Authorization/*/Delete"}}
	for action, want := range map[string]bool{
		"Microsoft.Storage/storageAccounts/write":           true,
		"Microsoft.Authorization/roleAssignments/write":     false,
		"microsoft.authorization/roleassignments/delete":    false,
		"Microsoft.Authorization/roleAssignments/read":      true,
		"Microsoft.Storage/storageAccounts/listKeys/action": true,
	} {
		if got := contributor.allows(action); got != want {
			t.Errorf("Contributor %s: %v, want %v", action, got, want)
		}
	}
	dataOnly := permission{Actions: []string{}, NotActions: []string{}}
	if dataOnly.allows("Microsoft.Storage/storageAccounts/blobServices/containers/write") {
		t.Error("a role with data actions only grants a control-plane write")
	}
	reader := permission{Actions: []string{"*/read"}}
	if reader.allows("Microsoft.Network/virtualNetworks/write") || !reader.allows("Microsoft.Network/virtualNetworks/read") {
		t.Error("Reader")
	}
}

func TestAttributeValidationErrors(t *testing.T) {
	a := &planner.Resource{Address: "a", ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/one"}
	b := &planner.Resource{Address: "b", ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/two"}
	rs := []*planner.Resource{a, b}
	if got := attribute(rs, b.ARMID, ""); got != b {
		t.Errorf("by target ID: %v", got)
	}
	if got := attribute(rs, "two", ""); got != b {
		t.Errorf("by target name: %v", got)
	}
	if got := attribute(rs, "", "Resource 'one' was disallowed by policy."); got != a {
		t.Errorf("by quoted name: %v", got)
	}
	if got := attribute(rs, "", "something about 'one' and 'two'"); got != nil {
		t.Errorf("two names quoted: %v, want none", got)
	}
}

func TestUpdateCountsOnlyWhatItAdds(t *testing.T) {
	res := &planner.Resource{
		Action:  planner.ActionUpdate,
		Desired: map[string]any{"properties": map[string]any{"agentPoolProfiles": []any{map[string]any{"name": "p", "vmSize": "Standard_D2s_v3", "count": 5.0}}}},
		Changes: []planner.Change{{Path: "properties.agentPoolProfiles[0].count", Before: 3.0, After: 5.0}},
	}
	pool, _ := extensions.VMPoolOf("Microsoft.ContainerService/managedClusters")
	after, before := pool.Machines(bodyValue(res)), pool.Machines(previous(res))
	if after["Standard_D2s_v3"] != 5 || before["Standard_D2s_v3"] != 3 {
		t.Fatalf("after %v, before %v", after, before)
	}
}
