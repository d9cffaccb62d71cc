package importer

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
)

// specWriter turns an ARM body into a spec, field by field of the kind's
// spec schema: each field takes the value found at its ARM path. The schema
// holds only what a PUT can write, so read-only properties are left out;
// so are values that set nothing (null, empty strings, lists and maps), and
// the defaults ARM fills in for the type when a PUT leaves them out.
type specWriter struct {
	kind *registry.Kind
	// defaults are the values ARM fills in by ARM path (registry.ARMType.Filled).
	defaults map[string]any
	// required are the ARM paths the REST specification requires.
	required map[string]bool
	// secretName is the Secret the secret references name.
	secretName string
	// secrets are the spec paths of the required secrets, each referring to
	// the key of that name in the Secret secretName.
	secrets []string
	// optionalSecrets are the spec paths of the other secret fields of the
	// objects Azure holds: left out, as nothing says they were set.
	optionalSecrets []string
	// notes are what was left out and why.
	notes []string
	// refer is the reference to write for an ARM ID Azure's body holds;
	// nil writes {armId}.
	refer func(id string) map[string]any
}

func newSpecWriter(k *registry.Kind, secretName string) *specWriter {
	w := &specWriter{kind: k, required: map[string]bool{}, secretName: secretName, defaults: map[string]any{}}
	if t, ok := registry.Default().ARMType(k.ARMType); ok {
		for _, f := range t.Filled {
			w.defaults[f.Path] = f.Value
		}
	}
	if k.Body != nil {
		for _, p := range k.Body.Required {
			w.required[p] = true
		}
	}
	return w
}

