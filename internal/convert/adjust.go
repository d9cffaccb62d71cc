package convert

import (
	"fmt"
	"github.com/azkcli/azk/internal/armjson"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// These are the changes the operator makes to a body just before it PUTs,
// facts taken from its source and confirmed by the corpus recordings.

// preservedCollections are child collections that ARM replaces on a parent's
// PUT but that users manage as separate resources: the operator carries the
// ones that exist in Azure into the parent's body so they are not wiped.
var preservedCollections = map[string][]string{
	"microsoft.network/virtualnetworks":         {"properties", "subnets"},
	"microsoft.network/networksecuritygroups":   {"properties", "securityRules"},
	"microsoft.network/routetables":             {"properties", "routes"},
	"microsoft.network/loadbalancers":           {"properties", "inboundNatRules"},
	"microsoft.compute/virtualmachinescalesets": {"properties", "virtualMachineProfile", "extensionProfile", "extensions"},
}

// deletedVaultsAPIVersion is the api-version the operator reads soft-deleted
// key vaults with (as recorded).
const deletedVaultsAPIVersion = "2024-11-01"

// adjust applies the operator's pre-PUT changes to body. It needs Azure's
// current state; without a Get source it leaves what it cannot know unknown.
func (c *converter) adjust(body map[string]any, r *Request) {
	if k := c.n.Kind; k.NullCollections {
		empty := make(map[string]bool, len(k.EmptyCollections))
		for _, p := range k.EmptyCollections {
			empty[p] = true
		}
		nullCollections(k.Spec, body, "", empty)
	}
	armType := strings.ToLower(c.n.Kind.ARMType)
	if path, ok := preservedCollections[armType]; ok {
		c.preserveChildren(body, path)
	}
	if armType == "microsoft.keyvault/vaults" {
		c.vaultCreateMode(body, r)
	}
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
		path := joinARM(base, strings.Join(child.ARM, "."))
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
						nullCollections(child.Values, m, joinARM(path, k), empty)
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

func joinARM(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

// preserveChildren merges the collection at path from the resource's current
// state into body: items the spec names win, items only Azure has are kept.
func (c *converter) preserveChildren(body map[string]any, path []string) {
	if c.src.Get == nil {
		return // offline: rendered as a create, which has no children yet
	}
	current, err := c.src.Get(c.n.ID, c.n.Kind.APIVersion)
	if err != nil {
		c.errorf(0, "", "reading the current %s to keep its %s: %v", c.n.Kind.ARMType, path[len(path)-1], err)
		return
	}
	have, _ := armjson.Lookup(current, path)
	existing, _ := have.([]any)
	if len(existing) == 0 {
		return
	}
	want, _ := armjson.Lookup(body, path)
	desired, _ := want.([]any)
	named := map[string]bool{}
	for _, item := range desired {
		if m, ok := item.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				named[strings.ToLower(name)] = true
			}
		}
	}
	project := c.childProjection(path)
	merged := append([]any(nil), desired...)
	for _, item := range existing {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if name, _ := m["name"].(string); !named[strings.ToLower(name)] {
			merged = append(merged, project(m))
		}
	}
	armjson.Put(body, path, merged)
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
	want := parent.ARMType + "/" + segment
	reg := registry.Default()
	for _, gvk := range reg.All() {
		if gvk.Group != parent.Group || gvk.Version != parent.Version {
			continue
		}
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && strings.EqualFold(k.ARMType, want) {
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

// vaultCreateMode resolves createOrRecover and purgeThenCreate, which ARM does
// not know, to what the operator sends: recover when a soft-deleted vault of
// that name exists for the subscription and location, else default; for
// purgeThenCreate the deleted vault is purged first.
func (c *converter) vaultCreateMode(body map[string]any, r *Request) {
	props, _ := body["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	if mode != "createOrRecover" && mode != "purgeThenCreate" {
		return
	}
	location, _ := body["location"].(string)
	deletedID := fmt.Sprintf("/subscriptions/%s/providers/Microsoft.KeyVault/locations/%s/deletedVaults/%s",
		subscriptionOf(c.n.ID), strings.ToLower(strings.ReplaceAll(location, " ", "")), c.n.AzureName)
	if c.src.Get == nil {
		props["createMode"] = Unknown{Reason: "default, or recover when a soft-deleted vault " + c.n.AzureName + " exists"}
		return
	}
	deleted, err := c.src.Get(deletedID, deletedVaultsAPIVersion)
	if err != nil {
		c.errorf(0, "spec.properties.createMode", "checking for a soft-deleted vault %s: %v", c.n.AzureName, err)
		return
	}
	switch {
	case deleted == nil:
		props["createMode"] = "default"
	case mode == "createOrRecover":
		props["createMode"] = "recover"
		r.Notes = append(r.Notes, "will recover a soft-deleted vault")
	default:
		props["createMode"] = "default"
		r.PurgeFirst = deletedID
		r.Notes = append(r.Notes, "will purge the soft-deleted vault first")
	}
}

func subscriptionOf(id string) string {
	parts := strings.Split(strings.TrimPrefix(id, "/"), "/")
	if len(parts) >= 2 && strings.EqualFold(parts[0], "subscriptions") {
		return parts[1]
	}
	return ""
}
