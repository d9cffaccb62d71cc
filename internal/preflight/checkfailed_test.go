package preflight

import (
	"errors"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// A check with a failed request keeps only its first CheckFailed, as an
// error counting the others; a check without one keeps what it found.
func TestSettleLeavesOneCheckFailed(t *testing.T) {
	res := &planner.Resource{Address: "storage.azure.com/StorageAccount/default/a", ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/a"}
	missing := finding(res, "permissions", "PermissionMissing", planner.SeverityError, "the caller cannot write")
	failedOnce := checkFailed(res, "permissions", errors.New("GET /subscriptions/s/providers/Microsoft.Authorization/permissions: 500 InternalServerError"))
	warned := finding(nil, "validate", "CheckFailed", planner.SeverityWarning, "could not validate")

	got := settle([]planner.Finding{missing, failedOnce, warned, failedOnce})
	if len(got) != 1 || got[0].Code != "CheckFailed" || got[0].Severity != planner.SeverityError || got[0].Address != "" {
		t.Fatalf("settled %+v, want one CheckFailed error with no address", got)
	}
	for _, want := range []string{"permissions check could not run", "GET /subscriptions/s/providers/Microsoft.Authorization/permissions: 500 InternalServerError", "asking for " + res.Address, "2 more of its requests failed"} {
		if !strings.Contains(got[0].Message, want) {
			t.Errorf("message %q does not say %q", got[0].Message, want)
		}
	}
	if got := settle([]planner.Finding{warned}); got[0].Severity != planner.SeverityError {
		t.Errorf("a CheckFailed warning stays %s, want an error", got[0].Severity)
	}
	if got := settle([]planner.Finding{missing}); len(got) != 1 || got[0] != missing {
		t.Errorf("a check that ran: %+v, want its finding kept", got)
	}
}
