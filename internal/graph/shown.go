package graph

import (
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Use is a place where the graph shows a value as it is.
type Use struct {
	Source  diag.Source
	Address string
	// Field is the value's path in its object ("spec.location"), or what the
	// graph made of the object ("the ARM ID").
	Field string
}

func (u Use) String() string {
	s := u.Field + " of " + u.Address
	if u.Source.File != "" {
		s += " (" + u.Source.String() + ")"
	}
	return s
}

// Shown calls fn with each string azk prints as it is, in plans, graphs
// and rendered requests: every scalar of the manifests (names, locations,
// URLs, tags, every other plain value, and the keys beside them) except the
// data of v1 Secrets, and what the graph makes of them (addresses, Azure
// names, ARM IDs, the subscription). Secrets are never among them: a
// secret reference prints as (sensitive). See redact.Set.Show.
func (g *Graph) Shown(fn func(v string)) {
	g.walkShown(func(v string, _ *shownWalk) bool {
		fn(v)
		return true
	})
}

// WhereShown is the first place the graph shows a string holding s (see Shown).
func (g *Graph) WhereShown(s string) (Use, bool) {
	var use Use
	found := false
	g.walkShown(func(v string, w *shownWalk) bool {
		if found = s != "" && strings.Contains(v, s); found {
			use = w.use()
		}
		return !found
	})
	return use, found
}

// shownWalk is where walkShown is: the object, the path to the value, and
// the value's line; use builds the Use only for the value asked about.
type shownWalk struct {
	obj   *loader.Object
	path  []string
	line  int
	field string // set for what the graph computed
}

func (w *shownWalk) use() Use {
	src := w.obj.Source
	if w.line > 0 {
		src.Line = w.line
	}
	field := w.field
	if field == "" {
		for _, p := range w.path {
			if p != "" && p[0] == '[' || field == "" {
				field += p
			} else {
				field += "." + p
			}
		}
	}
	return Use{Source: src, Address: w.obj.Address(), Field: field}
}

// walkShown calls fn with every shown string, in input order, until fn
// returns false.
func (g *Graph) walkShown(fn func(v string, w *shownWalk) bool) {
	var objects []*loader.Object
	for _, n := range append(append([]*Node(nil), g.Nodes...), g.Outside...) {
		objects = append(objects, n.Object)
	}
	for _, m := range []map[string]*loader.Object{g.ConfigMaps, g.Namespaces, g.Secrets} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			objects = append(objects, m[k])
		}
	}
	w := &shownWalk{}
	for _, o := range objects {
		w.obj, w.path, w.field = o, w.path[:0], ""
		root := o.Node.YNode()
		if o.IsSecret() {
			// A Secret's data is secret; what names it is not.
			for _, key := range []string{"apiVersion", "kind", "metadata"} {
				if k, v := yamlnode.Entry(root, key); k != nil && !w.node(k, v, key, fn) {
					return
				}
			}
			continue
		}
		if !w.node(nil, root, "", fn) {
			return
		}
	}
	for _, n := range append(append([]*Node(nil), g.Nodes...), g.Outside...) {
		w.obj, w.path, w.line = n.Object, w.path[:0], 0
		for _, c := range []struct{ field, value string }{
			{"the address", n.Address()}, {"the Azure name", n.AzureName}, {"the ARM ID", n.ID}, {"the owner's ARM ID", n.OwnerID},
		} {
			if w.field = c.field; c.value != "" && !fn(c.value, w) {
				return
			}
		}
	}
	if g.Subscription != "" && len(g.Nodes) > 0 {
		w.obj, w.line, w.field = g.Nodes[0].Object, 0, "the subscription in the ARM ID"
		fn(g.Subscription, w)
	}
}

// node walks a YAML value (with its key, when in a mapping) at path step.
func (w *shownWalk) node(key, n *yaml.Node, step string, fn func(string, *shownWalk) bool) bool {
	if n == nil {
		return true
	}
	if step != "" {
		w.path = append(w.path, step)
		defer func() { w.path = w.path[:len(w.path)-1] }()
	}
	if key != nil {
		if w.line = key.Line; !fn(key.Value, w) {
			return false
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if !w.node(nil, c, "", fn) {
				return false
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !w.node(n.Content[i], n.Content[i+1], n.Content[i].Value, fn) {
				return false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if !w.node(nil, c, "["+strconv.Itoa(i)+"]", fn) {
				return false
			}
		}
	case yaml.ScalarNode:
		w.line = n.Line
		return fn(n.Value, w)
	}
	return true
}
