package planner

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// A drift policy decides, for a resource that exists, what the PUT does with
// the values Azure holds that the manifests do not say (graph.AnnotationDrift,
// --drift-policy): enforce sends the manifests' body alone, as the operator
// does; merge lays it over what Azure holds, so that only the fields the
// manifests set change; reflect keeps Azure's values wherever Azure differs,
// and azk refresh writes them into the manifests.

// Where a drift policy came from (Resource.DriftPolicy.Source).
const (
	DriftSourceAnnotation = "annotation " + graph.AnnotationDrift
	DriftSourceFlag       = "flag --drift-policy"
)

// driftSourceNamespace is the source of a drift policy set on the resource's Namespace.
func driftSourceNamespace(namespace string) string {
	return DriftSourceAnnotation + " on Namespace " + namespace
}

// ResolveDriftPolicy is the drift policy in force for n: its own
// annotation, else its Namespace's, else flag (--drift-policy), else enforce.
func ResolveDriftPolicy(g *graph.Graph, n *graph.Node, flag string) Policy {
	if v, ok := n.Object.Node.GetAnnotations()[graph.AnnotationDrift]; ok {
		return Policy{Value: v, Source: DriftSourceAnnotation}
	}
	if v, ok := g.NamespaceDrift(n); ok {
		return Policy{Value: v, Source: driftSourceNamespace(n.Object.Namespace)}
	}
	if flag != "" {
		return Policy{Value: flag, Source: DriftSourceFlag}
	}
	return Policy{Value: graph.DriftEnforce, Source: PolicySourceDefault}
}

// carried is a value the plan put into a resource's body from Azure (or
// took out, where Azure has none): what a body built again at apply must
// carry as well (Resource.CarryAzure).
type carried struct {
	path string
	// value is Azure's value as the plan shows it, scrubbed of the run's
	// secrets; azure is it as read, which apply sends back.
	value, azure any
	remove       bool
	// ignored marks a path of the ignore-changes annotation.
	ignored bool
}

// CarryAzure puts into body, a request body built again from the manifests
// at apply (once values known only after apply are known), the values the
// plan carries from Azure: at ignore-changes paths, those a merge keeps and
// those reflected. Apply so sends what the plan showed.
func (r *Resource) CarryAzure(body map[string]any) {
	for _, c := range r.carried {
		if c.remove {
			removeAt(body, c.path)
		} else {
			setAt(body, c.path, deepCopy(c.azure))
		}
	}
}

// applyDriftPolicy records r's drift policy and applies it to its body:
// under merge and reflect the body then carries Azure's values, and the
// comparison returned is of that body with Azure's. A drift report
// (Options.Drift) compares the manifests as they are.
func (m *maker) applyDriftPolicy(r *Resource, st *nodeState, d *bodydiff.Rules, compared bodydiff.Comparison) bodydiff.Comparison {
	p := ResolveDriftPolicy(m.g, st.node, m.opts.DriftPolicy)
	r.DriftPolicy = &p
	for _, ip := range st.node.IgnoreChanges {
		if v, ok := ip.Get(st.current); ok && v != nil {
			r.carried = append(r.carried, carried{path: ip.String(), value: deepCopy(v), azure: azureAt(st, ip.String(), v), ignored: true})
		} else {
			r.carried = append(r.carried, carried{path: ip.String(), remove: true, ignored: true})
		}
	}
	if m.opts.Drift {
		return compared
	}
	var body map[string]any
	switch p.Value {
	case graph.DriftMerge:
		body = m.merge(r, st, compared)
	case graph.DriftReflect:
		body = m.reflect(r, st, d, compared)
	}
	if body == nil {
		return mergeResets(p, compared, compared)
	}
	r.Desired = body
	if st.request != nil {
		st.request.Body = body
	}
	return mergeResets(p, compared, d.Compare(body, st.current))
}

// mergeResets adds to what a merge's PUT may reset (AzureOnly) the values Azure
// holds that no PUT of the kind can carry (bodydiff.ReasonUnknownToAPI):
// a merge keeps everything else.
func mergeResets(p Policy, before, after bodydiff.Comparison) bodydiff.Comparison {
	if p.Value != graph.DriftMerge {
		return after
	}
	for _, v := range before.Unexpressed {
		if v.Reason == bodydiff.ReasonUnknownToAPI {
			after.AzureOnly = append(after.AzureOnly, v)
		}
	}
	return after
}

