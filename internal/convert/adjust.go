package convert

import (
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// adjust applies the operator's changes to a body just before its PUT: the
// explicit collections of its payload mode, then the kind's body modifier
// (internal/extensions). It needs Azure's current state; without a Get
// source it leaves what it cannot know unknown.
func (c *converter) adjust(body map[string]any, r *Request) {
	if k := c.n.Kind; k.NullCollections {
		empty := make(map[string]bool, len(k.EmptyCollections))
		for _, p := range k.EmptyCollections {
			empty[p] = true
		}
		nullCollections(k.Spec, body, "", empty)
	}
	m := extensions.BodyModifierFor(c.n.Kind.ARMType)
	if m == nil {
		return
	}
	t := extensions.Target{
		ARMType: c.n.Kind.ARMType, APIVersion: c.n.Kind.APIVersion, ID: c.n.ID, AzureName: c.n.AzureName,
		Get: c.src.Get, RoleDefinitionID: c.src.RoleDefinitionID,
		Unknown: func(reason string) any { return Unknown{Reason: reason} },
		Project: c.childProjection,
	}
	var out extensions.Outcome
	if err := m.ModifyBody(t, body, &out); err != nil {
		c.errorf(0, "", "%v", err)
		return
	}
	r.Before = out.Before
	r.Notes = append(r.Notes, out.Notes...)
}

// nullCollections sets every unset list and map field of the objects present
// in body to null, as the operator's explicit-collections payload mode sends
// them, or to an empty one where the registry says the operator sends it
// empty. Keyed identity maps and one-of alternatives are left alone.
func nullCollections(f *registry.Field, obj map[string]any, base string, empty map[string]bool) {
	for _, child := range f.Fields {
		if len(child.ARM) == 0 || child.KeyedByRef || child.Ref != "" {
			continue
		}
		path := armjson.Join(base, strings.Join(child.ARM, "."))
		v, found := armjson.Lookup(obj, child.ARM)
		if !found {
			parent, ok := armjson.Lookup(obj, child.ARM[:len(child.ARM)-1])
			if m, isObj := parent.(map[string]any); ok && isObj && (child.Type == registry.TypeArray || child.Type == registry.TypeMap) {
				m[child.ARM[len(child.ARM)-1]] = emptyOrNull(child.Type, empty[path])
			}
			continue
		}
		switch t := v.(type) {
		case map[string]any:
			if child.Type == registry.TypeObject {
				nullCollections(child, t, path, empty)
			} else if child.Type == registry.TypeMap && child.Values != nil && child.Values.Type == registry.TypeObject {
				for k, e := range t {
					if m, ok := e.(map[string]any); ok {
						nullCollections(child.Values, m, armjson.Join(path, k), empty)
					}
				}
			}
		case []any:
			if child.Items != nil && child.Items.Type == registry.TypeObject {
				for _, e := range t {
					if m, ok := e.(map[string]any); ok {
						nullCollections(child.Items, m, path+"[]", empty)
					}
				}
			}
		}
	}
}

func emptyOrNull(t registry.Type, empty bool) any {
	switch {
	case !empty:
		return nil
	case t == registry.TypeArray:
		return []any{}
	}
	return map[string]any{}
}

// childProjection returns how a child read from Azure is written back in the
// parent's body: through the parent's own spec field for that collection when
// it has one, else through the child kind's spec plus its id, name and type.
// Read-only and unknown properties are dropped, as the operator's conversion does.
func (c *converter) childProjection(path []string) func(map[string]any) map[string]any {
	if f := fieldAtARMPath(c.n.Kind.Spec, path); f != nil && f.Items != nil {
		return func(m map[string]any) map[string]any {
			out, _ := projectARM(f.Items, m).(map[string]any)
			return out
		}
	}
	child := childKind(c.n.Kind, path[len(path)-1])
	return func(m map[string]any) map[string]any {
		out := map[string]any{}
		if child != nil {
			out, _ = projectARM(child.Spec, m).(map[string]any)
			if out == nil {
				out = map[string]any{}
			}
		}
		for _, k := range []string{"id", "name", "type"} {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
		return out
	}
}

// fieldAtARMPath finds the spec field whose ARM value lands exactly at path.
func fieldAtARMPath(f *registry.Field, path []string) *registry.Field {
	if f == nil {
		return nil
	}
	for _, child := range f.Fields {
		p := child.ARM
		if len(p) == 0 || len(p) > len(path) || !equalPath(p, path[:len(p)]) {
			continue
		}
		if len(p) == len(path) {
			return child
		}
		if found := fieldAtARMPath(child, path[len(p):]); found != nil {
			return found
		}
	}
	return nil
}

func equalPath(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// childKind finds the kind, in the parent's group and version, of the child
// resources kept in the parent's collection named segment (subnets of a
// virtual network, securityRules of a network security group).
func childKind(parent *registry.Kind, segment string) *registry.Kind {
	reg := registry.Default()
	for _, gvk := range reg.KindsOfARMType(parent.ARMType + "/" + segment) {
		if gvk.Group != parent.Group || gvk.Version != parent.Version {
			continue
		}
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok {
			return k
		}
	}
	return nil
}

// projectARM keeps the parts of an ARM value that the spec schema f can
// write, dropping read-only properties and, like the operator's omitempty,
// empty lists and maps.
func projectARM(f *registry.Field, v any) any {
	if f.Ref != "" || f.Type == registry.TypeAny {
		return v
	}
	switch f.Type {
	case registry.TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		out := map[string]any{}
		for _, child := range f.Fields {
			if child.ARM == nil {
				continue
			}
			if len(child.ARM) == 0 {
				if inline, ok := projectARM(child, obj).(map[string]any); ok {
					for k, e := range inline {
						out[k] = e
					}
				}
				continue
			}
			cv, found := armjson.Lookup(obj, child.ARM)
			if !found {
				continue
			}
			if pv := projectARM(child, cv); pv != nil {
				armjson.Put(out, child.ARM, pv)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case registry.TypeArray:
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return nil
		}
		if f.Items == nil {
			return list
		}
		out := make([]any, 0, len(list))
		for _, item := range list {
			if pv := projectARM(f.Items, item); pv != nil {
				out = append(out, pv)
			}
		}
		return out
	case registry.TypeMap:
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			return m
		}
		return nil
	}
	return v
}
