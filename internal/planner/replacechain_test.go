package planner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// A replacement carries through the graph from a resource replaced with its
// owner: -replace of the identity's resource group replaces the identity
// (ARM deletes it with the group), so the role assignment in another group
// that names its principal is replaced too, deleted on its own; the one
// under reconcile-policy skip is left, and says so.
func TestReplacementCarriesFromAReplacedOwner(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	const file = "testdata/replacechain/stack.yaml"
	g := loadScenario(t, file)
	ids := map[string]string{}
	for _, n := range g.Nodes {
		ids[n.Object.Name] = n.ID
	}
	az.Put(t, ids["rc-id"], "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, ids["rc-app"], "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, ids["rc-web"], "2023-01-31", map[string]any{"location": "westus2"})
	resp, err := az.Client.Get(testkit.Context(t), ids["rc-web"], "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	var identity map[string]any
	if err := json.Unmarshal(resp.Body, &identity); err != nil {
		t.Fatal(err)
	}
	principal := testkit.At[string](t, identity, "properties", "principalId")
	roles := "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/"
	for name, role := range map[string]string{"rc-web-reader": "acdd72a7-3385-48ef-bd42-f606fba81ae7", "rc-web-kept": "4633458b-17de-408a-b874-0445c86b69e6"} {
		az.Put(t, ids[name], "2022-04-01", map[string]any{"properties": map[string]any{"principalId": principal, "principalType": "ServicePrincipal", "roleDefinitionId": roles + role}})
	}
	plan := func(replace ...string) map[string]*planner.Resource {
		t.Helper()
		p, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, Replace: replace, Inputs: planner.Inputs{Paths: []string{file}, Namespace: "default"}})
		if diags.HasErrors() {
			t.Fatalf("Make: %v", diags.Err())
		}
		out := map[string]*planner.Resource{}
		for _, r := range p.Resources {
			out[r.Name] = r
		}
		return out
	}
	for name, r := range plan() {
		if want := map[string]planner.Action{"rc-web-kept": planner.ActionSkip}[name]; r.Action != want && !(want == "" && r.Action == planner.ActionNoChange) {
			t.Fatalf("without -replace %s is %s %v: the seeding does not match the manifests", name, r.Action, r.Changes)
		}
	}

	byName := plan("ResourceGroup/rc-id")
	const identityAddress = "managedidentity.azure.com/UserAssignedIdentity/default/rc-web"
	if r := byName["rc-web"]; r.Action != planner.ActionRecreate || r.Reason != planner.ReasonOwnerReplaced {
		t.Fatalf("the identity: %s %s, want replace_because_owner_replaced", r.Action, r.Reason)
	}
	r := byName["rc-web-reader"]
	if r.Action != planner.ActionRecreate || r.Reason != planner.ReasonInputReplaced || r.CascadedBy != "" || !r.Deletes() {
		t.Errorf("the role assignment: %s %s (cascaded by %q), want replace_because_input_replaced with a DELETE of its own", r.Action, r.Reason, r.CascadedBy)
	}
	const principalFact = "identity: ARM answers RoleAssignmentUpdateNotPermitted"
	if in := r.ReplacedInputs; len(in) != 1 || in[0].Path != "properties.principalId" || in[0].From != identityAddress || !strings.Contains(in[0].CreateOnly, principalFact) {
		t.Errorf("the role assignment's replaced inputs: %+v, want properties.principalId from the identity, create-only by %q", in, principalFact)
	}
	if v, _ := r.Desired["properties"].(map[string]any)["principalId"]; v == principal {
		t.Errorf("the role assignment's body still names the old principal %s", principal)
	}
	kept := byName["rc-web-kept"]
	if kept.Action != planner.ActionSkip || !strings.Contains(strings.Join(kept.Notes, "\n"), identityAddress+" is replaced, and reconcile-policy skip never writes this one") {
		t.Errorf("the skipped role assignment: %s %q, want skip with a note that it keeps the old principal", kept.Action, kept.Notes)
	}
	notes := strings.Join(byName["rc-web"].Notes, "\n")
	if !strings.Contains(notes, "authorization.azure.com/RoleAssignment/default/rc-web-reader reads what it exports, and is replaced too") {
		t.Errorf("the identity's notes do not show the chain: %q", notes)
	}
}

// A resource named by a replaced resource's status (azureNameFromConfig)
// would be another resource under the new name: it is blocked, saying so,
// rather than left under the old one as though nothing changed.
func TestReplacementRenamingAReaderBlocksIt(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	const file = "testdata/replacechain/named.yaml"
	rg := "/subscriptions/" + testSub + "/resourceGroups/rc-pg"
	identityID := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/rc-admin"
	az.Put(t, rg, "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, identityID, "2023-01-31", map[string]any{"location": "westus2"})
	resp, err := az.Client.Get(testkit.Context(t), identityID, "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	var identity map[string]any
	if err := json.Unmarshal(resp.Body, &identity); err != nil {
		t.Fatal(err)
	}
	principal := testkit.At[string](t, identity, "properties", "principalId")
	server := rg + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/rc-pg1"
	az.Put(t, server, "2025-08-01", map[string]any{"location": "westus2", "properties": map[string]any{"version": "16"}})
	az.Put(t, server+"/administrators/"+principal, "2025-08-01", map[string]any{"properties": map[string]any{
		"principalType": "ServicePrincipal", "principalName": "rc-admin", "tenantId": "72f988bf-0000-4000-8000-000000000000"}})
	p, diags := planner.Make(context.Background(), loadScenario(t, file), planner.Options{Reader: az.Client, Replace: []string{"UserAssignedIdentity/rc-admin"}, Inputs: planner.Inputs{Paths: []string{file}, Namespace: "default"}})
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	for _, r := range p.Resources {
		if r.Name != "rc-admin1" {
			continue
		}
		if !r.Exists || !strings.HasSuffix(r.ARMID, "/administrators/"+principal) {
			t.Fatalf("the administrator: exists %v at %s, want the one named by the current principal", r.Exists, r.ARMID)
		}
		if r.Action != planner.ActionBlocked || !strings.Contains(strings.Join(r.Reasons, "\n"), "its Azure name comes from managedidentity.azure.com/UserAssignedIdentity/default/rc-admin (azureNameFromConfig), which is replaced") {
			t.Errorf("the administrator: %s %q, want blocked: replacing the identity renames it", r.Action, r.Reasons)
		}
		return
	}
	t.Fatal("the administrator is not in the plan")
}
