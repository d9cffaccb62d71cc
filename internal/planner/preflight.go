package planner

// Pre-flight (azk plan --preflight): what Azure can tell before the first
// write, each finding against the resource it is about. The checks are run
// by internal/preflight; the plan only carries their findings.

// Severity says whether a finding stops an apply.
type Severity string

const (
	// SeverityError: the apply would fail there; plan exits 1 and apply refuses.
	SeverityError Severity = "error"
	// SeverityWarning: worth knowing, not a failure.
	SeverityWarning Severity = "warning"
	// SeverityInfo: a figure the checks report (the steady state's cost).
	SeverityInfo Severity = "info"
)

// Finding is one pre-flight finding.
type Finding struct {
	// Check is the check that found it: validate, names, providers,
	// permissions, policy, quota or steady-state.
	Check string `json:"check"`
	// Code is a stable code: ARM's own error code for validate, else one of
	// the codes docs/plan-json.md lists.
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Address, Source and ARMID name the resource; empty for a finding
	// about the whole plan (steady-state) or a scope.
	Address string `json:"address,omitempty"`
	Source  string `json:"source,omitempty"`
	ARMID   string `json:"armId,omitempty"`
	Message string `json:"message"`
}

// Preflight is the outcome of the pre-flight checks.
type Preflight struct {
	// Checks are the checks that ran, in order.
	Checks []string `json:"checks"`
	// As is the principal whose permissions were evaluated (--as), "" for the caller.
	As       string    `json:"as,omitempty"`
	Findings []Finding `json:"findings"`
}

// Errors counts the findings that are errors; 0 for no pre-flight.
func (p *Preflight) Errors() int { return p.count(SeverityError) }

// Warnings counts the findings that are warnings.
func (p *Preflight) Warnings() int { return p.count(SeverityWarning) }

func (p *Preflight) count(s Severity) int {
	if p == nil {
		return 0
	}
	n := 0
	for _, f := range p.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}
