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
