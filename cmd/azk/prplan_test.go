package main

import (
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