// merge is r's body laid over what Azure holds (nil when Azure holds
// nothing more): each value the PUT would reset (bodydiff.Comparison.AzureOnly) and
// each tag it would remove is set to Azure's, and listed in r.Kept. Only
// paths a PUT can set are taken: those the kind's spec carries to ARM, not
// read-only in the REST specification, no secrets (see differ.canSet), and
// those the spec has no field for that a PUT of the api-version accepts
// (bodydiff.ReasonUnexpressed, listed with that reason). In a three-way
// plan, a value this change removed from the manifests is not kept: the
// PUT resets it, as the change means.
func (m *maker) merge(r *Resource, st *nodeState, compared bodydiff.Comparison) map[string]any {
	for _, v := range compared.AzureOnly {
		if !m.removedByChange(st, v.Path) {
			r.Kept = append(r.Kept, v)
		}
	}
	for _, v := range compared.Unexpressed {
		if v.Reason == bodydiff.ReasonUnexpressed {
			r.Kept = append(r.Kept, v)
		}
	}
	for _, c := range compared.Changes {
		if underPath(c.Path, "tags") && c.Before != nil && c.After == nil && !c.Sensitive && !c.Unknown && !m.removedByChange(st, c.Path) {
			r.Kept = append(r.Kept, PathValue{Path: c.Path, Value: c.Before})
		}
	}
	if len(r.Kept) == 0 {
		return nil
	}
	sort.Slice(r.Kept, func(i, j int) bool { return r.Kept[i].Path < r.Kept[j].Path })
	body := deepCopy(r.Desired).(map[string]any)
	for _, v := range r.Kept {
		if setAt(body, v.Path, deepCopy(v.Value)) {
			r.carried = append(r.carried, carried{path: v.Path, value: deepCopy(v.Value), azure: azureAt(st, v.Path, v.Value)})
		}
	}
	return body
}

// reflect is r's body with Azure's value at each path where Azure differs
// from the manifests (nil when it differs nowhere): a change the PUT would
// make, a value it would reset. Each is listed in r.Reflected, for azk
// refresh to write into the manifests. Not reflected: what the manifests
// send as a secret or as a value known only after apply (never compared
// with Azure), a property Azure's object lacks (ARM may not return it:
// bodydiff.Comparison.Lacking), and in a three-way plan what this change sets
// (origin change), which the PUT sends. A difference inside a list of
// unnamed items reflects the whole list, as items have no identity of their own.
func (m *maker) reflect(r *Resource, st *nodeState, d *bodydiff.Rules, compared bodydiff.Comparison) map[string]any {
	var paths []string
	for _, c := range compared.Changes {
		if !c.Sensitive && !c.Unknown {
			paths = append(paths, wholeList(c.Path))
		}
	}
	for _, v := range compared.AzureOnly {
		paths = append(paths, wholeList(v.Path))
	}
	body := deepCopy(r.Desired).(map[string]any)
	for _, s := range outermost(paths) {
		if m.threeWay() && st.baseDiff.origin(s) == OriginChange {
			continue
		}
		p, err := armjson.ParsePath(s)
		if err != nil {
			continue // not a path the manifests can be refreshed at: left a change
		}
		want, set := p.Get(r.Desired)
		if set && holdsLateOrSecret(want) {
			continue
		}
		c := Change{Path: s}
		if set {
			c.After = bodydiff.Shown(want)
		}
		if have, ok := p.Get(st.current); ok && have != nil {
			c.Before = d.SettablePart(d.SchemaOf(p), have)
			p.Set(body, deepCopy(c.Before))
			r.carried = append(r.carried, carried{path: s, value: deepCopy(c.Before), azure: d.SettablePart(d.SchemaOf(p), azureAt(st, s, have))})
		} else {
			p.Delete(body)
			r.carried = append(r.carried, carried{path: s, remove: true})
		}
		r.Reflected = append(r.Reflected, c)
	}
	if len(r.Reflected) == 0 {
		return nil
	}
	return body
}

