package rules

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// Requirements are the auto-approval requirements --require takes: facts of
// a plan that a pipeline may apply without a human.
var Requirements = []string{"no-delete", "no-replace", "no-drift"}

// ParseRequirements reads --require's comma-separated list.
func ParseRequirements(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		known := false
		for _, k := range Requirements {
			known = known || k == name
		}
		if !known {
			return nil, fmt.Errorf("unknown requirement %q: use %s", name, strings.Join(Requirements, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// Require checks the plan against each requirement named:
//
//   - no-delete: nothing is deleted (delete, ARM's cascade included);
//   - no-replace: nothing is replaced (replace) or needs replacing
//     (replace-required);
//   - no-drift: no resource differs in Azure from what the manifests said
//     before this change: in a drift report (--drift) any drifted resource,
//     in a three-way plan (--base) any difference of origin drift. A
//     two-way plan cannot tell drift from the change: an error.
func Require(p *planner.Plan, names []string) ([]planner.Requirement, error) {
	var out []planner.Requirement
	for _, name := range names {
		var breaking []string
		for _, r := range p.Resources {
			if breaks(p, r, name) {
				breaking = append(breaking, r.Address)
			}
		}
		if name == "no-drift" && !p.Drift && p.Inputs.Base == "" {
			return nil, fmt.Errorf("--require no-drift needs --base (or --drift): without the manifests before the change a plan cannot tell drift from the change")
		}
		out = append(out, planner.Requirement{Name: name, Met: len(breaking) == 0, Resources: breaking})
	}
	return out, nil
}

func breaks(p *planner.Plan, r *planner.Resource, requirement string) bool {
	switch requirement {
	case "no-delete":
		return r.Action == planner.ActionDelete
	case "no-replace":
		return r.Action == planner.ActionRecreate || r.Action == planner.ActionReplace
	case "no-drift":
		if p.Drift {
			return r.Exists && r.Drifted()
		}
		_, drift := r.Origins()
		return drift
	}
	return false
}
