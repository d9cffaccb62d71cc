package history

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Class is what the history says of a value Azure holds that the body does
// not set, or of a difference at a path the manifests set.
type Class string

const (
	// Default: set by Azure when the resource was created or by azk's own
	// write, unchanged since. Never "may reset".
	Default Class = "default"
	// ChangedOutside: changed by another principal or client after azk's last write.
	ChangedOutside Class = "changedOutside"
	// AzureKeeps: a path the manifests set, unchanged since the base, whose
	// value Azure set in response to azk's own last write and nobody changed
	// since: not a change.
	AzureKeeps Class = "azureKeeps"
	// Unknown: no record reaches far enough back; today's rules apply.
	Unknown Class = "unknown"
)

// Trail is what Azure's records say of one resource.
type Trail struct {
	// Records are its change records, oldest first.
	Records []Record
	// Writes are its Activity Log writes, oldest first, read only when the
	// change records do not reach back to azk's last write (Reader.Read).
	Writes []Write
}

// Attribution says who changed a value, when and through what.
type Attribution struct {
	ChangedBy  string    `json:"changedBy"`
	ClientType string    `json:"clientType"`
	Timestamp  time.Time `json:"timestamp"`
	Operation  string    `json:"operation"`
}

// Difference is a path the manifests set where Azure's value differs.
type Difference struct {
	Path string
	// Azure is Azure's value, as the plan holds it.
	Azure any
	// SinceBase says the manifests changed this path since the base;
	// HasBase says there is a base to tell (azk plan --base).
	SinceBase, HasBase bool
}

// Finding is the class of one path, with who changed it for ChangedOutside.
type Finding struct {
	Path  string
	Class Class
	By    *Attribution
	// New is the value the change set, as Azure renders it (Outside only).
	New string
}

// Verdict is the classes of one resource's paths.
type Verdict struct {
	// Unknown says why the history cannot tell ("" when it can); every
	// path is then Unknown and today's rules apply.
	Unknown string
	// Since is what the classes are counted from: azk's last write, or the
	// resource's creation when azk never wrote it.
	Since string
	// Findings are the classified paths, in the order given. A difference
	// that is none of the classes (the manifests changed it) is absent.
	Findings []Finding
	// Outside are the leaf paths others changed after Since that neither
	// list names (values the plan does not list, as a provider's defaults
	// are not), each with its latest change: changedOutside all the same,
	// so that no change by another principal goes unsaid.
	Outside []Finding
}

// Classify classifies a resource's paths by its trail: azureOnly are the
// paths of values Azure holds that the body does not set, differences the
// paths the manifests set where Azure differs. own tells azk's correlation
// IDs (arm.IsAzkCorrelationID).
func Classify(t Trail, azureOnly []string, differences []Difference, own func(correlationID string) bool) Verdict {
	window, since, ownWrite, why := windowOf(t, own)
	if why != "" {
		v := Verdict{Unknown: why}
		for _, p := range azureOnly {
			v.Findings = append(v.Findings, Finding{Path: p, Class: Unknown})
		}
		for _, d := range differences {
			v.Findings = append(v.Findings, Finding{Path: d.Path, Class: Unknown})
		}
		return v
	}
	v := Verdict{Since: since}
	named := map[string]bool{}
	for _, p := range azureOnly {
		named[p] = true
		if by := lastOutside(window, p); by != nil {
			v.Findings = append(v.Findings, Finding{Path: p, Class: ChangedOutside, By: by})
		} else {
			v.Findings = append(v.Findings, Finding{Path: p, Class: Default})
		}
	}
	for _, d := range differences {
		named[d.Path] = true
		switch by := lastOutside(window, d.Path); {
		case by != nil:
			v.Findings = append(v.Findings, Finding{Path: d.Path, Class: ChangedOutside, By: by})
		case ownWrite && d.HasBase && !d.SinceBase:
			// The manifests sent this value at azk's last write, Azure
			// answered with its own, and nobody changed it since.
			v.Findings = append(v.Findings, Finding{Path: d.Path, Class: AzureKeeps})
		}
	}
	v.Outside = outsideUnnamed(window, named)
	return v
}

