package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// A replacement carries through the graph, as Terraform's does: what a
// replaced resource exports (status values in config maps, Secrets) is
// known only once it is created again, so each resource that reads such a
// value sends the new one. Where Azure accepts the property only at
// creation (createOnlyChanges), the reader is replaced too, in the same
// chain: apply deletes it before the resource it reads from and creates it
// again after; otherwise it is updated once that resource is created.
const (
	// ReasonInputReplaced: replace, a value it sends comes from a resource
	// this plan replaces (see Resource.ReplacedInputs), and Azure accepts
	// that property only at creation.
	ReasonInputReplaced Reason = "replace_because_input_replaced"
	// ReasonInputReplacedUpdate: update, a value it sends comes from a
	// resource this plan replaces: the PUT sends the new value, read once
	// that resource is created again.
	ReasonInputReplacedUpdate Reason = "update_because_input_replaced"
)

// ReplacedInput is a value of a resource's body that another resource this
// plan replaces exports.
type ReplacedInput struct {
	// Path is where the body holds it; From is the replaced resource's address.
	Path string `json:"path"`
	From string `json:"from"`
	// CreateOnly is, when Azure accepts the property only at creation,
	// where that fact comes from (CreateOnlyChange.Source).
	CreateOnly string `json:"createOnly,omitempty"`
}

// replacedProducers are the resources whose config maps or Secrets n reads
// that this plan replaces, each with the ARM ID whose DELETE removes it:
// its own, or that of the replaced owner ARM deletes it with. They were
// decided before n (decisionOrder).
func (m *maker) replacedProducers(n *graph.Node) map[*graph.Node]string {
	var out map[*graph.Node]string
	for _, e := range n.Edges {
		if (e.Kind != graph.EdgeConfigMap && e.Kind != graph.EdgeSecret) || e.To == nil {
			continue
		}
		ps := m.states[e.To]
		if ps == nil || ps.decision == nil || ps.decision.Action != ActionRecreate {
			continue
		}
		deleted := ps.decision.ARMID
		if root := m.replacedOwner(e.To); root != nil {
			deleted = root.ARMID
		}
		if out == nil {
			out = map[*graph.Node]string{}
		}
		out[e.To] = deleted
	}
	return out
}

// nameFromReplaced is the replaced resource whose status gives n its Azure
// name (azureNameFromConfig), nil when there is none: replacing it renames
// n, another resource in ARM's eyes.
func (m *maker) nameFromReplaced(n *graph.Node) *graph.Node {
	// The edge, not NameSource: that is cleared once the name is known.
	for _, e := range n.Edges {
		if e.Kind != graph.EdgeConfigMap || e.Field != "spec.azureNameFromConfig" || e.To == nil {
			continue
		}
		if _, replaced := m.replacedProducers(n)[e.To]; replaced {
			return e.To
		}
	}
	return nil
}

// sourcesAfterReplacing are what converting n reads once the replaced
// resources are deleted: their exported values unknown, and nothing under
// the ARM IDs deleted (theirs, and deleted when n itself is replaced).
func (m *maker) sourcesAfterReplacing(st *nodeState, n *graph.Node, producers map[*graph.Node]string, deleted string) convert.Sources {
	src := m.sources(st, n)
	gone := []string{}
	if deleted != "" {
		gone = append(gone, strings.ToLower(deleted))
	}
	for _, id := range producers {
		gone = append(gone, strings.ToLower(id))
	}
	status, manual, get := src.Status, src.ManualConfig, src.Get
	src.Status = func(from *graph.Node) map[string]any {
		if _, replaced := producers[from]; replaced {
			return nil
		}
		return status(from)
	}
	src.ManualConfig = func(from *graph.Node, name string) (string, bool, error) {
		if _, replaced := producers[from]; replaced {
			return "", false, nil
		}
		return manual(from, name)
	}
	src.Get = func(id, apiVersion string) (map[string]any, error) {
		l := strings.ToLower(id)
		for _, g := range gone {
			if l == g || strings.HasPrefix(l, g+"/") {
				return nil, nil // deleted before the PUT
			}
		}
		return get(id, apiVersion)
	}
	return src
}

