package validate

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/registry"
)

// expressions checks spec.operatorSpec.configMapExpressions and
// secretExpressions as the operator's webhook does: each value compiles and
// type-checks as CEL over the resource, a string result names a destination
// key and a map result names none, and no two entries write the same key.
func (w *walker) expressions(kind *registry.Kind, spec *yaml.Node) {
	operatorSpec := mapValue(spec, "operatorSpec")
	for _, list := range []string{"configMapExpressions", "secretExpressions"} {
		items := mapValue(operatorSpec, list)
		if items == nil || items.Kind != yaml.SequenceNode {
			continue
		}
		seen := map[string]int{}
		for i, item := range items.Content {
			path := fmt.Sprintf("spec.operatorSpec.%s[%d]", list, i)
			value := mapValue(item, "value")
			if value == nil || value.Kind != yaml.ScalarNode {
				continue // the schema check reports it
			}
			p, err := expression.Compile(kind, value.Value)
			if err != nil {
				w.errorf(value.Line, path+".value", "CEL expression %q: %v", value.Value, err)
				continue
			}
			name, key := scalarValue(item, "name"), scalarValue(item, "key")
			switch {
			case p.Output == expression.String && key == "":
				w.errorf(item.Line, path+".key", "CEL expression %q returns a string: the destination needs a key", value.Value)
			case p.Output == expression.Map && key != "":
				w.errorf(item.Line, path+".key", "CEL expression %q returns a map of strings: the destination must not name a key (each entry is one)", value.Value)
			}
			if key == "" {
				continue
			}
			if first, dup := seen[name+"/"+key]; dup {
				w.errorf(item.Line, path, "%s key %s is already written by entry %d", name, key, first)
				continue
			}
			seen[name+"/"+key] = i
		}
	}
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

func scalarValue(n *yaml.Node, key string) string {
	if v := mapValue(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// rootOneOf checks the alternatives of a one-of at the root of the spec
// (Kusto databases and data connections): exactly one is set.
func (w *walker) rootOneOf(alternatives []string, spec *yaml.Node, line int) {
	set := 0
	for _, a := range alternatives {
		if v := mapValue(spec, a); v != nil && !isNull(v) {
			set++
		}
	}
	if set != 1 {
		w.errorf(line, "spec", "set exactly one of %s", strings.Join(alternatives, ", "))
	}
}
