package deployment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// root is one top-level deployment: the chunks of one subscription (or the
// tenant) that fit one template, the first of its own scope inline and the
// rest as nested deployments, so that ARM runs them all server-side.
type root struct {
	family Scope // the subscription, or the tenant
	chunks []*chunk
	after  map[*root]bool
	bytes  int
	params int

	maxResources int
	scope        Scope
	template     *Template
}

// pack puts the chunks, in order, into as few roots as ARM's limits allow.
// A chunk joins the open root of its subscription unless that would exceed a
// limit or make two roots wait for each other.
func pack(chunks []*chunk, opts Options) []*root {
	open := map[Scope]*root{}
	var roots []*root
	for _, c := range chunks {
		fam := Scope{Subscription: c.scope.Subscription}
		r := open[fam]
		if r != nil && !r.fits(c, opts) {
			r = nil
		}
		if r == nil {
			r = &root{family: fam, after: map[*root]bool{}, maxResources: opts.MaxResources}
			open[fam] = r
			roots = append(roots, r)
		}
		r.chunks = append(r.chunks, c)
		c.root = r
		r.bytes += c.bytes
		r.params += c.secrets
		for _, d := range c.deps {
			if d.root != r {
				r.after[d.root] = true
			}
		}
	}
	return ordered(roots)
}

// fits reports whether c can join r: within the limits of one template
// (each chunk at most one resource of r, its nested deployment), and
// without a dependency on a root that waits for r.
func (r *root) fits(c *chunk, opts Options) bool {
	if len(r.chunks)+1 > opts.MaxResources || r.bytes+c.bytes > opts.MaxBytes || r.params+c.secrets > maxParameters {
		return false
	}
	for _, d := range c.deps {
		if d.root != r && d.root.waitsFor(r, map[*root]bool{}) {
			return false
		}
	}
	return true
}

func (r *root) waitsFor(other *root, seen map[*root]bool) bool {
	if r == other {
		return true
	}
	if seen[r] {
		return false
	}
	seen[r] = true
	for a := range r.after {
		if a.waitsFor(other, seen) {
			return true
		}
	}
	return false
}

// ordered sorts roots so that each comes after those it waits for, keeping
// their order otherwise.
func ordered(roots []*root) []*root {
	var out []*root
	done := map[*root]bool{}
	var visit func(*root)
	visit = func(r *root) {
		if done[r] {
			return
		}
		done[r] = true
		deps := make([]*root, 0, len(r.after))
		for _, rt := range roots {
			if r.after[rt] {
				deps = append(deps, rt)
			}
		}
		for _, d := range deps {
			visit(d)
		}
		out = append(out, r)
	}
	for _, r := range roots {
		visit(r)
	}
	return out
}

// render writes the root's template. A root of one chunk is that chunk's
// template at its own scope. Otherwise the root deploys at the scope all
// its chunks share, else at the subscription's; chunks of that scope are
// inline while the resource count allows, the others nested deployments
// (inner-scoped, so each reads its own parameters) that depend on one
// another as their resources do.
func (r *root) render() (*Template, error) {
	t := &Template{}
	var all []*item
	for _, c := range r.chunks {
		all = append(all, c.items...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].pos < all[j].pos })
	for _, it := range all {
		t.Resources = append(t.Resources, it.r)
		t.secrets = append(t.secrets, it.secrets...)
		if it.late != nil {
			if t.namedLater == nil {
				t.namedLater = map[*planner.Resource]string{}
			}
			t.namedLater[it.r] = strings.ToLower(strings.TrimSuffix(it.id.String(), latePlaceholder))
		}
	}
	r.scope = r.family
	if shared := r.chunks[0].scope; r.allIn(shared) {
		r.scope = shared
	}
	t.Scope = r.scope
	own := len(r.chunks)
	for i, c := range r.chunks {
		if c.scope == r.scope && !c.late() && own-1+len(c.items) <= r.maxResources {
			own += len(c.items) - 1
		} else {
			c.nested = true
			c.suffix = i + 1
		}
	}
	var resources []any
	var outputs object
	for _, c := range r.chunks {
		if c.nested {
			continue
		}
		for _, it := range c.items {
			entry, err := resourceEntry(it, r.scope, it.body, r.dependsOn(it.deps, r.scope))
			if err != nil {
				return nil, err
			}
			resources = append(resources, entry)
		}
		outputs = append(outputs, chunkOutputs(c)...)
	}
	for _, c := range r.chunks {
		if !c.nested {
			continue
		}
		entry, err := r.nestedEntry(c)
		if err != nil {
			return nil, err
		}
		resources = append(resources, entry)
	}
	t.doc = document(r.scope, t.secrets, resources, outputs)
	if r.scope.ResourceGroup == "" {
		t.Location = locationOf(t.Resources)
	}
	size, err := json.Marshal(t.doc)
	if err != nil {
		return nil, err
	}
	if len(size) > maxBytes+64<<10 {
		return nil, fmt.Errorf("the template for %s is %d bytes, over ARM's 4 MB", r.scope, len(size))
	}
	return t, nil
}

// late reports whether c carries a resource named after apply: it must be
// a nested deployment, which receives the name as a parameter.
func (c *chunk) late() bool {
	for _, it := range c.items {
		if it.late != nil {
			return true
		}
	}
	return false
}

func (r *root) allIn(s Scope) bool {
	for _, c := range r.chunks {
		if c.scope != s {
			return false
		}
	}
	return true
}

