package main

import (
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// A base that does not validate still gives a plan (issue 34): the pull
// request fixing a broken main is planned in full, what the base could not
// read is a warning naming the base's file and line, the removal of the
// base's valid resources is planned, and those whose ARM ID did not
// resolve are counted.
func TestThreeWayBrokenBaseStillPlans(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	fixed := docs(dsGroup("bb", ""), dsIdentity("id-a", "bb"))
	repo, dir := e.appliedRepo(t, docs(fixed, dsIdentity("id-gone", "bb")))
	// main breaks: an unknown field, and an identity whose owner is missing.
	repo.write("manifests/stack.yaml", docs(dsGroup("bb", ""), dsIdentity("id-a", "bb")+"  colour: red\n", dsIdentity("id-gone", "bb"), dsIdentity("id-orphan", "nowhere")))
	repo.commit()
	// The change fixes it, and removes id-gone and id-orphan.
	repo.write("manifests/stack.yaml", fixed)
	repo.commit()

	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan stderr", errOut,
		"Warning: ", "in the base (--base HEAD~1): ", ":manifests/stack.yaml:15: ", "colour",
		":manifests/stack.yaml:", "nowhere",
		"--base HEAD~1: 1 of the base's resources that the manifests no longer declare have no ARM ID azk could resolve: their removal is not planned")
	_, byName, _ := decodePlan(t, out)
	if r := byName["UserAssignedIdentity/id-gone"]; r == nil || r.Action != planner.ActionDelete {
		t.Errorf("id-gone: %+v; want its deletion planned", r)
	}
	if r := byName["UserAssignedIdentity/id-a"]; r == nil || r.Action != planner.ActionNoChange || r.Adopt != nil {
		t.Errorf("id-a: %+v; want no change, not adopted", r)
	}
	if r := byName["UserAssignedIdentity/id-orphan"]; r != nil {
		t.Errorf("id-orphan is planned: %+v", r)
	}
	if _, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-detailed-exitcode", dir); code != 2 {
		t.Errorf("plan --base -detailed-exitcode: exit %d, want 2\n%s", code, errOut)
	}

	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
	if code != 0 {
		t.Fatalf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	id := dsSub + "/resourceGroups/bb/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
	if getBody(t, e.run, id+"id-gone", "2023-01-31") != nil {
		t.Error("id-gone is still in Azure")
	}
	if getBody(t, e.run, id+"id-a", "2023-01-31") == nil {
		t.Error("id-a is gone from Azure")
	}
}
