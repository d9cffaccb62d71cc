package planner

import "fmt"

// destroyHeading opens the text form of a destroy plan.
const destroyHeading = "Destroy plan: azk destroy deletes these resources from Azure, dependents and children first."

// NoDestroyLine is what a destroy plan with nothing to delete says.
const NoDestroyLine = "No changes. Destroying would delete nothing in Azure."

// destroySummaryLine is a destroy plan's count, as Terraform's "Plan: 0 to
// add, 0 to change, 3 to destroy.": "Plan: 5 to delete (2 of them by ARM
// with their parent), 1 to detach."
func (p *Plan) destroySummaryLine() string {
	s := p.Summary()
	cascaded := 0
	for _, r := range p.Resources {
		if r.Action == ActionDelete && r.CascadedBy != "" {
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
func cascades(p *Plan) []Cascade {
	var out []Cascade
	for _, r := range p.Resources {
		out = append(out, r.Cascades...)
	}
	return out
}
