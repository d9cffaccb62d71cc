package loader

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/yamlnode"
)

// FieldLine returns the line of a field inside o.Node, or o.Source.Line when
// the field is absent or its line is unknown (fields added by kustomize).
//
// Each path element is a mapping key, a sequence index "[N]", or a key
// followed by indices ("subnets[0]"), so both FieldLine(o, "spec", "subnets",
// "[0]", "name") and FieldLine(o, "spec", "subnets[0]", "name") work. A dotted
// string is not split: keys may contain dots. For a mapping key the line is
// the key's line; for a sequence item the item's line.
func FieldLine(o *Object, path ...string) int {
	if o.Node == nil {
		return o.Source.Line
	}
	n, line := o.Node.YNode(), o.Source.Line
	for _, elem := range path {
		key, indices, ok := splitIndices(elem)
		if !ok {
			return o.Source.Line
		}
		if key != "" {
			k, v := yamlnode.Entry(n, key)
			if v == nil {
				return o.Source.Line
			}
			line, n = k.Line, v
		}
		for _, idx := range indices {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return o.Source.Line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	if line <= 0 {
		return o.Source.Line
	}
	return line
}

// splitIndices splits "name[1][2]" into "name" and [1 2].
func splitIndices(elem string) (key string, indices []int, ok bool) {
	key = elem
	if i := strings.IndexByte(elem, '['); i >= 0 && strings.HasSuffix(elem, "]") {
		key = elem[:i]
		for _, s := range strings.Split(elem[i+1:len(elem)-1], "][") {
			idx, err := strconv.Atoi(s)
			if err != nil || idx < 0 {
				return "", nil, false
			}
			indices = append(indices, idx)
		}
	}
	return key, indices, true
}