// dependsOn is the dependsOn of a resource of r's template at scope s:
// its dependencies in the same template, and for those in a nested
// deployment, that deployment.
func (r *root) dependsOn(deps []*item, s Scope) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range deps {
		if d.chunk.root != r {
			continue // another root, which this one runs after
		}
		var ref string
		if d.chunk.nested {
			ref = r.nestedID(d.chunk)
		} else {
			ref = idExpr(d.id, s)
		}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, "["+ref+"]")
		}
	}
	return out
}

// nestedName is the expression naming c's nested deployment: the root
// deployment's name and the chunk's suffix, unique per run.
func nestedName(c *chunk) string {
	return fmt.Sprintf("concat(deployment().name, '-%d')", c.suffix)
}

// nestedID is the expression for the ARM ID of c's nested deployment, from r's template.
func (r *root) nestedID(c *chunk) string {
	const typ = "'Microsoft.Resources/deployments'"
	switch {
	case c.scope.ResourceGroup != "" && r.scope.ResourceGroup == "":
		return fmt.Sprintf("resourceId(%s, %s, %s)", quote(c.scope.ResourceGroup), typ, nestedName(c))
	case r.scope.ResourceGroup != "":
		return fmt.Sprintf("resourceId(%s, %s)", typ, nestedName(c))
	case r.scope.Subscription != "":
		return fmt.Sprintf("subscriptionResourceId(%s, %s)", typ, nestedName(c))
	}
	return fmt.Sprintf("tenantResourceId(%s, %s)", typ, nestedName(c))
}

// nestedEntry is the nested deployment carrying chunk c.
func (r *root) nestedEntry(c *chunk) (object, error) {
	var resources []any
	var secrets []secret
	for _, it := range c.items {
		var deps []string
		for _, d := range it.deps {
			if d.chunk == c {
				deps = append(deps, "["+idExpr(d.id, c.scope)+"]")
			}
		}
		entry, err := resourceEntry(it, c.scope, it.body, deps)
		if err != nil {
			return nil, err
		}
		resources = append(resources, entry)
		secrets = append(secrets, it.secrets...)
	}
	var outer []*item
	for _, it := range c.items {
		for _, d := range it.deps {
			if d.chunk != c {
				outer = append(outer, d)
			}
		}
	}
	o := object{{"type", "Microsoft.Resources/deployments"}, {"apiVersion", APIVersion}, {"name", "[" + nestedName(c) + "]"}}
	if c.scope.ResourceGroup != "" && r.scope.ResourceGroup == "" {
		o = append(o, member{"resourceGroup", c.scope.ResourceGroup})
	}
	if c.scope.ResourceGroup == "" {
		var rs []*planner.Resource
		for _, it := range c.items {
			rs = append(rs, it.r)
		}
		o = append(o, member{"location", locationOf(rs)})
	}
	if deps := r.dependsOn(outer, r.scope); len(deps) > 0 {
		o = append(o, member{"dependsOn", deps})
	}
	params := object{}
	for _, s := range secrets {
		params = append(params, member{s.name, object{{"value", "[parameters(" + quote(s.name) + ")]"}}})
	}
	inner := document(c.scope, secrets, resources, chunkOutputs(c))
	for _, it := range c.items {
		if it.late == nil {
			continue
		}
		params = append(params, member{it.late.param, object{{"value", "[" + referenceExpr(it.late.from.id, it.late.from.apiVersion, it.late.path, r.scope) + "]"}}})
		declared := inner.get("parameters").(object)
		inner[2].Value = append(declared, member{it.late.param, object{{"type", "string"}, {"metadata", object{{"description", it.late.description}}}}})
	}
	props := object{
		{"mode", "Incremental"},
		{"expressionEvaluationOptions", object{{"scope", "inner"}}},
		{"parameters", params},
		{"template", inner},
	}
	return append(o, member{"properties", props}), nil
}

// document is a template: schema, content version, secureString
// parameters, resources and outputs.
func document(s Scope, secrets []secret, resources []any, outputs object) object {
	params := object{}
	for _, sec := range secrets {
		params = append(params, member{sec.name, object{{"type", "secureString"}, {"metadata", object{{"description", sec.description}}}}})
	}
	if resources == nil {
		resources = []any{}
	}
	if outputs == nil {
		outputs = object{}
	}
	return object{
		{"$schema", s.schema()},
		{"contentVersion", "1.0.0.0"},
		{"parameters", params},
		{"resources", resources},
		{"outputs", outputs},
	}
}

// chunkOutputs are the config-map values the chunk's resources export, as
// the operator would write them (operatorSpec.configMaps): named
// configMap_key, read with reference() once the deployment has run. ARM
// allows 64 outputs; the rest are left out.
func chunkOutputs(c *chunk) object {
	var out object
	names := map[string]int{}
	for _, it := range c.items {
		n := it.r.Node
		if n == nil || n.Kind == nil {
			continue
		}
		for _, e := range n.Exports {
			if e.Key == "" {
				continue
			}
			path, ok := exportedPath(n, e.ConfigMap, e.Key)
			if !ok || len(out) >= maxOutputs {
				continue
			}
			out = append(out, member{uniqueName(e.ConfigMap+"_"+e.Key, names), object{{"type", "string"}, {"value", "[" + referenceExpr(it.id, it.apiVersion, path, c.scope) + "]"}}})
		}
	}
	return out
}

// locationOf is where a subscription or tenant deployment keeps its
// metadata: the first regional location among the resources it deploys.
func locationOf(rs []*planner.Resource) string {
	for _, r := range rs {
		if l, _ := desired(r)["location"].(string); l != "" && !strings.EqualFold(l, "global") {
			return l
		}
	}
	return "eastus"
}

func marshalIndent(v any) ([]byte, error) {
	data, err := marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
