package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/providers"
	"github.com/azkcli/azk/internal/planner"
)

const (
	pfApp  = "/subscriptions/" + emulatorSubscription + "/resourceGroups/app"
	pfApp2 = "/subscriptions/" + emulatorSubscription + "/resourceGroups/app2"
)

// identityDocs are user-assigned identities, each named name in the group rg.
func identityDocs(rgByName map[string]string, names ...string) string {
	var docs []string
	for _, n := range names {
		docs = append(docs, "apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: "+n+
			"\nspec:\n  location: westus2\n  owner: {armId: "+rgByName[n]+"}\n")
	}
	return strings.Join(docs, "---\n")
}

// refusedAction is the action a 403 AuthorizationFailed names.
var refusedAction = regexp.MustCompile(`perform action '([^']+)' over scope`)

// TestPreflightChecksDeletePermission: a caller whose role allows every
// action but an identity's delete. The pre-flight of a --base removal and
// of plan --destroy reports the missing delete action at the identity
// deleted, and at nothing else; apply --preflight refuses before any
// write; apply without it meets the emulator's 403 for the same action.
func TestPreflightChecksDeletePermission(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{EnforceRBAC: true})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	with := func(args ...string) []string { return append(args, flags...) }
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, pfApp, "2021-04-01", map[string]any{"location": "westus2"})
	groups := map[string]string{"keep": pfApp, "gone": pfApp}
	repo, commit := gitRepo(t, identityDocs(groups, "keep", "gone"))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	const deleteAction = "Microsoft.ManagedIdentity/userAssignedIdentities/delete"
	role := "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.Authorization/roleDefinitions/5b1d0e0a-0000-4000-8000-0000000000e1"
	putAndWait(t, c, role, authzVersion, map[string]any{"properties": map[string]any{
		"roleName": "Writer, not deleter", "type": "CustomRole", "assignableScopes": []any{"/subscriptions/" + emulatorSubscription},
		"permissions": []any{map[string]any{"actions": []any{"*"}, "notActions": []any{deleteAction}}},
	}})
	assignRole(t, c, "/subscriptions/"+emulatorSubscription, "6f1c6b7e-0000-4000-8000-0000000000e2", role, providers.DefaultPrincipal)
	commit(identityDocs(groups, "keep"))

	permissionErrors := func(p *planner.Plan) map[string]string {
		out := map[string]string{}
		for _, f := range p.Preflight.Findings {
			if f.Severity == planner.SeverityError {
				out[f.Address] += f.Code + ": " + f.Message + "; "
			}
		}
		return out
	}
	identity := func(name string) string { return "managedidentity.azure.com/UserAssignedIdentity/default/" + name }
	// A DELETE lands on the resource itself: the finding names it.
	want := func(name string) string {
		return "PermissionMissing: the caller cannot " + deleteAction + " in /subscriptions/" + emulatorSubscription +
			"/resourceGroups/app/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name + ", where this write lands"
	}

	p, errOut, code := preflightOf(t, flags, "manifests", "--base", "HEAD~1")
	got := permissionErrors(p)
	if code != 1 || len(got) != 1 || !strings.HasPrefix(got[identity("gone")], want("gone")) {
		t.Fatalf("plan --base --preflight: exit %d, errors %v, want only %q at gone\n%s", code, got, want("gone"), errOut)
	}
	p, errOut, code = preflightOf(t, flags, "manifests", "--destroy") // destroys what the manifests hold: keep
	got = permissionErrors(p)
	if code != 1 || len(got) != 1 || !strings.HasPrefix(got[identity("keep")], want("keep")) {
		t.Fatalf("plan --destroy --preflight: exit %d, errors %v, want only %q at keep\n%s", code, got, want("keep"), errOut)
	}

	writes.Store(0)
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--preflight", "--base", "HEAD~1", "manifests")...)
	if code != 1 || writes.Load() != 0 || !strings.Contains(errOut, "the pre-flight found 1 error") {
		t.Fatalf("apply --preflight: exit %d, %d writes\n%s\n%s", code, writes.Load(), out, errOut)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", "manifests")...)
	m := refusedAction.FindStringSubmatch(out + errOut)
	if code != 1 || !strings.Contains(out+errOut, "AuthorizationFailed") || m == nil || m[1] != deleteAction {
		t.Fatalf("apply without pre-flight: exit %d, want the 403 for %s\n%s\n%s", code, deleteAction, out, errOut)
	}
	if getBody(t, run, pfApp+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/gone", "2023-01-31") == nil {
		t.Error("the refused DELETE deleted the identity")
	}
}

// TestPreflightHonoursPolicyNotScopes: a deny assignment at the
// subscription with a notScope on resource group app. The pre-flight
// denies the identity in app2 and not the one in app, and apply agrees:
// the one in app is created, the one in app2 meets RequestDisallowedByPolicy.
func TestPreflightHonoursPolicyNotScopes(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	for _, rg := range []string{pfApp, pfApp2} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	defID := "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.Authorization/policyDefinitions/deny-identities"
	putAndWait(t, c, defID, policyVersion, map[string]any{"properties": map[string]any{
		"mode":       "All",
		"policyRule": map[string]any{"if": map[string]any{"field": "type", "equals": "Microsoft.ManagedIdentity/userAssignedIdentities"}, "then": map[string]any{"effect": "deny"}},
	}})
	putAndWait(t, c, "/subscriptions/"+emulatorSubscription+"/providers/Microsoft.Authorization/policyAssignments/deny-identities", policyVersion,
		map[string]any{"properties": map[string]any{"policyDefinitionId": defID, "notScopes": []any{pfApp}}})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(identityDocs(map[string]string{"inside": pfApp, "outside": pfApp2}, "inside", "outside")), 0o644); err != nil {
		t.Fatal(err)
	}

	p, errOut, code := preflightOf(t, flags, dir)
	got := findingCodes(p, planner.SeverityError)
	if code != 1 || len(got) != 1 || got["managedidentity.azure.com/UserAssignedIdentity/default/outside"] != "PolicyDenied " {
		t.Fatalf("plan --preflight: exit %d, errors %v, want PolicyDenied at outside only\n%s", code, got, errOut)
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("plan --preflight sent %d writes", n)
	}
	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--auto-approve"}, flags...)...)
	if code != 1 || !strings.Contains(out+errOut, "RequestDisallowedByPolicy") {
		t.Fatalf("apply: exit %d, want the policy's 403\n%s\n%s", code, out, errOut)
	}
	if getBody(t, run, pfApp+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/inside", "2023-01-31") == nil {
		t.Error("the identity in the notScope was not created")
	}
	if getBody(t, run, pfApp2+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/outside", "2023-01-31") != nil {
		t.Error("the identity outside the notScope was created")
	}
}
