package planner

// Rules (azk plan --policy): the findings of a team's own Rego policies on
// the plan, and the auto-approval requirements (--require). They are
// evaluated by internal/rules; the plan only carries their outcome. They
// are not Azure Policy, whose deny rules the pre-flight asks Azure about,
// nor a reconcile-policy.

// RuleFinding is one result of a deny, violation or warn rule.
type RuleFinding struct {
	// Rule is the package and rule that produced it: "main.deny",
	// "main.warn_tags".
	Rule string `json:"rule"`
	// Severity is error for deny and violation rules (the plan fails, apply
	// refuses), warning for warn rules.
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Address, Source and ARMID name the resource it is about; empty for a
	// finding about the plan as a whole.
	Address string `json:"address,omitempty"`
	Source  string `json:"source,omitempty"`
	ARMID   string `json:"armId,omitempty"`
	// Details are the other fields of a result that is an object (conftest's
	// metadata), as the rule returned them.
	Details map[string]any `json:"details,omitempty"`
}

// Requirement is one auto-approval requirement (--require) and whether the
// plan meets it.
type Requirement struct {
	// Name is no-delete, no-replace or no-drift.
	Name string `json:"name"`
	Met  bool   `json:"met"`
	// Resources are the addresses that break it.
	Resources []string `json:"resources,omitempty"`
}

// Rules is the outcome of the team's policies on a plan.
type Rules struct {
	// Files are the Rego files evaluated; Namespaces the packages whose
	// rules were evaluated over the plan, ManifestNamespaces those
	// evaluated over each resource's manifest.
	Files              []string      `json:"files,omitempty"`
	Namespaces         []string      `json:"namespaces,omitempty"`
	ManifestNamespaces []string      `json:"manifestNamespaces,omitempty"`
	Findings           []RuleFinding `json:"findings"`
	// Requirements are the --require checks, in the order given.
	Requirements []Requirement `json:"requirements,omitempty"`
}

// Denials counts the findings that are errors; 0 without policies.
func (r *Rules) Denials() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// Unmet are the requirements the plan does not meet.
func (r *Rules) Unmet() []Requirement {
	if r == nil {
		return nil
	}
	var out []Requirement
	for _, q := range r.Requirements {
		if !q.Met {
			out = append(out, q)
		}
	}
	return out
}

// FindingsFor are the findings about the resource at address.
func (r *Rules) FindingsFor(address string) []RuleFinding {
	if r == nil {
		return nil
	}
	var out []RuleFinding
	for _, f := range r.Findings {
		if f.Address == address {
			out = append(out, f)
		}
	}
	return out
}

// AzureBody is Azure's body of the resource as the plan read it, scrubbed
// of the run's secrets; nil when Azure does not have it, or for a plan read
// from a file.
func (r *Resource) AzureBody() map[string]any {
	if r.current != nil {
		return r.current
	}
	return r.removedBody
}

// SetRules puts the policies' outcome in the plan, each finding about a
// resource also beside it (RuleFindings).
func (p *Plan) SetRules(rs *Rules) {
	p.Rules = rs
	for _, r := range p.Resources {
		r.RuleFindings = rs.FindingsFor(r.Address)
	}
}
