package views

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// TestAzureNameFromStatusIsParsed: an Azure name read from another resource's
// status at plan time becomes part of an ARM ID only when it is a valid ARM
// name; a status value that would add a query to the path blocks the resource
// (issue 12, item 1).
func TestAzureNameFromStatusIsParsed(t *testing.T) {
	injected := "x?api-version=2020-06-01&y="
	patch, _ := json.Marshal(map[string]any{"properties": map[string]any{"principalId": injected}})
	az := startAzure(t, emulator.Faults{Drifts: []emulator.DriftRule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", Patch: patch}}})
	rgID := "/subscriptions/" + testSub + "/resourceGroups/pg-rg"
	az.Put(t, rgID, "2020-06-01", map[string]any{"location": "westus2"})
	identityID := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/admin-identity"
	az.Put(t, identityID, "2023-01-31", map[string]any{"location": "westus2"})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := az.Client.Get(context.Background(), identityID, "2023-01-31")
		if err == nil && strings.Contains(string(resp.Body), `"principalId":"x?api-version`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the emulator never served the injected principal ID: %v", err)
		}
	}
	p := makePlan(t, az, loadScenario(t, "testdata/name-from-status.yaml"), false)
	for _, r := range p.Resources {
		if r.Kind != "FlexibleServersAdministrator" {
			continue
		}
		if r.Action != planner.ActionBlocked || r.ARMID != "" || !strings.Contains(strings.Join(r.Reasons, ";"), `"x?api-version=2020-06-01&y=" contains '?'`) {
			t.Errorf("an administrator named %q: %s %q %v", injected, r.Action, r.ARMID, r.Reasons)
		}
		return
	}
	t.Fatal("the administrator is not in the plan")
}
