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
