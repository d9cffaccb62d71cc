package main

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// A per-folder pipeline: a network moves from infra/platform to
// infra/apps. Planning infra/platform alone against the previous commit
// deletes it; the plan warns that infra/apps still declares it. A group
// removed for good, whose only other copy is under vendor/, gets no warning.
func TestPlanBaseWarnsOfDeletionDeclaredElsewhere(t *testing.T) {
	e := newDSEnv(t)
	repo := newDSRepo(t)
	repo.write("infra/platform/rg.yaml", docs(dsGroup("shared", ""), dsGroup("old", "")))
	repo.write("infra/platform/net.yaml", dsNetwork("net", "shared", "10.1.0.0/16"))
	repo.write("infra/apps/app.yaml", dsGroup("apps", ""))
	repo.commit()
	platform, apps := repo.path("infra/platform"), repo.path("infra/apps")
	e.mustApply(t, platform, apps)

	repo.write("infra/platform/rg.yaml", dsGroup("shared", ""))
	repo.write("infra/platform/net.yaml", "")
	repo.write("infra/apps/app.yaml", docs(dsGroup("apps", ""), dsNetwork("net", "shared", "10.1.0.0/16")))
	repo.write("infra/vendor/old.yaml", dsGroup("old", ""))
	repo.write("infra/.hidden/net.yaml", dsNetwork("net", "shared", "10.1.0.0/16"))
	repo.commit()

	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", platform)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	p, _, _ := decodePlan(t, out)
	vnet := dsSub + "/resourceGroups/shared/providers/Microsoft.Network/virtualNetworks/net"
	var net, old *planner.Resource
	for _, r := range p.Resources {
		switch {
		case strings.EqualFold(r.ARMID, vnet):
			net = r
		case strings.EqualFold(r.ARMID, dsSub+"/resourceGroups/old"):
			old = r
		}
	}
	if net == nil || net.Action != planner.ActionDelete || old == nil || old.Action != planner.ActionDelete {
		t.Fatalf("want the network and the group old deleted:\n%s", out)
	}
	mustContain(t, "stderr", errOut, "infra/apps/app.yaml:8", "the plan deletes "+vnet, "what infra/apps still manages")
	if n := strings.Count(errOut, "outside the inputs still declares"); n != 1 {
		t.Errorf("%d warnings, want one (vendor/ and hidden folders are not read):\n%s", n, errOut)
	}
	if !strings.Contains(strings.Join(net.Notes, "\n"), "infra/apps/app.yaml:8, outside the inputs, still declares it") {
		t.Errorf("network's notes: %q", net.Notes)
	}
	if len(old.Notes) > 1 {
		t.Errorf("group old's notes: %q", old.Notes)
	}

	md, _, _ := e.azk(t, "plan", "--base", "HEAD~1", "-o", "markdown", platform)
	mustContain(t, "markdown", md, "infra/apps/app.yaml:8, outside the inputs, still declares it")

	// Both folders planned together: the network only moved, nothing warns.
	_, errOut, _ = e.azk(t, "plan", "--base", "HEAD~1", platform, apps)
	if strings.Contains(errOut, "outside the inputs") {
		t.Errorf("planning both folders warns:\n%s", errOut)
	}
}
