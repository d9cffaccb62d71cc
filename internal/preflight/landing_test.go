package preflight

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// TestLandingScope: a write lands on the resource when it exists, else on
// the nearest container that exists (one the plan does not create).
func TestLandingScope(t *testing.T) {
	const (
		sub     = "/subscriptions/00000000-0000-0000-0000-000000000001"
		rg      = sub + "/resourceGroups/rg"
		account = rg + "/providers/Microsoft.Storage/storageAccounts/st"
		blob    = account + "/blobServices/default"
		assign  = account + "/providers/Microsoft.Authorization/roleAssignments/a1"
	)
	cases := []struct {
		id      string
		action  planner.Action
		created []string
		want    string
	}{
		{account, planner.ActionUpdate, nil, account},
		{account, planner.ActionDelete, nil, account},
		{account, planner.ActionCreate, nil, rg},
		{account, planner.ActionCreate, []string{rg}, sub},
		{blob, planner.ActionCreate, nil, account},
		{blob, planner.ActionCreate, []string{account}, rg},
		{assign, planner.ActionCreate, nil, account},
		{assign, planner.ActionCreate, []string{account, rg}, sub},
		{rg, planner.ActionCreate, nil, sub},
	}
	for _, c := range cases {
		created := map[string]bool{}
		for _, id := range c.created {
			created[strings.ToLower(id)] = true // as createdIDs keys them
		}
		res := &planner.Resource{ARMID: c.id, Action: c.action}
		if got := landingScope(res, created); got != c.want {
			t.Errorf("%s %s (created %v): %s, want %s", c.action, c.id, c.created, got, c.want)
		}
	}
}

func TestIsGUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0a0a0a0a-0000-4000-8000-00000000000a":   true,
		"0A0A0A0A-0000-4000-8000-00000000000A":   true,
		"not-a-guid":                             false,
		"0a0a0a0a00004000800000000000000a":       false, // uuid.Parse takes it; --as wants the hyphens
		"{0a0a0a0a-0000-4000-8000-00000000000a}": false,
		"":                                       false,
	} {
		if IsGUID(s) != want {
			t.Errorf("IsGUID(%q) = %v, want %v", s, !want, want)
		}
	}
}

// TestCollectReferences: the ARM IDs and tenant IDs a body writes, by path;
// other strings (names, a tenantId that is not a GUID) are not references.
func TestCollectReferences(t *testing.T) {
	body := map[string]any{
		"location": "westus2",
		"properties": map[string]any{
			"tenantId": "72f988bf-0000-4000-8000-000000000000",
			"subnet":   map[string]any{"id": "/subscriptions/s2/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/a"},
			"rules":    []any{map[string]any{"sourceResourceId": "/SUBSCRIPTIONS/s3/resourceGroups/x"}, map[string]any{"name": "r"}},
			"identity": map[string]any{"tenantId": "contoso.onmicrosoft.com"},
		},
	}
	refs := map[string]string{}
	collectReferences(body, "", refs)
	want := map[string]string{
		"properties.tenantId":                  "72f988bf-0000-4000-8000-000000000000",
		"properties.subnet.id":                 "/subscriptions/s2/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/v/subnets/a",
		"properties.rules[0].sourceResourceId": "/SUBSCRIPTIONS/s3/resourceGroups/x",
	}
	if len(refs) != len(want) {
		t.Errorf("references %v, want %v", refs, want)
	}
	for k, v := range want {
		if refs[k] != v {
			t.Errorf("%s = %q, want %q", k, refs[k], v)
		}
	}
}
