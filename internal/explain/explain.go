// Package explain describes ASO kinds and their fields from the registry,
// for people (azk explain, azk api-resources), as kubectl does for the
// resources of a cluster.
package explain

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/suggest"
)

// Kind is one kind at one version, as api-resources lists it.
type Kind struct {
	Group      string   `json:"group"`
	Kind       string   `json:"kind"`
	Version    string   `json:"version"`
	Versions   []string `json:"versions"`
	ARMType    string   `json:"armType,omitempty"`
	APIVersion string   `json:"apiVersion,omitempty"`
	Scope      string   `json:"scope,omitempty"`
	Owners     []string `json:"owners,omitempty"`
}

// Kinds lists every kind at its newest version (by api-version date,
// stable first), sorted by group and kind; group, when set, keeps one group.
func Kinds(reg *registry.Registry, group string) []Kind {
	seen := map[registry.GroupKind]bool{}
	var out []Kind
	for _, gvk := range reg.All() {
		gk := registry.GroupKind{Group: gvk.Group, Kind: gvk.Kind}
		if seen[gk] || group != "" && gvk.Group != group {
			continue
		}
		seen[gk] = true
		versions := reg.Versions(gvk.Group, gvk.Kind)
		k, _ := reg.Lookup(gvk.Group, registry.Newest(versions), gvk.Kind)
		out = append(out, describeKind(k, versions))
	}
	slices.SortFunc(out, func(a, b Kind) int {
		return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind)
	})
	return out
}

func describeKind(k *registry.Kind, versions []string) Kind {
	out := Kind{Group: k.Group, Kind: k.Kind, Version: k.Version, Versions: versions, ARMType: k.ARMType, APIVersion: k.APIVersion, Scope: string(k.Scope)}
	for _, o := range k.Owners {
		out.Owners = append(out.Owners, o.Kind)
	}
	if k.Scope == registry.ScopeExtension && len(k.Owners) == 0 {
		out.Owners = []string{"any resource"}
	}
	return out
}

// Field is one field of a kind's spec or status.
type Field struct {
	// Path is the field's path from the object's root: spec.addressSpace.
	Path string `json:"path"`
	Type string `json:"type"`
	// Required: the operator's webhook refuses the object without it.
	Required bool     `json:"required,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	// Reference is what kind of reference the field holds: resource (an
	// ASO resource or armId), owner, secret, configMap, ...
	Reference string `json:"reference,omitempty"`
	// ARMPath is where the value lands in the ARM body (spec) or is read
	// from (status); empty for fields that never reach ARM.
	ARMPath string `json:"armPath,omitempty"`
	// WriteOnly and Sensitive are the REST specification's: never returned
	// by a GET; a secret.
	WriteOnly bool `json:"writeOnly,omitempty"`
	Sensitive bool `json:"sensitive,omitempty"`
	// CreateOnly says where the fact that Azure accepts the value only when
	// the resource is created comes from; empty when it is updatable.
	CreateOnly string `json:"createOnly,omitempty"`
	// Pattern and the bounds are the CRD's validation.
	Pattern string   `json:"pattern,omitempty"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	// Fields are the children of an object (of the items of a list, the
	// values of a map), one level or, recursively, all.
	Fields []Field `json:"fields,omitempty"`
}

// Explanation is a kind and one of its fields (the root when no field was
// asked for).
type Explanation struct {
	Kind  Kind  `json:"kind"`
	Field Field `json:"field"`
}

