package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// A location changed by the pull request is replace-required of origin
// change: it counts under "This change" in JSON, text and markdown alike.
func TestReplaceRequiredCountsAsThisChange(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, replaceStack("dev", "westus2"))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	commit(replaceStack("dev", "eastus"))

	out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "json", "manifests")...)
	if code != 1 {
		t.Fatalf("plan --base: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	_, byName, summary := decodePlan(t, out)
	r := byName["UserAssignedIdentity/id"]
	if r == nil || r.Action != planner.ActionReplace || changeAt(r, "location") == nil || changeAt(r, "location").Origin != planner.OriginChange {
		t.Fatalf("the identity: %+v, want replace-required of origin change", r)
	}
	if summary.Changed != 1 || summary.ReplaceRequired != 1 || summary.Drifted != 0 {
		t.Errorf("summary %+v, want 1 changed (the replace-required), no drift", summary)
	}
	text, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...)
	mustContain(t, "text plan", text, "This change: 1 resource", "; this change: 1, drift: 0.")
	md, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "markdown", "manifests")...)
	mustContain(t, "markdown plan", md, "| this change | 1 |", "#### This change: 1 resource")
	if strings.Count(md, "#### This change") != 1 {
		t.Errorf("markdown lists the section twice:\n%s", md)
	}
}

