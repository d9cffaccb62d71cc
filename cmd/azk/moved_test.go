package main

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// Moves read as moves (issue 34): an object renamed, moved to another
// namespace or to another file, keeping its ARM ID, is the same resource:
// shown moved from the base's address and file, neither adopted nor
// deleted, counted neither as this change nor as a change at all.
func TestThreeWayMovesReadAsMoves(t *testing.T) {
	t.Parallel()
	id := dsSub + "/resourceGroups/mv/providers/Microsoft.ManagedIdentity/userAssignedIdentities/shared"
	for _, c := range []struct {
		name  string
		files map[string]string // the head's files; "" removes one
		from  string            // the base's address of the identity
		moved []string          // the addresses shown moved
	}{
		{"metadata.name", map[string]string{"manifests/stack.yaml": docs(dsGroup("mv", ""), pdIdentity("id-new", "mv", "shared"))},
			"managedidentity.azure.com/UserAssignedIdentity/default/id-old", []string{"managedidentity.azure.com/UserAssignedIdentity/default/id-new"}},
		{"namespace", map[string]string{"manifests/stack.yaml": docs(nsDoc(dsGroup("mv", ""), "ops"), nsDoc(pdIdentity("id-old", "mv", "shared"), "ops"))},
			"managedidentity.azure.com/UserAssignedIdentity/default/id-old", []string{"resources.azure.com/ResourceGroup/ops/mv", "managedidentity.azure.com/UserAssignedIdentity/ops/id-old"}},
		{"file", map[string]string{"manifests/stack.yaml": dsGroup("mv", ""), "manifests/identities/id.yaml": pdIdentity("id-old", "mv", "shared")},
			"managedidentity.azure.com/UserAssignedIdentity/default/id-old", []string{"managedidentity.azure.com/UserAssignedIdentity/default/id-old"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			repo, dir := e.appliedRepo(t, docs(dsGroup("mv", ""), pdIdentity("id-old", "mv", "shared")))
			for rel, content := range c.files {
				repo.write(rel, content)
			}
			repo.commit()
			out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
			if code != 0 {
				t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
			}
			p, _, s := decodePlan(t, out)
			var moved []string
			for _, r := range p.Resources {
				if r.Removed() || r.Adopt != nil || r.Action != planner.ActionNoChange {
					t.Errorf("%s: %s (%s), adopt %v; want no change", r.Address, r.Action, r.Reason, r.Adopt)
				}
				if r.Moved != nil {
					moved = append(moved, r.Address)
				}
				if strings.EqualFold(r.ARMID, id) && (r.Moved == nil || r.Moved.From != c.from || !strings.HasSuffix(r.Moved.Source, ":manifests/stack.yaml:8")) {
					t.Errorf("%s moved %+v; want from %s at the base's manifests/stack.yaml:8", r.Address, r.Moved, c.from)
				}
			}
			if strings.Join(moved, " ") != strings.Join(c.moved, " ") {
				t.Errorf("moved %v, want %v", moved, c.moved)
			}
			if s.Moved != len(c.moved) || s.Changed != 0 || s.Adopt != 0 {
				t.Errorf("summary %+v: want %d moved, nothing of this change, nothing adopted", s, len(c.moved))
			}

			out, errOut, code = e.azk(t, "plan", "--base", "HEAD~1", "-detailed-exitcode", dir)
			if code != 0 {
				t.Errorf("plan --base -detailed-exitcode: exit %d, want 0\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "plan", out, "moved from "+c.from+" (", ":manifests/stack.yaml:8)", "moved in the manifests: nothing to do")
			if strings.Contains(out+errOut, "adopt") {
				t.Errorf("plan speaks of adoption:\n%s\n%s", out, errOut)
			}
			out, _, _ = e.azk(t, "plan", "--base", "HEAD~1", "-o", "markdown", dir)
			mustContain(t, "markdown", out, "| moved | ", "moved from "+c.from)

			m := e.mark()
			out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
			if code != 0 {
				t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
			}
			noWritesIn(t, "apply --base", e.since(m))
		})
	}
}
