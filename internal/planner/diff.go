package planner

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// differ compares a desired ARM body with the current one the way ARM means
// them: what the desired body sets, with ARM's equivalences (diffrules.go),
// and what the PUT removes inside it. Rules are looked up by schema path: the
// ARM body path with list items as "[]" and map values as "{}".
type differ struct {
	// enums are the paths of enum-valued fields (REST specification or
	// CRD), which ARM matches in any case.
	enums map[string]bool
	// ordinals are the REST specification's enum values in its order: ARM
	// may return a value as its index.
	ordinals map[string][]string
	// writeOnly are paths ARM accepts but never returns (REST flag WriteOnly).
	writeOnly map[string]bool
	// secrets are paths of secret values (the CRD's secret references, the
	// REST specification's sensitive strings): never returned, never compared.
	secrets map[string]bool
	// maps are paths of objects with arbitrary keys: a PUT replaces their keys.
	maps map[string]bool
	// required are paths the REST specification requires in their object.
	required map[string]bool
	// credentials are paths of objects holding a secret.
	credentials map[string]bool
	// selectors are, by object path, its enum properties that pick one of
	// their sibling objects.
	selectors map[string][]selector
	// tags says the kind's spec has tags: a PUT replaces Azure's tags whole.
	tags bool
	// provider is what the kind's resource provider does with the values
	// it is sent beyond what any specification states; nil when nothing.
	provider extensions.StoredValues
}

type selector struct {
	property     string
	alternatives []string
}

var differCache sync.Map // *registry.Kind -> *differ

// newDiffer builds the comparison rules of a kind once; differs are read-only.
func newDiffer(k *registry.Kind) *differ {
	if v, ok := differCache.Load(k); ok {
		return v.(*differ)
	}
	d := &differ{enums: map[string]bool{}, ordinals: map[string][]string{}, writeOnly: map[string]bool{}, secrets: map[string]bool{}, maps: map[string]bool{},
		required: map[string]bool{}, credentials: map[string]bool{}, selectors: map[string][]selector{}}
	if b := k.Body; b != nil {
		for _, p := range b.Required {
			d.required[p] = true
		}
		for _, s := range b.Selectors {
			i := strings.LastIndexByte(s.Path, '.')
			parent, prop := "", s.Path
			if i >= 0 {
				parent, prop = s.Path[:i], s.Path[i+1:]
			}
			d.selectors[parent] = append(d.selectors[parent], selector{property: prop, alternatives: s.Alternatives})
		}
		for _, p := range b.WriteOnly {
			d.writeOnly[p] = true
		}
		for _, p := range b.Sensitive {
			d.secrets[p] = true
		}
		for _, p := range b.Maps {
			d.maps[p] = true
		}
		for _, e := range b.Enums {
			d.enums[e.Path] = true
			d.ordinals[e.Path] = e.Values
		}
	}
	d.collectSpec(k.Spec, "")
	for p := range d.secrets {
		// The object holding a secret, unless it is a resource's property
		// bag, a list item or a map value.
		if i := strings.LastIndexByte(p, '.'); i > 0 && lastSegment(p[:i]) != "properties" && !strings.HasSuffix(p[:i], "]") && !strings.HasSuffix(p[:i], "}") {
			d.credentials[p[:i]] = true
		}
	}
	if k.Spec != nil {
		d.tags = k.Spec.Child("tags") != nil
	}
	d.provider = extensions.StoredValuesFor(k.ARMType)
	v, _ := differCache.LoadOrStore(k, d)
	return v.(*differ)
}

// collectSpec walks a spec schema to the ARM paths its fields land at, as
// convert does, and records secrets, maps and the CRD's enums.
func (d *differ) collectSpec(f *registry.Field, path string) {
	if f == nil {
		return
	}
	switch {
	case f.Ref == registry.RefSecret || f.Ref == registry.RefSecretMap:
		d.secrets[path] = true
		return
	case f.Ref != "":
		return
	case f.KeyedByRef:
		d.maps[path] = true // a list of references in the spec, a map keyed by ARM ID in ARM
		return
	}
	if len(f.Enum) > 0 {
		d.enums[path] = true
	}
	switch f.Type {
	case registry.TypeObject:
		for _, c := range f.Fields {
			if c.ARM != nil {
				d.collectSpec(c, armjson.Join(path, strings.Join(c.ARM, ".")))
			}
		}
	case registry.TypeArray:
		d.collectSpec(f.Items, path+"[]")
	case registry.TypeMap:
		d.maps[path] = true
		d.collectSpec(f.Values, path+"{}")
	}
}