// Explain resolves "KIND[.FIELD...]": the kind as Kind, Kind.group or
// group/Kind (any case), then a path from the object's root (spec.owner,
// status.provisioningState; a path not starting with spec or status, or
// none, is read under spec). version picks a served version (default the newest).
// With recursive every level below the field is described.
func Explain(reg *registry.Registry, query, version string, recursive bool) (*Explanation, error) {
	gk, path, err := resolveKind(reg, query)
	if err != nil {
		return nil, err
	}
	versions := reg.Versions(gk.Group, gk.Kind)
	if version == "" {
		version = registry.Newest(versions)
	}
	k, ok := reg.Lookup(gk.Group, version, gk.Kind)
	if !ok {
		return nil, fmt.Errorf("%s %s is not served; served versions: %s (nearest: %s)", gk.Kind, version, strings.Join(versions, ", "), registry.NearestVersion(version, versions))
	}
	root := &registry.Field{Type: registry.TypeObject, Fields: []*registry.Field{
		{Name: "spec", Type: registry.TypeObject, Fields: k.Spec.Fields},
		{Name: "status", Type: registry.TypeObject, Fields: statusFields(k)},
	}}
	if len(path) == 0 || path[0] != "spec" && path[0] != "status" {
		path = append([]string{"spec"}, path...)
	}
	f, shown, at, err := walk(root, path)
	if err != nil {
		return nil, err
	}
	w := &describer{facts: bodyFacts(k), recursive: recursive}
	return &Explanation{Kind: describeKind(k, versions), Field: w.field(f, strings.Join(shown, "."), at, true)}, nil
}

func statusFields(k *registry.Kind) []*registry.Field {
	if k.Status == nil {
		return nil
	}
	return k.Status.Fields
}

// resolveKind splits a query into its kind and field path.
func resolveKind(reg *registry.Registry, query string) (registry.GroupKind, []string, error) {
	var group string
	if g, rest, ok := strings.Cut(query, "/"); ok {
		group, query = g, rest
	}
	head, rest, _ := strings.Cut(query, ".")
	groups := map[string][]string{} // group -> kinds
	for _, gvk := range reg.All() {
		if !slices.Contains(groups[gvk.Group], gvk.Kind) {
			groups[gvk.Group] = append(groups[gvk.Group], gvk.Kind)
		}
	}
	path := splitPath(rest)
	if group == "" {
		// Kind.group.name.azure.com: the longest run of segments naming a group.
		for i := len(path); i > 0; i-- {
			if g := strings.Join(path[:i], "."); groups[g] != nil {
				group, path = g, path[i:]
				break
			}
		}
	}
	var matches []registry.GroupKind
	for g, kinds := range groups {
		for _, k := range kinds {
			if strings.EqualFold(k, head) && (group == "" || g == group) {
				matches = append(matches, registry.GroupKind{Group: g, Kind: k})
			}
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], path, nil
	case len(matches) > 1:
		var names []string
		for _, m := range matches {
			names = append(names, m.Group+"/"+m.Kind)
		}
		slices.Sort(names)
		return registry.GroupKind{}, nil, fmt.Errorf("%s is a kind of several groups: name one (%s)", head, strings.Join(names, ", "))
	}
	var all []string
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if group == "" || g == group {
			all = append(all, groups[g]...)
		}
	}
	if near := suggest.Nearest(head, all); near != "" {
		return registry.GroupKind{}, nil, fmt.Errorf("unknown kind %q; did you mean %s?", head, near)
	}
	return registry.GroupKind{}, nil, fmt.Errorf("unknown kind %q (azk api-resources lists them)", head)
}

func splitPath(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ".")
}

// armAt is where a field is in the ARM body: path, when ok (a field that
// never reaches ARM, and what is under it, has none).
type armAt struct {
	path string
	ok   bool
}

// child is the ARM place of field c inside a value at a: through the list
// items and map values of elements (suffix), then c's own path.
func (a armAt) child(suffix string, c *registry.Field) armAt {
	if !a.ok || c.ARM == nil {
		return armAt{}
	}
	return armAt{path: armjson.Join(a.path+suffix, strings.Join(c.ARM, ".")), ok: true}
}