// A base a shallow checkout lacks (CI's default) is an error that names the
// fix: fetch it, or check out the whole history.
func TestMissingBaseNamesTheShallowCheckout(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, replaceStack("dev", "westus2"))
	commit(replaceStack("prod", "westus2"))
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", "--depth=1", "file://"+repo, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	t.Chdir(clone)
	_, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...)
	if code != 1 {
		t.Fatalf("plan --base HEAD~1 in a shallow clone: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "error", errOut, "--base HEAD~1: not a directory nor a git revision", "a shallow checkout, CI's default, lacks earlier commits: fetch the base with git fetch --unshallow", "fetch-depth: 0 in actions/checkout")
	missing := strings.Repeat("ab", 20)
	_, errOut, code = azk(t, "", with("plan", "--base", "origin/"+missing, "manifests")...)
	if code != 1 {
		t.Fatalf("plan --base of a missing commit: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "error", errOut, "fetch the base with git fetch origin "+missing+",", "fetch-depth: 0")
}

// GitHub's github.event.before is 40 zeros on a branch's first push: no
// earlier manifests, so the plan is two-way (nothing removed), with a notice.
func TestNullBaseIsATwoWayPlan(t *testing.T) {
	_, with, commit := appliedPRStack(t)
	commit(prStack("dev", prPassword, true))
	null := strings.Repeat("0", 40)
	out, errOut, code := azk(t, "", with("plan", "--base", null, "--detailed-exitcode", "-o", "json", "manifests")...)
	if code != 0 {
		t.Fatalf("plan --base %s: exit %d, want 0 (nothing to do)\n%s\n%s", null, code, out, errOut)
	}
	mustContain(t, "stderr", errOut, "Notice: --base "+null+" is git's null revision", "nothing is removed")
	p, _, summary := decodePlan(t, out)
	if p.Inputs.Base != "" || summary.Delete != 0 || summary.Changed != 0 || len(p.Unmanaged) == 0 {
		t.Errorf("plan: base %q, summary %+v, unmanaged %v; want a two-way plan that leaves the removed resources unmanaged", p.Inputs.Base, summary, p.Unmanaged)
	}
}

// plan -o name prefixes each address with its action, and apply -o name
// prints the same lines for what it did.
func TestNameOutputSaysTheAction(t *testing.T) {
	_, with, commit := appliedPRStack(t)
	commit(prStack("prod", prPassword, true))
	planned, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "name", "manifests")...)
	if code != 0 {
		t.Fatalf("plan -o name: exit %d\n%s\n%s", code, planned, errOut)
	}
	want := []string{
		"delete managedidentity.azure.com/UserAssignedIdentity/default/old-id",
		"delete network.azure.com/VirtualNetworksSubnet/default/db",
		"update resources.azure.com/ResourceGroup/default/pr",
	}
	lines := strings.Split(strings.TrimSpace(planned), "\n")
	slices.Sort(lines)
	if !slices.Equal(lines, want) {
		t.Errorf("plan -o name:\n%s\nwant (in any order):\n%s", planned, strings.Join(want, "\n"))
	}
	applied, errOut, code := azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", "-o", "name", "manifests")...)
	if code != 0 {
		t.Fatalf("apply -o name: exit %d\n%s\n%s", code, applied, errOut)
	}
	lines = strings.Split(strings.TrimSpace(applied), "\n")
	slices.Sort(lines)
	if !slices.Equal(lines, want) {
		t.Errorf("apply -o name:\n%s\nwant the plan's lines:\n%s", applied, strings.Join(want, "\n"))
	}
}

// A plan apply would refuse exits 1 with --detailed-exitcode, not 2, and
// the markdown comment starts with why: the cascade guard, a blocked or
// replace-required resource, a reconcile-policy it cannot record.
func TestRefusedPlanFailsTheDetailedExitCode(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	top := func(md string) string { head, _, _ := strings.Cut(md, "| decision |"); return head }

	repo, commit := gitRepo(t, cascadeStack(false))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	stray := "/subscriptions/" + emulatorSubscription + "/resourceGroups/gone/providers/Microsoft.ManagedIdentity/userAssignedIdentities/stray"
	putAndWait(t, emulatorClient(t, run), stray, "2023-01-31", map[string]any{"location": "westus2"})
	commit(cascadeStack(true))
	md, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "markdown", "--detailed-exitcode", "manifests")...)
	if code != 1 {
		t.Errorf("cascade: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "cascade comment", top(md), "> [!CAUTION]\n> The cascade guard refuses these deletions unless --allow-cascade")
	if _, _, code := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...); code != 0 {
		t.Errorf("cascade without --detailed-exitcode: exit %d, want 0 (a warning)", code)
	}

	commit(replaceStack("dev", "westus2"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	commit(replaceStack("dev", "eastus") + "---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: absent\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: skip\nspec:\n  location: westus2\n" +
		"---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: orphan\nspec:\n  location: westus2\n  owner: {name: absent}\n")
	md, errOut, code = azk(t, "", with("plan", "--base", "HEAD~1", "-o", "markdown", "--detailed-exitcode", "manifests")...)
	if code != 1 {
		t.Errorf("replace-required: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "replace-required comment", top(md),
		"> azk apply refuses this plan unless --allow-partial: 1 resource is blocked (why: below): `managedidentity.azure.com/UserAssignedIdentity/default/orphan`.",
		"> azk apply refuses this plan unless --allow-partial: Azure cannot make 1 change in place (-replace=ADDRESS deletes and creates it again): `managedidentity.azure.com/UserAssignedIdentity/default/id`.")

	stdin := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: unrecorded\n  annotations:\n    serviceoperator.azure.com/reconcile-policy-if-exists: skip\nspec:\n  location: westus2\n"
	md, errOut, code = azk(t, stdin, with("plan", "-", "-o", "markdown", "--detailed-exitcode")...)
	if code != 1 {
		t.Errorf("unrecorded policy: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "unrecorded comment", top(md), "> azk apply refuses this plan unless --allow-unrecorded-policy: it cannot record the reconcile-policy in the manifests (standard input, kustomize output) of `resources.azure.com/ResourceGroup/default/unrecorded`.")
	mustContain(t, "unrecorded stderr", errOut, "Warning: azk apply must record the reconcile-policy", "resources.azure.com/ResourceGroup/default/unrecorded (serviceoperator.azure.com/reconcile-policy: manage)")
	if _, _, code := azk(t, stdin, with("plan", "-")...); code != 0 {
		t.Errorf("unrecorded policy without --detailed-exitcode: exit %d, want 0 (a warning)", code)
	}
}
