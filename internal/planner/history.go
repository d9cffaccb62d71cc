package planner

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/history"
)

// HistoryClass is what Azure's change history says of a value (see package history).
type HistoryClass = history.Class

const (
	ClassDefault        = history.Default
	ClassChangedOutside = history.ChangedOutside
	ClassAzureKeeps     = history.AzureKeeps
	ClassUnknown        = history.Unknown
)

// History is what Azure's change history says of a resource's values the
// manifests leave unsaid (AzureOnly) and of its differences (azk plan
// --history, on by default): see docs/plan-json.md.
type History struct {
	// Unknown says why no record reaches far enough back (Azure's
	// retention, or the caller may not read the history): every path is
	// then of class unknown and the plan follows its usual rules.
	Unknown string `json:"unknown,omitempty"`
	// Since is what the classes count from: azk's last write, or the
	// resource's creation when azk never wrote it.
	Since string `json:"since,omitempty"`
	// Findings are the classes of the paths of AzureOnly, Defaults, Keeps
	// and Changes; a difference the manifests made has none.
	Findings []HistoryFinding `json:"findings,omitempty"`
	// Defaults are the values Azure holds that the body omits which Azure
	// set at creation or at azk's write, unchanged since: taken out of
	// AzureOnly, as no PUT of azk's resets them to anything else; shown
	// with --show-defaults.
	Defaults []PathValue `json:"defaults,omitempty"`
	// Keeps are the differences Azure keeps (class azureKeeps), taken out
	// of Changes: Before is Azure's value, After the manifests'.
	Keeps []Change `json:"keeps,omitempty"`
}

// HistoryFinding is the class of one path; for changedOutside, who changed
// it, when and through what.
type HistoryFinding struct {
	Path  string       `json:"path"`
	Class HistoryClass `json:"class"`
	// Value is Azure's value (absent for a secret).
	Value      any        `json:"value,omitempty"`
	ChangedBy  string     `json:"changedBy,omitempty"`
	ClientType string     `json:"clientType,omitempty"`
	Timestamp  *time.Time `json:"timestamp,omitempty"`
	Operation  string     `json:"operation,omitempty"`
}

// ChangedOutside are the findings of class changedOutside.
func (h *History) ChangedOutside() []HistoryFinding {
	if h == nil {
		return nil
	}
	var out []HistoryFinding
	for _, f := range h.Findings {
		if f.Class == ClassChangedOutside {
			out = append(out, f)
		}
	}
	return out
}

// startHistory sends the history's reads of every resource the plan reads,
// alongside the plan's own reads and paced by the same budget; the
// function returned waits for them. nil without Options.History.
func (m *maker) startHistory() func() history.Result {
	if m.opts.History == nil {
		return nil
	}
	ids := make([]string, 0, len(m.ordered))
	for _, st := range m.ordered {
		ids = append(ids, st.node.ID)
	}
	done := make(chan history.Result, 1)
	go func() {
		r := history.Reader{Client: m.opts.History, Own: arm.IsAzkCorrelationID}
		done <- r.Read(m.ctx, ids)
	}()
	return func() history.Result { return <-done }
}

// classifyHistory gives each existing resource's values their classes.
func (m *maker) classifyHistory(res history.Result) {
	for _, st := range m.ordered {
		r := st.decision
		if r == nil || !r.Exists || !classifiable(r.Action) {
			continue
		}
		key := strings.ToLower(r.ARMID)
		trail, read := res.Trails[key]
		if !read {
			trail = &history.Trail{} // every path is unknown
		}
		r.History = verdictOf(r, st.current, m.maySendAgain(st), history.Classify(*trail, azureOnlyPaths(r), differences(r, m.threeWay()), arm.IsAzkCorrelationID))
		if !read {
			r.History.Unknown = "the change history could not be read: " + res.Failed[key]
		}
		m.scrubHistory(r.History)
	}
}

// scrubHistory takes the run's secrets out of what the change records say:
// a value no longer in Azure's body comes from the record itself, and the
// principal's name is free text too.
func (m *maker) scrubHistory(h *History) {
	for i := range h.Findings {
		f := &h.Findings[i]
		f.Value, _ = m.opts.Secrets.Value(f.Value)
		f.ChangedBy = m.opts.Secrets.String(f.ChangedBy)
	}
	h.Unknown = m.opts.Secrets.String(h.Unknown)
}

