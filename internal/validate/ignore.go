package validate

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/suggest"
)

// IgnorePath checks a path of the azk.azkcli.io/ignore-changes annotation
// (an ARM body path, as plans print it) against the kind's ARM body: each
// property a spec field is sent at or a status field is read from, or that
// the REST specification states a fact about (registry.BodyFacts); any key
// of a map; a [name=...] item of a list; anything inside a free-form value.
// A path that is none of these names nothing Azure holds, so the drift it
// was meant to keep would be reverted: the error says which step is wrong
// and offers the nearest property there.
func IgnorePath(kind *registry.Kind, p armjson.Path) error {
	at := bodyTree(kind)
	for i, st := range p {
		where := "at the top of the body"
		if i > 0 {
			where = "under " + p[:i].String()
		}
		switch {
		case at.free:
			return nil
		case st.Item && at.items == nil:
			return fmt.Errorf("%s is not a list, so [name=%s] names nothing", p[:i].String(), st.Key)
		case st.Item:
			at = at.items
		case at.values != nil:
			at = at.values
		default:
			next := at.child(st.Key)
			if next == nil {
				if at.items != nil {
					return fmt.Errorf("%s is a list: choose an item with [name=NAME]", p[:i].String())
				}
				if len(at.children) == 0 {
					return fmt.Errorf("%s holds a single value: it has no property %q", p[:i].String(), st.Key)
				}
				hint := ""
				if near := suggest.Nearest(st.Key, at.names()); near != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", armjson.JoinKey(p[:i].String(), near))
				}
				return fmt.Errorf("%s has no property %q %s%s", kind.Kind, st.Key, where, hint)
			}
			at = next
		}
	}
	return nil
}

// bodyNode is one property of a kind's ARM body.
type bodyNode struct {
	// children are an object's properties, by lower-cased name (ARM
	// matches names in any case); spelled keeps them as written.
	children map[string]*bodyNode
	spelled  map[string]string
	// items is a list's item; values a map's value (any key).
	items, values *bodyNode
	// free is a value of any shape (x-kubernetes-preserve-unknown-fields).
	free bool
}

func (b *bodyNode) child(name string) *bodyNode { return b.children[strings.ToLower(name)] }

func (b *bodyNode) names() []string {
	out := make([]string, 0, len(b.spelled))
	for _, n := range b.spelled {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// at is the node at path under b, made on the way.
func (b *bodyNode) at(path []string) *bodyNode {
	for _, key := range path {
		if b.children == nil {
			b.children, b.spelled = map[string]*bodyNode{}, map[string]string{}
		}
		next := b.children[strings.ToLower(key)]
		if next == nil {
			next = &bodyNode{}
			b.children[strings.ToLower(key)], b.spelled[strings.ToLower(key)] = next, key
		}
		b = next
	}
	return b
}

var bodyTrees sync.Map // *registry.Kind -> *bodyNode

// bodyTree is the shape of the ARM bodies kind's spec produces, as convert
// places each field (registry.Field.ARM).
func bodyTree(kind *registry.Kind) *bodyNode {
	if v, ok := bodyTrees.Load(kind); ok {
		return v.(*bodyNode)
	}
	root := &bodyNode{}
	addFields(root, kind.Spec)
	addFields(root, kind.Status)
	if b := kind.Body; b != nil {
		for _, paths := range [][]string{b.WriteOnly, b.Required, b.Sensitive} {
			for _, p := range paths {
				root.atSchemaPath(p)
			}
		}
		for _, e := range b.Enums {
			root.atSchemaPath(e.Path)
		}
		for _, m := range b.Maps {
			root.atSchemaPath(m).mapOf()
		}
	}
	v, _ := bodyTrees.LoadOrStore(kind, root)
	return v.(*bodyNode)
}

// atSchemaPath is the node at a REST specification path under b (see
// armjson.SchemaSteps), made on the way.
func (b *bodyNode) atSchemaPath(path string) *bodyNode {
	for _, step := range armjson.SchemaSteps(path) {
		switch step {
		case "[]":
			if b.items == nil {
				b.items = &bodyNode{}
			}
			b = b.items
		case "{}":
			b = b.mapOf()
		default:
			b = b.at([]string{step})
		}
	}
	return b
}

// mapOf makes b a map and returns its values' node.
func (b *bodyNode) mapOf() *bodyNode {
	if b.values == nil {
		b.values = &bodyNode{}
	}
	return b.values
}

// addFields adds the ARM form of object f's fields under b.
func addFields(b *bodyNode, f *registry.Field) {
	if f == nil {
		return
	}
	for _, c := range f.Fields {
		if c.ARM == nil {
			continue // never sent (owner, azureName, operatorSpec)
		}
		addValue(b.at(c.ARM), c) // an empty path: a one-of alternative, inline
	}
}

// addValue gives b the shape of field f's ARM value.
func addValue(b *bodyNode, f *registry.Field) {
	switch {
	case f.KeyedByRef:
		b.values = &bodyNode{} // a map keyed by ARM ID
	case f.Ref == registry.RefSecretMap:
		b.values = &bodyNode{}
	case f.Ref != "":
		// A reference or a secret: one string.
	case f.Type == registry.TypeAny:
		b.free = true
	case f.Type == registry.TypeObject:
		addFields(b, f)
	case f.Type == registry.TypeArray:
		if b.items == nil {
			b.items = &bodyNode{}
		}
		if f.Items != nil {
			addValue(b.items, f.Items)
		}
	case f.Type == registry.TypeMap:
		if b.values == nil {
			b.values = &bodyNode{}
		}
		if f.Values != nil {
			addValue(b.values, f.Values)
		}
	}
}
