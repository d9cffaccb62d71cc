package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const (
	lkGroup    = "/subscriptions/" + emulatorSubscription + "/resourceGroups/lk"
	locksAPI   = "2020-05-01"
	identityV  = "2023-01-31"
	identityTy = "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
)

// taggedIdentityDocs are user-assigned identities in group lk, each
// tagged owner: team; identity i's document starts at line 1+9i.
func taggedIdentityDocs(team string, names ...string) string {
	var docs []string
	for _, n := range names {
		docs = append(docs, "apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: "+n+
			"\nspec:\n  location: westus2\n  tags: {owner: "+team+"}\n  owner: {armId: "+lkGroup+"}\n")
	}
	return strings.Join(docs, "---\n")
}

// lockFindings are the pre-flight's ScopeLocked findings by address.
func lockFindings(p *planner.Plan) map[string]planner.Finding {
	out := map[string]planner.Finding{}
	for _, f := range p.Preflight.Findings {
		if f.Code == "ScopeLocked" {
			out[f.Address] = f
		}
	}
	return out
}

// mustFindLock checks the one ScopeLocked finding: an error at the
// resource's file:line, naming the lock and the command that removes it.
func mustFindLock(t *testing.T, what string, p *planner.Plan, address, fileLine, lockID, level string) {
	t.Helper()
	got := lockFindings(p)
	f, ok := got[address]
	if len(got) != 1 || !ok {
		t.Fatalf("%s: ScopeLocked findings %v, want one at %s", what, got, address)
	}
	if f.Check != "locks" || f.Severity != planner.SeverityError || !strings.HasSuffix(f.Source, fileLine) ||
		!strings.Contains(f.Message, level+" lock '"+lockID[strings.LastIndexByte(lockID, '/')+1:]+"'") ||
		!strings.Contains(f.Message, "az lock delete --ids "+lockID) {
		t.Fatalf("%s: the finding %+v, want a locks error at %s naming the %s lock and `az lock delete --ids %s`", what, f, fileLine, level, lockID)
	}
}

// TestPreflightFindsReadOnlyLockOnUpdate: a ReadOnly lock on an identity
// the plan updates. The pre-flight reports ScopeLocked at the identity's
// file:line with the recipe, and nothing at the unlocked one; apply
// --preflight refuses before any write; apply without it meets the
// emulator's 409 ScopeLocked and the identity keeps its tags.
func TestPreflightFindsReadOnlyLockOnUpdate(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	with := func(args ...string) []string { return append(args, flags...) }
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, lkGroup, "2021-04-01", map[string]any{"location": "westus2"})
	dir := writeStack(t, taggedIdentityDocs("blue", "free", "frozen"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	frozen := lkGroup + identityTy + "frozen"
	lockID := frozen + "/providers/Microsoft.Authorization/locks/freeze"
	putAndWait(t, c, lockID, locksAPI, map[string]any{"properties": map[string]any{"level": "ReadOnly"}})
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(taggedIdentityDocs("green", "free", "frozen")), 0o644); err != nil {
		t.Fatal(err)
	}

	p, errOut, code := preflightOf(t, flags, dir)
	if code != 1 {
		t.Fatalf("plan --preflight: exit %d, want 1\n%s", code, errOut)
	}
	mustFindLock(t, "plan --preflight", p, "managedidentity.azure.com/UserAssignedIdentity/default/frozen", "/stack.yaml:10", lockID, "ReadOnly")
	out, _, _ := azk(t, "", with("plan", dir, "--preflight")...)
	mustContain(t, "plan --preflight (text)", out, "ScopeLocked", "az lock delete --ids "+lockID)

	writes.Store(0)
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--preflight", dir)...)
	if code != 1 || writes.Load() != 0 || !strings.Contains(errOut, "the pre-flight found 1 error") {
		t.Fatalf("apply --preflight: exit %d, %d writes, want 1 and none\n%s\n%s", code, writes.Load(), out, errOut)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 1 || !strings.Contains(out+errOut, "ScopeLocked") || !strings.Contains(out+errOut, "following scope(s) are locked: '"+frozen+"'") {
		t.Fatalf("apply without pre-flight: exit %d, want the emulator's ScopeLocked\n%s\n%s", code, out, errOut)
	}
	tags, _ := getBody(t, run, frozen, identityV)["tags"].(map[string]any)
	if tags["owner"] != "blue" {
		t.Errorf("the locked identity's tags: %v, want owner: blue kept", tags)
	}
}

// TestPreflightFindsDeleteLockOnGroup: a CanNotDelete lock on the group a
// --base removal deletes from (and a destroy plan). The pre-flight
// reports ScopeLocked at the removed identity's file:line in the base
// with the recipe; apply --preflight refuses before any write; apply
// without it meets the emulator's 409 and the identity stays.
func TestPreflightFindsDeleteLockOnGroup(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	with := func(args ...string) []string { return append(args, flags...) }
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, lkGroup, "2021-04-01", map[string]any{"location": "westus2"})
	repo, commit := gitRepo(t, taggedIdentityDocs("blue", "keep", "gone"))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	lockID := lkGroup + "/providers/Microsoft.Authorization/locks/keep-group"
	putAndWait(t, c, lockID, locksAPI, map[string]any{"properties": map[string]any{"level": "CanNotDelete"}})
	commit(taggedIdentityDocs("blue", "keep"))

	p, errOut, code := preflightOf(t, flags, "manifests", "--base", "HEAD~1")
	if code != 1 {
		t.Fatalf("plan --base --preflight: exit %d, want 1\n%s", code, errOut)
	}
	mustFindLock(t, "plan --base --preflight", p, "managedidentity.azure.com/UserAssignedIdentity/default/gone", ":manifests/stack.yaml:10", lockID, "CanNotDelete")
	p, errOut, code = preflightOf(t, flags, "manifests", "--destroy")
	if code != 1 {
		t.Fatalf("plan --destroy --preflight: exit %d, want 1\n%s", code, errOut)
	}
	mustFindLock(t, "plan --destroy --preflight", p, "managedidentity.azure.com/UserAssignedIdentity/default/keep", "manifests/stack.yaml:1", lockID, "CanNotDelete")

	writes.Store(0)
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--preflight", "--base", "HEAD~1", "manifests")...)
	if code != 1 || writes.Load() != 0 || !strings.Contains(errOut, "the pre-flight found 1 error") {
		t.Fatalf("apply --preflight: exit %d, %d writes, want 1 and none\n%s\n%s", code, writes.Load(), out, errOut)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", "manifests")...)
	if code != 1 || !strings.Contains(out+errOut, "ScopeLocked") || !strings.Contains(out+errOut, "following scope(s) are locked: '"+lkGroup+"'") {
		t.Fatalf("apply without pre-flight: exit %d, want the emulator's ScopeLocked\n%s\n%s", code, out, errOut)
	}
	if getBody(t, run, lkGroup+identityTy+"gone", identityV) == nil {
		t.Error("the refused DELETE deleted the identity")
	}
}
