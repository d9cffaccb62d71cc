package views

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// destroyHeading opens the text form of a destroy plan.
const destroyHeading = "Destroy plan: azk destroy deletes these resources from Azure, dependents and children first."

// NoDestroyLine is what a destroy plan with nothing to delete says.
const NoDestroyLine = "No changes. Destroying would delete nothing in Azure."

// destroySummaryLine is a destroy plan's count, as Terraform's "Plan: 0 to
// add, 0 to change, 3 to destroy.": "Plan: 5 to delete (2 of them by ARM
// with their parent), 1 to detach."
func destroySummaryLine(p *planner.Plan) string {
	s := p.Summary()
	cascaded := 0
	for _, r := range p.Resources {
		if r.Action == planner.ActionDelete && r.CascadedBy != "" {
			cascaded++
		}
	}
	line := fmt.Sprintf("Plan: %d to delete", s.Delete)
	if cascaded > 0 {
		line += fmt.Sprintf(" (%d of them by ARM with their parent)", cascaded)
	}
	line += fmt.Sprintf(", %d to detach", s.Detach)
	if n := len(cascades(p)); n > 0 {
		line += fmt.Sprintf("; %d more removed with them, which needs --allow-cascade", n)
	}
	return line + "."
}

// cascades are what the plan's deletions would remove beyond what it
// deletes on its own.
func cascades(p *planner.Plan) []planner.Cascade {
	var out []planner.Cascade
	for _, r := range p.Resources {
		out = append(out, r.Cascades...)
	}
	return out
}

// RefusalLines say why azk apply (or destroy) would refuse the plan, for the
// top of a pull-request comment: blocked resources, changes Azure cannot make
// in place, policy records it cannot write, the cascade guard.
func RefusalLines(p *planner.Plan) []string {
	var blocked, replace, unwritable []string
	for _, r := range p.Resources {
		switch {
		case r.Action == planner.ActionBlocked:
			blocked = append(blocked, r.Address)
		case r.Action == planner.ActionReplace:
			replace = append(replace, r.Address)
		case r.RecordPolicy != nil && !r.RecordPolicy.Writable:
			unwritable = append(unwritable, r.Address)
		}
	}
	var lines []string
	if len(blocked) > 0 && !p.Drift {
		lines = append(lines, fmt.Sprintf("azk apply refuses this plan unless --allow-partial: %d %s blocked (why: below): %s.",
			len(blocked), plural(len(blocked), "resource is", "resources are"), codeList(blocked)))
	}
	if len(replace) > 0 && !p.Drift {
		lines = append(lines, fmt.Sprintf("azk apply refuses this plan unless --allow-partial: Azure cannot make %d %s in place (-replace=ADDRESS deletes and creates it again): %s.",
			len(replace), plural(len(replace), "change", "changes"), codeList(replace)))
	}
	if len(unwritable) > 0 && !p.Drift {
		lines = append(lines, fmt.Sprintf("azk apply refuses this plan unless --allow-unrecorded-policy: it cannot record the reconcile-policy in the manifests (standard input, kustomize output) of %s.",
			codeList(unwritable)))
	}
	if line := CascadeLine(p); line != "" {
		lines = append(lines, line)
	}
	if line := rulesRefusalLine(p); line != "" {
		lines = append(lines, line)
	}
	return lines
}

// codeList is addresses as markdown code, the first few of them.
func codeList(addresses []string) string {
	const most = 5
	shown := addresses
	if len(shown) > most {
		shown = shown[:most]
	}
	list := "`" + strings.Join(shown, "`, `") + "`"
	if more := len(addresses) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}

// CascadeLine says, at the top of a plan, that the cascade guard will stop
// apply (and why): "" when it will not.
func CascadeLine(p *planner.Plan) string {
	found := cascades(p)
	if len(found) == 0 {
		return ""
	}
	unverified := 0
	for _, c := range found {
		if c.Unverified() {
			unverified++
		}
	}
	var why []string
	if n := len(found) - unverified; n > 0 {
		why = append(why, fmt.Sprintf("they would also remove %d more %s (marked cascade: below)", n, plural(n, "resource", "resources")))
	}
	if unverified > 0 {
		why = append(why, fmt.Sprintf("%d %s of what they would remove failed, and nothing is deleted while the guard cannot vouch for it", unverified, plural(unverified, "listing", "listings")))
	}
	return "The cascade guard refuses these deletions unless --allow-cascade: " + strings.Join(why, "; ") + "."
}