// diff lists the changes that writing desired over current makes. With a nil
// current (a create) every desired value is an addition.
func (d *differ) diff(desired, current map[string]any) []Change {
	var out []Change
	creating := current == nil
	d.fields("", "", desired, current, !creating, creating, &out, "name") // the Azure name is part of the ARM ID
	if !creating && d.tags && isNil(desired["tags"]) {
		// A PUT without tags clears them.
		if tags, _ := armjson.LookupFold(current, "tags"); tags != nil {
			d.removedKeys("tags", map[string]any{}, tags, &out, "")
		}
	}
	return out
}

// fields compares the keys of a desired object at path with the current
// object (present when ok): a PUT replaces a map's keys, so the keys only
// Azure has are removals; other objects keep what the body does not set.
// The key skip (the name of a named item) is not compared.
func (d *differ) fields(path, schema string, want, have map[string]any, ok, creating bool, out *[]Change, skip string) {
	keyed := d.maps[schema]
	inactive := d.inactiveAlternatives(schema, want)
	for _, k := range sortedKeys(want) {
		if k == skip {
			continue
		}
		hv, hok := armjson.LookupFold(have, k)
		child := armjson.Join(schema, k)
		if keyed {
			child = schema + "{}"
		}
		if ok && hv == nil && !creating && (inactive[strings.ToLower(k)] || d.unreturned(child)) {
			continue
		}
		d.value(armjson.JoinKey(path, k), child, want[k], hv, hok, creating, out)
	}
	if keyed && !creating {
		d.removedKeys(path, want, have, out, skip)
	}
}

// unreturned reports a property that the current body of an existing
// resource lacks because ARM does not return it, not because it is unset:
//   - one the REST specification requires: every resource has it;
//   - the object holding a secret (credentials), which ARM withholds whole;
//   - location and sku, which types without them (proxy resources) do not
//     keep, and a SKU's tier, size, family and capacity, which ARM's common
//     SKU contract lets a provider omit where the SKU has no such dimension.
//
// What ARM never returns at all (write-only, the provider's NotReturned) is
// not compared whatever the current body holds: value skips it.
func (d *differ) unreturned(schema string) bool {
	switch schema {
	case "location", "sku", "sku.tier", "sku.size", "sku.family", "sku.capacity":
		return true
	}
	return d.required[schema] || d.credentials[schema]
}

// inactiveAlternatives are the lower-cased names of the sibling objects that
// a selector in want (filterType: SqlFilter) does not pick: ARM drops them.
func (d *differ) inactiveAlternatives(schema string, want map[string]any) map[string]bool {
	var out map[string]bool
	for _, sel := range d.selectors[schema] {
		picked, _ := want[sel.property].(string)
		if picked == "" {
			continue
		}
		for _, alt := range sel.alternatives {
			if !strings.EqualFold(alt, picked) {
				if out == nil {
					out = map[string]bool{}
				}
				out[strings.ToLower(alt)] = true
			}
		}
	}
	return out
}

// value compares one desired value at path with the current one (present
// when ok). schema is the path's schema path, for rule lookups.
func (d *differ) value(path, schema string, want, have any, ok, creating bool, out *[]Change) {
	if ok && have == nil {
		ok = false // JSON null is absent
	}
	if isNil(want) {
		return // a null the manifests send sets nothing
	}
	if (d.writeOnly[schema] || d.provider != nil && d.provider.NotReturned(schema)) && !creating {
		// ARM never returns it, so what a GET shows says nothing: like a
		// secret, it is shown when created and not compared after.
		return
	}
	switch w := want.(type) {
	case convert.Sensitive, SensitiveDigest:
		d.secret(path, creating, out)
		return
	case convert.Unknown:
		if w.Sensitive {
			// A secret another resource exports: like any secret, shown
			// when created and never compared after.
			if creating {
				*out = append(*out, Change{Path: path, Sensitive: true, Unknown: true})
			}
			return
		}
		c := Change{Path: path, Unknown: true}
		if ok {
			c.Before = have
		}
		*out = append(*out, c)
		return
	}
	if d.secrets[schema] {
		d.secret(path, creating, out)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		h, isMap := have.(map[string]any)
		if ok && !isMap {
			*out = append(*out, Change{Path: path, Before: have, After: shown(want)})
			return
		}
		if len(w) == 0 && creating {
			*out = append(*out, Change{Path: path, After: map[string]any{}})
			return
		}
		d.fields(path, schema, w, h, ok, creating, out, "")
		return
	case []any:
		d.list(path, schema, w, have, ok, creating, out)
		return
	}
	if !ok {
		if isZero(want) && !creating {
			return // providers leave empty strings and false out of what they return
		}
		*out = append(*out, Change{Path: path, After: want})
		return
	}
	if !d.equal(schema, want, have) && !(d.provider != nil && d.provider.Equivalent(schema, want, have)) {
		*out = append(*out, Change{Path: path, Before: have, After: want})
	}
}