// removedByChange reports, in a three-way plan, a path this change took out
// of the manifests (the base set it): a merge does not keep Azure's value there.
func (m *maker) removedByChange(st *nodeState, path string) bool {
	return m.threeWay() && st.baseDiff.inBase && !st.baseDiff.whole && st.baseDiff.origin(path) == OriginChange
}

// holdsLateOrSecret reports a value that is, or holds, a secret or a value
// known only after apply.
func holdsLateOrSecret(v any) bool {
	switch t := v.(type) {
	case convert.Sensitive, convert.Unknown, bodydiff.SensitiveDigest:
		return true
	case map[string]any:
		for _, e := range t {
			if holdsLateOrSecret(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if holdsLateOrSecret(e) {
				return true
			}
		}
	}
	return false
}

var positional = regexp.MustCompile(`\[[0-9]+\]`)

// wholeList cuts a path at its first item chosen by position
// ("properties.rules[2].port" is "properties.rules"): the list as a whole.
func wholeList(path string) string {
	if loc := positional.FindStringIndex(path); loc != nil {
		return path[:loc[0]]
	}
	return path
}

// outermost sorts paths and drops repeats and paths inside another.
func outermost(paths []string) []string {
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		inside := false
		for _, o := range out {
			if underPath(p, o) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}

// setAt puts v at path (as plans print paths, items chosen by name or by
// position) in body; false when the body has another shape on the way.
func setAt(body map[string]any, path string, v any) bool {
	parent, rest, ok := positionalParent(body, path)
	if !ok {
		return false
	}
	p, err := armjson.ParsePath(rest)
	if err != nil {
		return false
	}
	return p.Set(parent, v)
}

// azureAt is Azure's value at path as read, before the plan scrubbed it of
// the run's secrets (maker.scrub), as a copy; shown when it is not there.
func azureAt(st *nodeState, path string, shown any) any {
	if parent, rest, ok := positionalParent(st.raw, path); ok {
		if p, err := armjson.ParsePath(rest); err == nil {
			if v, ok := p.Get(parent); ok {
				return deepCopy(v)
			}
		}
	}
	return deepCopy(shown)
}

// removeAt removes the value at path from body, if it is there.
func removeAt(body map[string]any, path string) {
	if parent, rest, ok := positionalParent(body, path); ok {
		if p, err := armjson.ParsePath(rest); err == nil {
			p.Delete(parent)
		}
	}
}

// positionalParent follows the items chosen by position in path
// ("a.list[1].b"), which armjson.Path does not name, and returns the object
// the rest of the path ("b") starts at.
func positionalParent(body map[string]any, path string) (map[string]any, string, bool) {
	for {
		loc := positional.FindStringIndex(path)
		if loc == nil {
			return body, path, true
		}
		p, err := armjson.ParsePath(path[:loc[0]])
		if err != nil {
			return nil, "", false
		}
		list, _ := p.Get(body)
		items, isList := list.([]any)
		i, _ := strconv.Atoi(path[loc[0]+1 : loc[1]-1])
		if !isList || i >= len(items) {
			return nil, "", false
		}
		item, isObject := items[i].(map[string]any)
		rest := strings.TrimPrefix(path[loc[1]:], ".")
		if !isObject || rest == "" {
			return nil, "", false
		}
		body, path = item, rest
	}
}

// settleDriftPolicies keeps the values a merge keeps listed on the
// resources whose PUT is sent: nothing is kept where nothing is written.
func settleDriftPolicies(rs ...*Resource) {
	for _, r := range rs {
		if !r.Writes() {
			r.Kept = nil
		}
	}
}

// Follow are the differences at which r's manifest is to take Azure's
// value (azk refresh): each one reflected (drift policy reflect), and each
// path of the ignore-changes annotation where Azure differs, with Azure's
// value there. Before is Azure's value, absent where Azure has none.
func (r *Resource) Follow() []Change {
	out := append([]Change(nil), r.Reflected...)
	for _, c := range r.carried {
		if !c.ignored {
			continue
		}
		for _, ig := range r.Ignored {
			if underPath(ig.Path, c.path) {
				out = append(out, Change{Path: c.path, Before: c.value})
				break
			}
		}
	}
	return out
}
