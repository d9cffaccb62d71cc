package planner

import (
	"encoding/json"
	"fmt"
	"github.com/azkcli/azk/internal/armjson"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/registry"
)

// differ compares a desired ARM body with the current one the way ARM means
// them: only what the desired body sets, with ARM's equivalences. Paths are
// ARM body paths with array indices as "[]".
type differ struct {
	// enums are the paths of enum-valued fields, which ARM matches
	// case-insensitively.
	enums map[string]bool
	// writeOnly are paths ARM does not return (registry.Observed.WriteOnly).
	writeOnly map[string]bool
	// caseFolded are paths ARM returns in its own case (registry.Observed.CaseFolded).
	caseFolded map[string]bool
	// rewrites are the values ARM stores in place of others, by path.
	rewrites map[string][]registry.Rewrite
	// added are the lower-cased names of items ARM keeps in arrays of named
	// objects, by the array's path.
	added map[string]map[string]bool
}

var differCache sync.Map // *registry.Kind -> *differ

// newDiffer builds the comparison rules of a kind once; differs are read-only.
func newDiffer(k *registry.Kind) *differ {
	if v, ok := differCache.Load(k); ok {
		return v.(*differ)
	}
	d := &differ{enums: map[string]bool{}, writeOnly: map[string]bool{}, caseFolded: map[string]bool{},
		rewrites: map[string][]registry.Rewrite{}, added: map[string]map[string]bool{}}
	collectEnums(k.Spec, "", d.enums)
	for _, p := range genericWriteOnly {
		d.writeOnly[p] = true
	}
	if o := k.Observed; o != nil {
		for _, p := range o.WriteOnly {
			d.writeOnly[p] = true
		}
		for _, p := range o.CaseFolded {
			d.caseFolded[p] = true
		}
		for _, r := range o.Rewrites {
			d.rewrites[r.Path] = append(d.rewrites[r.Path], r)
		}
		for _, a := range o.AddedItems {
			if d.added[a.Path] == nil {
				d.added[a.Path] = map[string]bool{}
			}
			d.added[a.Path][strings.ToLower(a.Name)] = true
		}
	}
	v, _ := differCache.LoadOrStore(k, d)
	return v.(*differ)
}

// collectEnums walks a spec schema to the ARM paths its fields land at, as
// convert does, and records those with enum values.
func collectEnums(f *registry.Field, path string, out map[string]bool) {
	if f == nil || f.Ref != "" {
		return
	}
	if len(f.Enum) > 0 {
		out[path] = true
	}
	switch f.Type {
	case registry.TypeObject:
		for _, c := range f.Fields {
			if c.ARM == nil {
				continue
			}
			collectEnums(c, joinPath(path, strings.Join(c.ARM, ".")), out)
		}
	case registry.TypeArray:
		collectEnums(f.Items, path+"[]", out)
	}
}

func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}

// diff lists the changes that writing desired over current makes. With a nil
// current (a create) every desired value is an addition.
func (d *differ) diff(desired, current map[string]any) []Change {
	var out []Change
	creating := current == nil
	for _, k := range sortedKeys(desired) {
		if k == "name" {
			continue // the Azure name is part of the ARM ID
		}
		have, ok := armjson.LookupFold(current, k)
		d.value(k, k, desired[k], have, ok, creating, &out)
	}
	return out
}

// value compares one desired value at path with the current one (present
// when ok). schema is path with array indices as "[]", for enum lookups.
func (d *differ) value(path, schema string, want, have any, ok, creating bool, out *[]Change) {
	if ok && have == nil {
		ok = false // JSON null is absent
	}
	if isNil(want) {
		return // a null the manifests send sets nothing
	}
	if !ok && !creating && d.writeOnly[schema] {
		// ARM never returns it, so its absence says nothing: like a secret,
		// it is shown when created and not compared after.
		return
	}
	switch w := want.(type) {
	case convert.Sensitive, SensitiveDigest:
		// Secrets are write-only in ARM: never read back, so never compared.
		if creating {
			*out = append(*out, Change{Path: path, Sensitive: true})
		}
		return
	case convert.Unknown:
		c := Change{Path: path, Unknown: true}
		if ok {
			c.Before = have
		}
		*out = append(*out, c)
		return
	case map[string]any:
		h, isMap := have.(map[string]any)
		if ok && !isMap {
			*out = append(*out, Change{Path: path, Before: have, After: shown(want)})
			return
		}
		if len(w) == 0 && !creating {
			return // ARM does not keep an empty object apart from an absent one
		}
		if len(w) == 0 {
			*out = append(*out, Change{Path: path, After: map[string]any{}})
			return
		}
		for _, k := range sortedKeys(w) {
			hv, hok := armjson.LookupFold(h, k)
			d.value(path+"."+k, schema+"."+k, w[k], hv, hok, creating, out)
		}
		return
	case []any:
		d.list(path, schema, w, have, ok, creating, out)
		return
	}
	if !ok {
		if s, isString := want.(string); isString && s == "" && !creating {
			return // an empty string is not kept apart from absent
		}
		*out = append(*out, Change{Path: path, After: want})
		return
	}
	if !d.equal(schema, want, have) {
		*out = append(*out, Change{Path: path, Before: have, After: want})
	}
}

// genericWriteOnly are paths ARM accepts on a PUT but never returns on a GET
// for any resource provider: the recordings show it for every one that has
// them, so it holds for types no recording covers too.
var genericWriteOnly = []string{"properties.createMode"}

// list compares arrays: objects with a name are matched by name (ARM keeps
// them as named children), scalars as a whole list in order, other objects by position.
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
			for _, k := range sortedKeys(m) {
				if k == "name" {
					continue
				}
				hv, hok := armjson.LookupFold(hm, k)
				d.value(p+"."+k, schema+"[]."+k, m[k], hv, hok, creating, out)
			}
		}
		for i, item := range h {
			if !matched[i] {
				name, _ := item.(map[string]any)["name"].(string)
				if d.added[schema][strings.ToLower(name)] {
					continue // ARM keeps it whatever the PUT says
				}
				*out = append(*out, Change{Path: fmt.Sprintf("%s[name=%s]", path, name), Before: shown(item)})
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

func nilIfAbsent(v []any, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// equal compares two scalars as ARM does: numbers by value, ARM IDs and
// enum values case-insensitively, locations by their canonical name.
func (d *differ) equal(schema string, want, have any) bool {
	for _, r := range d.rewrites[schema] {
		if sameJSON(want, r.Sent) && sameJSON(have, r.Stored) {
			return true // ARM stores the sent value as this one
		}
	}
	if wn, ok := number(want); ok {
		hn, ok := number(have)
		return ok && (wn == hn || math.Abs(wn-hn) <= 1e-9*math.Max(math.Abs(wn), math.Abs(hn)))
	}
	ws, wok := want.(string)
	hs, hok := have.(string)
	if !wok || !hok {
		return reflect.DeepEqual(want, have)
	}
	switch {
	case ws == hs:
		return true
	case strings.HasSuffix(strings.ToLower(lastSegment(schema)), "location"):
		return normalLocation(ws) == normalLocation(hs)
	case armjson.IsID(ws) && armjson.IsID(hs), isUUID(ws) && isUUID(hs), d.enums[schema], d.caseFolded[schema]:
		return strings.EqualFold(ws, hs)
	}
	return false
}

// sameJSON reports whether a and b are the same JSON value (numbers by value).
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// isUUID reports a GUID, which ARM compares (and often returns) case-insensitively.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// normalLocation is a location's canonical name: "West US 2" is "westus2".
func normalLocation(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }

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
		return convert.UnknownText
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