// secret is a secret value: shown (as sensitive) when created, never
// compared after, as ARM never returns it.
func (d *differ) secret(path string, creating bool, out *[]Change) {
	if creating {
		*out = append(*out, Change{Path: path, Sensitive: true})
	}
}

// removedKeys lists the keys of a map Azure has that the desired map lacks:
// a PUT replaces a map's keys, so they are removed. Tags Azure services keep
// for themselves (hidden-title, hidden-link:…, hidden from the portal) are
// not the user's: services set them again.
func (d *differ) removedKeys(path string, want map[string]any, have any, out *[]Change, skip string) {
	h, _ := have.(map[string]any)
	for _, k := range sortedKeys(h) {
		if h[k] == nil || k == skip || (path == "tags" && strings.HasPrefix(strings.ToLower(k), "hidden-")) {
			continue
		}
		if _, kept := armjson.LookupFold(want, k); !kept {
			*out = append(*out, Change{Path: armjson.JoinKey(path, k), Before: h[k]})
		}
	}
}

// list compares arrays: objects with a name are matched by name (ARM keeps
// them as named children), scalars as a whole list in order, other objects
// by position. Items Azure has beyond the desired ones are removed by a PUT.
func (d *differ) list(path, schema string, want []any, have any, ok, creating bool, out *[]Change) {
	h, isList := have.([]any)
	if ok && !isList {
		*out = append(*out, Change{Path: path, Before: have, After: shown(want)})
		return
	}
	if len(want) == 0 {
		if !creating && len(h) > 0 {
			*out = append(*out, Change{Path: path, Before: h, After: []any{}})
		}
		return
	}
	if armjson.Named(want) {
		matched := map[int]bool{}
		for _, item := range want {
			m := item.(map[string]any)
			name := m["name"].(string)
			p := fmt.Sprintf("%s[name=%s]", path, name)
			i := armjson.IndexByName(h, name)
			if i < 0 {
				if creating {
					d.value(p, schema+"[]", m, nil, false, true, out)
				} else {
					*out = append(*out, Change{Path: p, After: shown(m)})
				}
				continue
			}
			matched[i] = true
			hm, _ := h[i].(map[string]any)
			d.fields(p, schema+"[]", m, hm, true, creating, out, "name")
		}
		for i, item := range h {
			if !matched[i] && !(d.provider != nil && d.provider.AddedByProvider(schema, item)) {
				name, _ := item.(map[string]any)["name"].(string)
				*out = append(*out, Change{Path: fmt.Sprintf("%s[name=%s]", path, name), Before: item})
			}
		}
		return
	}
	if allScalars(want) {
		if !ok || len(h) != len(want) {
			*out = append(*out, Change{Path: path, Before: nilIfAbsent(h, ok), After: shown(want)})
			return
		}
		for i := range want {
			if !d.equal(schema+"[]", want[i], h[i]) {
				*out = append(*out, Change{Path: path, Before: h, After: shown(want)})
				return
			}
		}
		return
	}
	for i, item := range want {
		var hv any
		hok := i < len(h)
		if hok {
			hv = h[i]
		}
		d.value(fmt.Sprintf("%s[%d]", path, i), schema+"[]", item, hv, hok, creating, out)
	}
	for i := len(want); i < len(h); i++ {
		*out = append(*out, Change{Path: fmt.Sprintf("%s[%d]", path, i), Before: h[i]})
	}
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// isZero reports an empty string or false: providers commonly serialize
// their responses without default values, so absent is not apart from them.
func isZero(v any) bool {
	return v == "" || v == false
}

func nilIfAbsent(v []any, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

func allScalars(items []any) bool {
	for _, item := range items {
		switch item.(type) {
		case map[string]any, []any, convert.Sensitive, convert.Unknown, SensitiveDigest:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// shown is a desired value as it may be printed or saved: secrets as
// SensitiveText, never their values.
func shown(v any) any {
	switch t := v.(type) {
	case convert.Sensitive, SensitiveDigest:
		return convert.SensitiveText
	case convert.Unknown:
		return t.Text()
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = shown(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = shown(e)
		}
		return out
	}
	return v
}
