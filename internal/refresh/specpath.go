package refresh

import (
	"fmt"
	"math"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// step is one step of a path in a manifest: a mapping key, or the item of a
// list whose field ItemField is Key (a named item: [name=web]).
type step struct {
	Key       string
	ItemField string
}

func (s step) String() string {
	if s.ItemField != "" {
		return "[" + s.ItemField + "=" + s.Key + "]"
	}
	return s.Key
}

// fieldPath prints steps as a manifest path: "spec.dhcpOptions.dnsServers",
// "spec.subnets[name=web].addressPrefix".
func fieldPath(steps []step) string {
	path := ""
	for _, s := range steps {
		if s.ItemField != "" {
			path += s.String()
		} else {
			path = armjson.JoinKey(path, s.Key)
		}
	}
	return path
}

// target is a value to write at a spec path of a manifest (Remove: take the
// field out, Azure has none), or why it cannot be written (Skipped).
type target struct {
	steps   []step
	value   any
	remove  bool
	skipped string
}

// mapper maps ARM body paths and values of one kind back to the spec fields
// they come from, by the registry's facts: each spec field's ARM path
// (registry.Field.ARM), relative to the object that holds it. obj is the
// manifest, to tell which of two fields sent at one ARM path it sets.
type mapper struct {
	obj *yaml.Node
}

// targets maps Azure's value at an ARM path (absent when !present) to the
// spec fields to write.
func (m mapper) targets(spec *registry.Field, path armjson.Path, value any, present bool) []target {
	return m.object(spec, []step{{Key: "spec"}}, path, value, present)
}

// object maps a path inside the ARM form of object field f, found at the
// manifest path at.
func (m mapper) object(f *registry.Field, at []step, path armjson.Path, value any, present bool) []target {
	if len(path) == 0 {
		return []target{m.leaf(f, at, value, present)}
	}
	if c := m.through(f, at, path); c != nil {
		if c.Ref == registry.RefConfigMap {
			return []target{{steps: join(at, step{Key: c.Name}), skipped: "the manifest takes it from a config map: azk writes no value over a reference to one"}}
		}
		return m.fieldTargets(c, join(at, step{Key: c.Name}), path[len(c.ARM):], value, present)
	}
	for _, c := range f.Fields {
		if c.ARM != nil && len(c.ARM) == 0 && m.sets(join(at, step{Key: c.Name})) {
			return m.object(c, join(at, step{Key: c.Name}), path, value, present) // the one-of alternative the manifest sets
		}
	}
	// The path stops above the fields' own paths ("properties"): each field
	// below it takes its part of the value.
	var out []target
	obj, _ := value.(map[string]any)
	for _, c := range plainFields(f) {
		if len(c.ARM) <= len(path) || !prefixFold(path, c.ARM[:len(path)]) {
			continue
		}
		sub, ok := lookup(obj, c.ARM[len(path):])
		if present && (!ok || sub == nil) {
			continue // Azure holds nothing there, and the manifest set nothing there either
		}
		out = append(out, m.fieldTargets(c, join(at, step{Key: c.Name}), nil, sub, present)...)
	}
	if len(out) == 0 {
		return []target{{steps: at, skipped: fmt.Sprintf("no spec field carries %s", path)}}
	}
	return out
}

// through is the field of object f whose ARM path the path goes through,
// the longest such; of two sent at the same path (a value and its
// ...FromConfig), the one the manifest sets, else the plain one.
func (m mapper) through(f *registry.Field, at []step, path armjson.Path) *registry.Field {
	var best *registry.Field
	for _, c := range f.Fields {
		if len(c.ARM) == 0 || len(c.ARM) > len(path) || !prefixFold(path, c.ARM) {
			continue
		}
		switch {
		case best == nil || len(c.ARM) > len(best.ARM):
			best = c
		case len(c.ARM) == len(best.ARM) && m.sets(join(at, step{Key: c.Name})):
			best = c
		case len(c.ARM) == len(best.ARM) && best.Ref != "" && c.Ref == "" && !m.sets(join(at, step{Key: best.Name})):
			best = c
		}
	}
	return best
}

// fieldTargets maps the rest of a path inside field f, found at the
// manifest path at.
func (m mapper) fieldTargets(f *registry.Field, at []step, rest armjson.Path, value any, present bool) []target {
	if why := notWritable(f); why != "" {
		return []target{{steps: at, skipped: why}}
	}
	if len(rest) == 0 {
		return []target{m.leaf(f, at, value, present)}
	}
	switch f.Type {
	case registry.TypeObject:
		return m.object(f, at, rest, value, present)
	case registry.TypeArray:
		if !rest[0].Item || f.Items == nil {
			return []target{{steps: at, skipped: "an item of a list is chosen by position: the list is written whole or not at all"}}
		}
		name := nameField(f.Items)
		if name == "" {
			return []target{{steps: at, skipped: "its items have no name field to choose one by"}}
		}
		return m.fieldTargets(f.Items, join(at, step{Key: rest[0].Key, ItemField: name}), rest[1:], value, present)
	case registry.TypeMap:
		if rest[0].Item || f.Values == nil {
			return []target{{steps: at, skipped: "a map's entry is named by its key"}}
		}
		return m.fieldTargets(f.Values, join(at, step{Key: rest[0].Key}), rest[1:], value, present)
	case registry.TypeAny:
		steps := at
		for _, s := range rest {
			if s.Item {
				return []target{{steps: at, skipped: "a free-form value holding a list chosen by name"}}
			}
			steps = join(steps, step{Key: s.Key})
		}
		return []target{{steps: steps, value: value, remove: !present}}
	}
	return []target{{steps: at, skipped: fmt.Sprintf("%s holds a single value: nothing at %s", fieldPath(at), rest)}}
}

// leaf is Azure's value of field f, in the spec's form, at the manifest path at.
func (m mapper) leaf(f *registry.Field, at []step, value any, present bool) target {
	if !present || value == nil {
		return target{steps: at, remove: true}
	}
	v, why := specValue(f, value)
	if why != "" {
		return target{steps: at, skipped: why}
	}
	return target{steps: at, value: v}
}

// sets reports whether the manifest sets the field at the path.
func (m mapper) sets(steps []step) bool {
	n := m.obj
	for _, s := range steps {
		if s.ItemField != "" {
			n = item(n, s)
		} else {
			n = yamlnode.Value(n, s.Key)
		}
		if yamlnode.IsNull(n) {
			return false
		}
	}
	return true
}

// item is the item of sequence n whose field s.ItemField is s.Key.
func item(n *yaml.Node, s step) *yaml.Node {
	n = yamlnode.Deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	for _, e := range n.Content {
		if yamlnode.String(e, s.ItemField) == s.Key {
			return yamlnode.Deref(e)
		}
	}
	return nil
}

// specValue turns Azure's value of field f (its ARM form) into the spec's
// form, or says why it cannot be written: a reference, a secret or a
// config-map value is never written back.
func specValue(f *registry.Field, v any) (any, string) {
	if why := notWritable(f); why != "" {
		return nil, why
	}
	switch f.Type {
	case registry.TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("Azure holds %T where the spec has an object", v)
		}
		out := map[string]any{}
		for _, c := range plainFields(f) {
			sub, ok := lookup(obj, c.ARM)
			if !ok || sub == nil {
				continue
			}
			sv, why := specValue(c, sub)
			if why != "" {
				return nil, c.Name + ": " + why
			}
			out[c.Name] = sv
		}
		for _, c := range f.Fields {
			if c.ARM != nil && len(c.ARM) == 0 {
				return nil, "a choice of one of " + c.Name + " and its alternatives, which azk does not map back"
			}
		}
		return out, ""
	case registry.TypeArray:
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Sprintf("Azure holds %T where the spec has a list", v)
		}
		out := make([]any, len(list))
		for i, e := range list {
			sv, why := specValue(f.Items, e)
			if why != "" {
				return nil, why
			}
			out[i] = sv
		}
		return out, ""
	case registry.TypeMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("Azure holds %T where the spec has a map", v)
		}
		out := map[string]any{}
		for k, e := range obj {
			sv, why := specValue(f.Values, e)
			if why != "" {
				return nil, why
			}
			out[k] = sv
		}
		return out, ""
	}
	if n, ok := v.(float64); ok && n == math.Trunc(n) && math.Abs(n) < 1<<53 {
		return int64(n), "" // a whole number, as YAML writes one
	}
	return v, ""
}

