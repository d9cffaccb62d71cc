package rules

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
)

// Evaluate evaluates the policies over the plan (the plan's namespaces over
// Input, the manifest namespaces over each resource's manifest) and returns
// their findings, each about the resource it names where it names one (see
// attribute). Messages are scrubbed of the run's secrets.
func (pol *Policies) Evaluate(ctx context.Context, p *planner.Plan, secrets *redact.Set) (*planner.Rules, error) {
	out := &planner.Rules{Files: pol.Files, Namespaces: pol.Namespaces, ManifestNamespaces: pol.ManifestNamespaces, Findings: []planner.RuleFinding{}}
	if len(pol.plan) > 0 {
		input, err := Input(p, secrets)
		if err != nil {
			return nil, err
		}
		for _, q := range pol.plan {
			results, err := q.eval(ctx, input)
			if err != nil {
				return nil, err
			}
			for _, res := range results {
				out.Findings = append(out.Findings, finding(q, res, attribute(p, res)))
			}
		}
	}
	for _, r := range p.Resources {
		if len(pol.manifest) == 0 {
			break
		}
		m, err := manifestOf(r)
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		scrubbed, _ := secrets.Value(m)
		for _, q := range pol.manifest {
			results, err := q.eval(ctx, scrubbed)
			if err != nil {
				return nil, err
			}
			for _, res := range results {
				out.Findings = append(out.Findings, finding(q, res, r))
			}
		}
	}
	for i := range out.Findings {
		out.Findings[i].Message = secrets.String(out.Findings[i].Message)
		if d, ok := secrets.Value(out.Findings[i].Details); ok {
			out.Findings[i].Details = d.(map[string]any)
		}
	}
	sortFindings(p, out.Findings)
	return out, nil
}

// finding is res of q, about r when r is not nil.
func finding(q query, res result, r *planner.Resource) planner.RuleFinding {
	f := planner.RuleFinding{Rule: q.rule, Severity: q.severity, Message: res.message, Details: res.details}
	if r != nil {
		f.Address, f.Source, f.ARMID = r.Address, r.Source, r.ARMID
		delete(f.Details, "address")
		if len(f.Details) == 0 {
			f.Details = nil
		}
	}
	return f
}

// attribute is the resource a result over the whole plan is about: the one
// its object's address field names, else the one address its message
// names (where addresses nest, "…/sa" inside "…/sa2", the longer one is
// read first); nil when it names none, or several.
func attribute(p *planner.Plan, res result) *planner.Resource {
	if a, ok := res.details["address"].(string); ok {
		for _, r := range p.Resources {
			if r.Address == a {
				return r
			}
		}
		return nil
	}
	byLength := slices.Clone(p.Resources)
	sort.SliceStable(byLength, func(i, j int) bool { return len(byLength[i].Address) > len(byLength[j].Address) })
	rest := res.message
	var named *planner.Resource
	for _, r := range byLength {
		if strings.Contains(rest, r.Address) {
			if named != nil {
				return nil
			}
			named = r
			rest = strings.ReplaceAll(rest, r.Address, "\x00")
		}
	}
	return named
}

// sortFindings orders findings as the plan lists its resources, those about
// the plan as a whole first; errors before warnings, then by rule and message.
func sortFindings(p *planner.Plan, findings []planner.RuleFinding) {
	order := map[string]int{"": -1}
	for i, r := range p.Resources {
		order[r.Address] = i
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if order[a.Address] != order[b.Address] {
			return order[a.Address] < order[b.Address]
		}
		if a.Severity != b.Severity {
			return a.Severity == planner.SeverityError
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}