// maySendAgain is, for a value Azure holds that the body omits, whether
// the manifests may have sent it at azk's last write and dropped it since:
// then the PUT resets it as the manifests mean, and it is no default. A
// three-way plan knows from the base (the manifests as last applied); a
// drift report proposes nothing, so what it leaves out decides nothing;
// any other plan cannot tell, so nothing is a default there.
func (m *maker) maySendAgain(st *nodeState) func(path string) bool {
	switch d := st.baseDiff; {
	case m.opts.Drift:
		return func(string) bool { return false }
	case !m.threeWay() || !d.inBase || d.whole:
		return func(string) bool { return true }
	default:
		return func(path string) bool {
			return slices.ContainsFunc(d.paths, func(p string) bool { return history.Touches(p, path) })
		}
	}
}

// classifiable reports the decisions whose values the history classifies:
// those of a resource kept in Azure, compared with the manifests.
func classifiable(a Action) bool {
	switch a {
	case ActionUpdate, ActionNoChange, ActionSkip:
		return true
	}
	return false
}

func azureOnlyPaths(r *Resource) []string {
	paths := make([]string, len(r.AzureOnly))
	for i, v := range r.AzureOnly {
		paths[i] = v.Path
	}
	return paths
}

// differences are r's changes the history can tell about: not a secret
// (never compared) nor a value known only after apply.
func differences(r *Resource, threeWay bool) []history.Difference {
	var out []history.Difference
	for _, c := range r.Changes {
		if c.Sensitive || c.Unknown {
			continue
		}
		out = append(out, history.Difference{Path: c.Path, Azure: c.Before, HasBase: threeWay, SinceBase: c.Origin == OriginChange})
	}
	return out
}

// verdictOf applies a verdict to r, whose Azure body is current: defaults
// leave AzureOnly, what Azure keeps leaves Changes (an update left with no
// change is none), and every class is recorded. A value the manifests
// may have sent before (sentBefore) is no default: it keeps no class.
func verdictOf(r *Resource, current map[string]any, sentBefore func(path string) bool, v history.Verdict) *History {
	h := &History{Unknown: v.Unknown, Since: v.Since}
	class := map[string]history.Finding{}
	for _, f := range v.Findings {
		class[f.Path] = f
	}
	var azureOnly []PathValue
	for _, pv := range r.AzureOnly {
		f, ok := class[pv.Path]
		if !ok || f.Class == history.Default && sentBefore(pv.Path) {
			azureOnly = append(azureOnly, pv)
			continue
		}
		h.Findings = append(h.Findings, finding(f, pv.Value, pv.Sensitive))
		if f.Class == history.Default {
			h.Defaults = append(h.Defaults, pv)
		} else {
			azureOnly = append(azureOnly, pv)
		}
	}
	r.AzureOnly = azureOnly
	var changes []Change
	for _, c := range r.Changes {
		f, ok := class[c.Path]
		if !ok || c.Sensitive || c.Unknown {
			changes = append(changes, c)
			continue
		}
		h.Findings = append(h.Findings, finding(f, c.Before, false))
		if f.Class == history.AzureKeeps {
			h.Keeps = append(h.Keeps, c)
		} else {
			changes = append(changes, c)
		}
	}
	r.Changes = changes
	for _, f := range v.Outside {
		value, held := valueAt(current, f.Path)
		if !held && f.New != "" {
			value = f.New
		}
		h.Findings = append(h.Findings, finding(f, value, false))
	}
	if len(h.Keeps) > 0 && r.Action == ActionUpdate && r.Reason == ReasonChanged && !compared(changes) {
		r.Action, r.Reason, r.Changes, r.AzureOnly = ActionNoChange, ReasonMatches, nil, nil
		r.Kept, r.Reflected = nil, nil
	}
	return h
}

// compared reports a change the plan compared (a secret's is not).
func compared(changes []Change) bool {
	for _, c := range changes {
		if !c.Sensitive {
			return true
		}
	}
	return false
}

func finding(f history.Finding, value any, sensitive bool) HistoryFinding {
	out := HistoryFinding{Path: f.Path, Class: f.Class}
	if !sensitive {
		out.Value = value
	}
	if f.By != nil {
		at := f.By.Timestamp
		out.ChangedBy, out.ClientType, out.Timestamp, out.Operation = f.By.ChangedBy, f.By.ClientType, &at, f.By.Operation
	}
	return out
}

// valueAt is the value of body at a change record's leaf path
// ("properties.networkAcls.ipRules[0].value"), and whether body holds one.
func valueAt(body map[string]any, path string) (any, bool) {
	var at any = body
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		m, ok := at.(map[string]any)
		if !ok {
			return nil, false
		}
		if at, ok = m[name]; !ok {
			return nil, false
		}
		for rest != "" {
			index, after, _ := strings.Cut(rest, "]")
			rest = strings.TrimPrefix(after, "[")
			list, ok := at.([]any)
			i, err := strconv.Atoi(index)
			if !ok || err != nil || i < 0 || i >= len(list) {
				return nil, false
			}
			at = list[i]
		}
	}
	return at, true
}