// spec is the spec of body, without owner and azureName (set by the caller).
func (w *specWriter) spec(body map[string]any) map[string]any {
	out, _ := w.object(w.kind.Spec, body, "", "").(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// object fills the fields of f from the ARM object obj. path is the spec
// path, armPath the ARM schema path of obj ("properties.subnets[]"), for
// the REST specification's facts.
func (w *specWriter) object(f *registry.Field, obj map[string]any, path, armPath string) any {
	out := map[string]any{}
	alternatives := false
	for _, c := range f.Fields {
		switch {
		case c.ARM == nil || c.Ref == registry.RefConfigMap:
			// Never sent (owner, azureName, operatorSpec), or a config-map
			// source of a value that its plain sibling field takes.
			continue
		case len(c.ARM) == 0:
			alternatives = true
			continue
		case strings.EqualFold(c.ARM[len(c.ARM)-1], "provisioningState"):
			// ARM's contract makes every provisioningState the provider's
			// (read-only), whatever a specification's flags say.
			continue
		}
		childPath, childARM := armjson.Join(path, c.Name), armjson.Join(armPath, strings.Join(c.ARM, "."))
		if c.Ref == registry.RefSecret || c.Ref == registry.RefSecretMap {
			if s := w.secret(c, childPath, childARM); s != nil {
				out[c.Name] = s
			}
			continue // a value Azure echoes is never copied
		}
		v, found := lookupFold(obj, c.ARM)
		if !found {
			continue
		}
		if cv := w.value(c, v, childPath, childARM); cv != nil {
			out[c.Name] = cv
		}
	}
	if alternatives {
		w.alternative(f, obj, path, armPath, out)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// alternative picks the one-of alternative Azure holds, whose fields stand
// inline in obj: the one whose discriminators (single-valued enums) all
// match obj's values.
func (w *specWriter) alternative(f *registry.Field, obj map[string]any, path, armPath string, out map[string]any) {
	for _, alt := range f.Fields {
		if alt.ARM == nil || len(alt.ARM) != 0 || alt.Type != registry.TypeObject {
			continue
		}
		discriminators, matched := 0, true
		for _, c := range alt.Fields {
			if len(c.Enum) != 1 || len(c.ARM) == 0 {
				continue
			}
			discriminators++
			v, _ := lookupFold(obj, c.ARM)
			if s, ok := v.(string); !ok || !strings.EqualFold(s, c.Enum[0]) {
				matched = false
			}
		}
		if discriminators > 0 && matched {
			if v := w.object(alt, obj, armjson.Join(path, alt.Name), armPath); v != nil {
				out[alt.Name] = v
			}
			return
		}
	}
	where := path
	if where == "" {
		where = "the spec's root"
	}
	w.notes = append(w.notes, fmt.Sprintf("%s: Azure's value matches none of the alternatives azk can tell apart; it was left out", where))
}

// value converts the ARM value v of field f.
func (w *specWriter) value(f *registry.Field, v any, path, armPath string) any {
	if v == nil {
		return nil
	}
	switch f.Ref {
	case registry.RefResource, registry.RefWellKnown:
		if id, ok := v.(string); ok && id != "" {
			return w.reference(id)
		}
		return nil
	}
	switch f.Type {
	case registry.TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		return w.object(f, obj, path, armPath)
	case registry.TypeArray:
		if f.KeyedByRef {
			return w.keyedByRef(f, v)
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil
		}
		if f.Items == nil {
			return list
		}
		out := make([]any, 0, len(list))
		for _, item := range list {
			if cv := w.value(f.Items, item, path, armPath+"[]"); cv != nil {
				out = append(out, cv)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case registry.TypeMap:
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			return nil
		}
		if f.Values == nil {
			return m
		}
		out := map[string]any{}
		for k, e := range m {
			if cv := w.value(f.Values, e, path+"."+k, armPath+"{}"); cv != nil {
				out[k] = cv
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case registry.TypeAny:
		return v
	}
	if d, ok := w.defaults[armPath]; ok && reflect.DeepEqual(d, v) {
		return nil // what ARM fills in when a PUT leaves it out
	}
	return scalar(f, v)
}

// scalar is an ARM scalar in the spec's type: an enum in the CRD's
// spelling (ARM matches enums in any case), a whole number as an integer.
func scalar(f *registry.Field, v any) any {
	switch t := v.(type) {
	case string:
		if t == "" {
			return nil
		}
		for _, e := range f.Enum {
			if strings.EqualFold(e, t) {
				return e
			}
		}
		return t
	case float64:
		if f.Type == registry.TypeInteger && t == math.Trunc(t) {
			return int64(t)
		}
	}
	return v
}

// keyedByRef turns ARM's map keyed by ARM ID (user-assigned identities)
// into the spec's list of references.
func (w *specWriter) keyedByRef(f *registry.Field, v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 || f.Items == nil {
		return nil
	}
	var refField string
	for _, c := range f.Items.Fields {
		if c.Ref == registry.RefResource {
			refField = c.Name
		}
	}
	if refField == "" {
		return nil
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{refField: w.reference(id)}
	}
	return out
}

// reference is what a manifest writes for a reference to id.
func (w *specWriter) reference(id string) map[string]any {
	if w.refer != nil {
		return w.refer(id)
	}
	return map[string]any{"armId": id}
}

// secret is the Secret reference for a secret field of an object Azure
// holds. Azure never returns secrets, so the schema decides: a required
// secret refers to a key of the Secret the manifest's notes ask for; an
// optional one is left out and named in a note. The same on any endpoint.
func (w *specWriter) secret(f *registry.Field, path, armPath string) any {
	if !f.Required && !w.required[armPath] {
		if !slices.Contains(w.optionalSecrets, path) {
			w.optionalSecrets = append(w.optionalSecrets, path)
		}
		return nil
	}
	if !slices.Contains(w.secrets, path) {
		w.secrets = append(w.secrets, path)
	}
	if f.Ref == registry.RefSecretMap {
		return map[string]any{"name": w.secretName + "-" + strings.ReplaceAll(path, ".", "-")}
	}
	return map[string]any{"name": w.secretName, "key": path}
}

// lookupFold finds the value at an ARM path, matching keys in any case as
// providers vary in the case they return.
func lookupFold(obj map[string]any, path []string) (any, bool) {
	var v any = obj
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = armjson.LookupFold(m, k); !ok {
			return nil, false
		}
	}
	return v, true
}