// outsideUnnamed are the latest changes in window at leaf paths that no
// path of named touches, by path.
func outsideUnnamed(window []Record, named map[string]bool) []Finding {
	latest := map[string]Finding{}
	for _, r := range window {
	leaves:
		for p, c := range r.Changes {
			for n := range named {
				if Touches(p, n) {
					continue leaves
				}
			}
			latest[p] = Finding{Path: p, Class: ChangedOutside, By: attribution(r), New: c.New}
		}
	}
	paths := make([]string, 0, len(latest))
	for p := range latest {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]Finding, 0, len(paths))
	for _, p := range paths {
		out = append(out, latest[p])
	}
	return out
}

// windowOf is the records after the point the classes count from (azk's
// last write, else the resource's creation), what that point is, whether it
// is azk's write, or why no record reaches back to one.
func windowOf(t Trail, own func(string) bool) (window []Record, since string, ownWrite bool, why string) {
	for i := len(t.Records) - 1; i >= 0; i-- {
		r := t.Records[i]
		if own(r.CorrelationID) && !strings.EqualFold(r.ChangeType, "Delete") {
			return t.Records[i+1:], "azk's last write at " + stamp(r.Timestamp), true, ""
		}
	}
	// azk's last write is older than the change records, or azk never wrote it.
	for i := len(t.Writes) - 1; i >= 0; i-- {
		w := t.Writes[i]
		if !own(w.CorrelationID) {
			continue
		}
		for _, later := range t.Writes[i+1:] {
			if !recorded(t.Records, later) {
				return nil, "", false, fmt.Sprintf("%s wrote it at %s, after azk's last write (%s), and no change record reaches back to say what changed", orUnnamed(later.Caller), stamp(later.Timestamp), stamp(w.Timestamp))
			}
		}
		return t.Records, "azk's last write at " + stamp(w.Timestamp) + " (Activity Log)", true, ""
	}
	if len(t.Records) > 0 && strings.EqualFold(t.Records[0].ChangeType, "Create") {
		first := t.Records[0]
		return t.Records[1:], fmt.Sprintf("its creation by %s at %s", orUnnamed(first.ChangedBy), stamp(first.Timestamp)), false, ""
	}
	return nil, "", false, "no change record or Activity Log event reaches back to azk's last write or the resource's creation"
}

// recorded reports whether a change record stands for the Activity Log's write w.
func recorded(records []Record, w Write) bool {
	for _, r := range records {
		if w.CorrelationID != "" && strings.EqualFold(r.CorrelationID, w.CorrelationID) {
			return true
		}
	}
	return false
}

// lastOutside is the latest change by another than azk in window that
// touches path, nil when none does. window holds no record of azk's.
func lastOutside(window []Record, path string) *Attribution {
	for i := len(window) - 1; i >= 0; i-- {
		r := window[i]
		for p := range r.Changes {
			if Touches(p, path) {
				return attribution(r)
			}
		}
	}
	return nil
}

// Touches reports whether a change record's leaf path and a plan's path
// name the same value, or one holds the other: "properties.a.b[0]" touches
// "properties.a.b" and "properties.a.b[0].c". Property names compare
// without case, as ARM's do.
func Touches(recordPath, path string) bool {
	a, b := strings.ToLower(recordPath), strings.ToLower(path)
	return a == b || within(a, b) || within(b, a)
}

func within(inner, outer string) bool {
	return strings.HasPrefix(inner, outer) && (inner[len(outer)] == '.' || inner[len(outer)] == '[')
}

func attribution(r Record) *Attribution {
	return &Attribution{ChangedBy: r.ChangedBy, ClientType: r.ClientType, Timestamp: r.Timestamp, Operation: r.Operation}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func orUnnamed(principal string) string {
	if principal == "" {
		return "an unnamed principal"
	}
	return principal
}