// notWritable says why a field's value is never written back, or "".
func notWritable(f *registry.Field) string {
	if f == nil {
		return "no spec field carries it"
	}
	switch {
	case f.KeyedByRef, f.Ref == registry.RefResource, f.Ref == registry.RefOwner, f.Ref == registry.RefWellKnown:
		return "a reference (armId or name): azk does not turn the ARM ID Azure holds back into a reference"
	case f.Ref == registry.RefSecret, f.Ref == registry.RefSecretMap:
		return "a secret: its value comes from a Secret, and Azure never returns it"
	case f.Ref == registry.RefConfigMap:
		return "a config-map value: the manifest takes it from a config map"
	case f.Ref != "":
		return "a reference to " + string(f.Ref)
	}
	return ""
}

// plainFields are the fields of f sent at an ARM path of their own, of two
// sent at the same path the one that is no reference.
func plainFields(f *registry.Field) []*registry.Field {
	var out []*registry.Field
	for _, c := range f.Fields {
		if len(c.ARM) == 0 {
			continue
		}
		dup := -1
		for i, o := range out {
			if equalFold(o.ARM, c.ARM) {
				dup = i
			}
		}
		switch {
		case dup < 0:
			out = append(out, c)
		case out[dup].Ref != "" && c.Ref == "":
			out[dup] = c
		}
	}
	return out
}

// nameField is the field of a list's items sent as their ARM name.
func nameField(items *registry.Field) string {
	for _, c := range items.Fields {
		if len(c.ARM) == 1 && c.ARM[0] == "name" {
			return c.Name
		}
	}
	return ""
}

func lookup(obj map[string]any, keys []string) (any, bool) {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = armjson.LookupFold(m, k); !ok {
			return nil, false
		}
	}
	return cur, true
}

// prefixFold reports whether keys are the first steps of path, as
// properties (ARM matches names in any case).
func prefixFold(path armjson.Path, keys []string) bool {
	if len(keys) > len(path) {
		return false
	}
	for i, k := range keys {
		if path[i].Item || !strings.EqualFold(path[i].Key, k) {
			return false
		}
	}
	return true
}

func equalFold(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

func join(at []step, s step) []step {
	return append(append([]step(nil), at...), s)
}
