package validate

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// expressions checks spec.operatorSpec.configMapExpressions and
// secretExpressions as the operator's webhook does: each value compiles and
// type-checks as CEL over the resource, a string result names a destination
// key and a map result names none, and no two entries write the same key.
func (w *walker) expressions(kind *registry.Kind, spec *yaml.Node) {
	operatorSpec := yamlnode.Value(spec, "operatorSpec")
	for _, list := range []string{"configMapExpressions", "secretExpressions"} {
		items := yamlnode.Value(operatorSpec, list)
		if items == nil || items.Kind != yaml.SequenceNode {
			continue
		}
		seen := map[string]int{}
		for i, item := range items.Content {
			path := fmt.Sprintf("spec.operatorSpec.%s[%d]", list, i)
			value := yamlnode.Value(item, "value")
			if value == nil || value.Kind != yaml.ScalarNode {
				continue // the schema check reports it
			}
			p, err := expression.Compile(kind, value.Value)
			if err != nil {
				w.errorf(value.Line, path+".value", "CEL expression %q: %v", value.Value, err)
				continue
			}
			name, key := yamlnode.String(item, "name"), yamlnode.String(item, "key")
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

// rootOneOf checks the alternatives of a one-of at the root of the spec
// (Kusto databases and data connections): exactly one is set.
func (w *walker) rootOneOf(alternatives []string, spec *yaml.Node, line int) {
	set := 0
	for _, a := range alternatives {
		if v := yamlnode.Value(spec, a); v != nil && !yamlnode.IsNull(v) {
			set++
		}
	}
	if set != 1 {
		w.errorf(line, "spec", "set exactly one of %s", strings.Join(alternatives, ", "))
	}
}