// readReplacedInputs builds st's body again, before it is decided, when a
// resource whose exported values it reads is replaced: those values become
// unknown, so the comparison shows them as known after apply, and apply
// reads them from the new resource.
func (m *maker) readReplacedInputs(st *nodeState) {
	if st.request == nil || m.opts.Drift {
		return
	}
	producers := m.replacedProducers(st.node)
	if len(producers) == 0 {
		return
	}
	st.request, st.diags = convert.Convert(m.g, st.node, m.sourcesAfterReplacing(st, st.node, producers, ""))
	st.replacedInputs = replacedInputPaths(st.request.Body, producers)
}

// replacedInputPaths lists the values of body still unknown because one of
// producers is replaced, by path.
func replacedInputPaths(body map[string]any, producers map[*graph.Node]string) []ReplacedInput {
	var out []ReplacedInput
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case convert.Unknown:
			if from := producerOf(t, producers); from != nil {
				out = append(out, ReplacedInput{Path: path, From: from.Address()})
			}
		case map[string]any:
			for k, e := range t {
				walk(armjson.JoinKey(path, k), e)
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", body)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// producerOf is the replaced resource an unknown value waits for: the one
// whose config map or Secret it is read from.
func producerOf(u convert.Unknown, producers map[*graph.Node]string) *graph.Node {
	if _, ok := producers[u.ExportedBy]; ok && u.ExportedBy != nil {
		return u.ExportedBy
	}
	return nil
}

// replacedByInputs reports whether r, which exists and is neither named by
// -replace nor under a replaced owner, must be replaced because a value it
// reads from a replaced resource is one Azure accepts only at creation. It
// records r's replaced inputs either way: without such a value, r is
// updated (see ReasonInputReplacedUpdate).
func (m *maker) replacedByInputs(st *nodeState, r *Resource) bool {
	if len(st.replacedInputs) == 0 {
		return false
	}
	r.ReplacedInputs = slices.Clone(st.replacedInputs)
	if r.Policy.Value == graph.PolicySkip {
		r.Notes = append(r.Notes, fmt.Sprintf("%s is replaced, and reconcile-policy skip never writes this one: it keeps the values it read from the old one", strings.Join(inputsFrom(r), ", ")))
		return false
	}
	rules := bodydiff.For(st.node.Kind)
	createOnly := false
	for _, c := range m.createOnlyChanges(st.node, r.Desired, st.current) {
		for i, in := range r.ReplacedInputs {
			p, err := armjson.ParsePath(in.Path)
			if err != nil {
				continue
			}
			if schema := rules.SchemaOf(p); atOrUnder(schema, c.Path) || atOrUnder(c.Path, schema) {
				r.ReplacedInputs[i].CreateOnly = c.Source
				createOnly = true
			}
		}
	}
	return createOnly
}

// atOrUnder reports whether the schema path is parent's or inside it.
func atOrUnder(schema, parent string) bool {
	rest, ok := strings.CutPrefix(schema, parent)
	return ok && (rest == "" || strings.ContainsRune(".[{", rune(rest[0])))
}

// inputsCause says why r is replaced with the resources it reads from.
func inputsCause(r *Resource) string {
	var parts []string
	for _, in := range r.ReplacedInputs {
		if in.CreateOnly != "" {
			parts = append(parts, fmt.Sprintf("%s comes from %s, which is replaced, and Azure accepts it only at creation (%s)", in.Path, in.From, in.CreateOnly))
		}
	}
	return strings.Join(parts, "; ")
}

// inputsFrom are the distinct addresses r's replaced inputs come from.
func inputsFrom(r *Resource) []string {
	var out []string
	for _, in := range r.ReplacedInputs {
		if !slices.Contains(out, in.From) {
			out = append(out, in.From)
		}
	}
	return out
}

// noteReplacedReaders tells, on each replaced resource, which resources
// read what it exports and what becomes of them: the chain, seen from its
// start.
func noteReplacedReaders(p *Plan) {
	byAddress := map[string]*Resource{}
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	for _, r := range p.Resources {
		var fate string
		switch {
		case len(r.ReplacedInputs) == 0:
			continue
		case r.Reason == ReasonInputReplaced:
			fate = "is replaced too: deleted before it, created again after it"
		case r.Reason == ReasonInputReplacedUpdate:
			fate = "is updated with the new values once it is created again"
		default:
			continue
		}
		for _, from := range inputsFrom(r) {
			if producer := byAddress[from]; producer != nil {
				producer.Notes = append(producer.Notes, fmt.Sprintf("%s reads what it exports, and %s", r.Address, fate))
			}
		}
	}
}
