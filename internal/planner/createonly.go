package planner

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
)

// CreateOnlyChange is a difference at a property Azure accepts only when
// the resource is created: a PUT that changes it is refused, so the
// resource must be deleted and created again (-replace).
type CreateOnlyChange struct {
	// Path is the create-only property's ARM body path (list items as "[]",
	// map values as "{}"), e.g. "location", "properties.resource.partitionKey".
	Path string
	// Have is Azure's value, Want the one azk sends (convert.Unknown when it
	// is known only after a dependency is applied).
	Have, Want any
	// Source says where the fact that the property is create-only comes from.
	Source string
}

// Sources of create-only facts that the planner names itself; the others
// are the registry's (registry.CreateOnly.Sources).
const (
	// CreateOnlyLocation: ARM never moves a resource to another region.
	CreateOnlyLocation = registry.CreateOnlyFromLocation
	// CreateOnlyAnnotation: the resource's own annotation says so.
	CreateOnlyAnnotation = "annotation " + graph.AnnotationReplaceOnChange
)

// createOnlyFact is one property of a resource that Azure accepts only at creation.
type createOnlyFact struct {
	// schema is the property's schema path (list items "[]", map values
	// "{}"); exact, when set, is the annotation's path, which may name list items.
	schema string
	exact  armjson.Path
	source string
}

// createOnlyFacts lists the create-only properties of n: its kind's, then
// those its replace-on-change annotation adds.
func createOnlyFacts(n *graph.Node) []createOnlyFact {
	var facts []createOnlyFact
	for _, c := range n.Kind.CreateOnly {
		facts = append(facts, createOnlyFact{schema: c.Path, source: n.Kind.CreateOnlySource(c)})
	}
	for _, p := range n.ReplaceOnChange {
		facts = append(facts, createOnlyFact{schema: p.String(), exact: p, source: CreateOnlyAnnotation})
	}
	return facts
}

// createOnlyChanges lists the create-only properties of n whose value in
// the body azk sends (desired) differs from Azure's (current), as the
// kind's comparison rules judge it (locations, IDs and enums compare as
// ARM does). Secrets are never compared after creation (bodydiff), so
// never listed.
func (m *maker) createOnlyChanges(n *graph.Node, desired, current map[string]any) []CreateOnlyChange {
	if current == nil || n.Kind == nil {
		return nil
	}
	facts := createOnlyFacts(n)
	if len(facts) == 0 {
		return nil
	}
	rules := bodydiff.For(n.Kind)
	var out []CreateOnlyChange
	seen := map[int]bool{}
	for _, c := range rules.Diff(desired, current) {
		p, err := armjson.ParsePath(c.Path)
		if err != nil {
			continue
		}
		schema := rules.SchemaOf(p)
		for i, f := range facts {
			if seen[i] || !f.covers(schema, p) {
				continue
			}
			seen[i] = true
			have, want := c.Before, c.After
			if whole := f.whole(); whole != nil {
				// The whole property, not only the item or key that differs.
				have, _ = whole.Get(current)
				want, _ = whole.Get(desired)
			}
			out = append(out, CreateOnlyChange{Path: f.schema, Have: have, Want: want, Source: f.source})
		}
	}
	return out
}

// CreateOnlyFactAt is the kind's create-only fact that covers a change at
// body path (as plans print it), or nil.
func CreateOnlyFactAt(k *registry.Kind, path string) *registry.CreateOnly {
	p, err := armjson.ParsePath(path)
	if err != nil {
		return nil
	}
	schema := bodydiff.For(k).SchemaOf(p)
	for i := range k.CreateOnly {
		if (createOnlyFact{schema: k.CreateOnly[i].Path}).covers(schema, p) {
			return &k.CreateOnly[i]
		}
	}
	return nil
}

// covers reports whether a change at body path p (schema path schema) is
// at the fact's property or inside it.
func (f createOnlyFact) covers(schema string, p armjson.Path) bool {
	if f.exact == nil {
		rest, ok := strings.CutPrefix(schema, f.schema)
		return ok && (rest == "" || strings.ContainsRune(".[{", rune(rest[0])))
	}
	if len(p) < len(f.exact) {
		return false
	}
	for i, st := range f.exact {
		if st.Item != p[i].Item || !strings.EqualFold(st.Key, p[i].Key) {
			return false
		}
	}
	return true
}

// whole is the path of the fact's property in a body, when it names one
// property (not every item of a list or value of a map).
func (f createOnlyFact) whole() armjson.Path {
	if f.exact != nil {
		return f.exact
	}
	if strings.ContainsAny(f.schema, "[]{}") {
		return nil
	}
	p, err := armjson.ParsePath(f.schema)
	if err != nil {
		return nil
	}
	return p
}

// replaceReasons lists the changes Azure cannot make in place, each with
// where the fact comes from. azk deletes to create again only when asked
// (-replace=address), so each is an error.
func (m *maker) replaceReasons(n *graph.Node, desired, current map[string]any) []string {
	var reasons []string
	for _, c := range m.createOnlyChanges(n, desired, current) {
		reasons = append(reasons, ReplaceReason(n.Address(), c))
	}
	return reasons
}

// ReplaceReason says why a create-only change needs a replacement, and
// how to make it.
func ReplaceReason(address string, c CreateOnlyChange) string {
	recipe := fmt.Sprintf("-replace=%s deletes it and creates it again (with what ARM deletes with it), --allow-partial applies the rest", address)
	if c.Source == CreateOnlyLocation {
		return fmt.Sprintf("location: Azure has %q, the manifest says %q; Azure cannot move it in place: %s", c.Have, c.Want, recipe)
	}
	return fmt.Sprintf("%s: Azure has %s, the manifest says %s; Azure accepts it only at creation (%s): %s",
		c.Path, bodydiff.Format(c.Have), bodydiff.Format(c.Want), c.Source, recipe)
}