// walk follows path from root, through list items and map values, and
// returns the field, the path as shown and its ARM place.
func walk(root *registry.Field, path []string) (*registry.Field, []string, armAt, error) {
	f, at := root, armAt{}
	var shown []string
	for i, name := range path {
		e, suffix := elements(f)
		c := e.Child(name)
		if c == nil {
			c = foldChild(e, name)
		}
		if c == nil {
			hint := ""
			if near := suggest.Nearest(name, fieldNames(e)); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			where := strings.Join(shown, ".")
			if where == "" {
				where = "the object's root (spec, status)"
			}
			return nil, nil, armAt{}, fmt.Errorf("field %q does not exist in %s%s", name, where, hint)
		}
		if i == 0 {
			at = armAt{ok: true} // spec and status are the ARM body's root
		} else {
			at = at.child(suffix, c)
		}
		shown = append(shown, c.Name)
		f = c
	}
	return f, shown, at, nil
}

// elements is what a path continues into: a list's items, a map's values,
// and the ARM path suffix that goes there.
func elements(f *registry.Field) (*registry.Field, string) {
	suffix := ""
	for f.Type == registry.TypeArray && f.Items != nil || f.Type == registry.TypeMap && f.Values != nil {
		if f.Type == registry.TypeArray {
			f, suffix = f.Items, suffix+"[]"
		} else {
			f, suffix = f.Values, suffix+"{}"
		}
	}
	return f, suffix
}

func foldChild(f *registry.Field, name string) *registry.Field {
	for _, c := range f.Fields {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

func fieldNames(f *registry.Field) []string {
	var out []string
	for _, c := range f.Fields {
		out = append(out, c.Name)
	}
	return out
}

// facts are the REST specification's flags by ARM path, and where each
// create-only fact comes from.
type facts struct {
	writeOnly, sensitive map[string]bool
	createOnly           map[string]string
}

func bodyFacts(k *registry.Kind) facts {
	f := facts{writeOnly: map[string]bool{}, sensitive: map[string]bool{}, createOnly: map[string]string{}}
	for _, c := range k.CreateOnly {
		f.createOnly[c.Path] = k.CreateOnlySource(c)
	}
	if k.Body != nil {
		for _, p := range k.Body.WriteOnly {
			f.writeOnly[p] = true
		}
		for _, p := range k.Body.Sensitive {
			f.sensitive[p] = true
		}
	}
	return f
}

type describer struct {
	facts     facts
	recursive bool
}

// field describes f, found at path (ARM place at), with its children when
// top or recursive.
func (d *describer) field(f *registry.Field, path string, at armAt, top bool) Field {
	out := Field{Path: path, Type: typeName(f), Required: f.Required, Reference: string(f.Ref), Pattern: f.Pattern,
		Sensitive: f.Ref == registry.RefSecret || f.Ref == registry.RefSecretMap}
	if at.ok && at.path != "" {
		out.ARMPath, out.WriteOnly = at.path, d.facts.writeOnly[at.path]
		out.Sensitive = out.Sensitive || d.facts.sensitive[at.path]
		if strings.HasPrefix(path, "spec") {
			out.CreateOnly = d.facts.createOnly[at.path]
		}
	}
	e, suffix := elements(f)
	out.Enum = e.Enum
	out.Min, out.Max = bound(e.Minimum, e.MinLength, e.MinItems), bound(e.Maximum, e.MaxLength, e.MaxItems)
	if e.Ref != "" || !top && !d.recursive {
		return out // a reference's inner fields are its own shape, not ARM's
	}
	for _, c := range e.Fields {
		out.Fields = append(out.Fields, d.field(c, armjson.Join(path, c.Name), at.child(suffix, c), false))
	}
	return out
}

func bound(values ...any) *float64 {
	for _, v := range values {
		switch t := v.(type) {
		case *float64:
			if t != nil {
				return t
			}
		case *int:
			if t != nil {
				f := float64(*t)
				return &f
			}
		}
	}
	return nil
}

// typeName is kubectl's way of writing a type: Object, []string, map[string]integer.
func typeName(f *registry.Field) string {
	switch f.Type {
	case registry.TypeArray:
		if f.Items != nil {
			return "[]" + typeName(f.Items)
		}
		return "[]"
	case registry.TypeMap:
		if f.Values != nil {
			return "map[string]" + typeName(f.Values)
		}
		return "map[string]"
	case registry.TypeObject:
		return "Object"
	}
	return string(f.Type)
}
