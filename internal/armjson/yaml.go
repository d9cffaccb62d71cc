package armjson

import (
	"encoding/json"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/yamlnode"
)

// FromYAML converts a YAML value without a schema to the shapes of a decoded
// JSON body: mappings, sequences and typed scalars (int64, float64, bool,
// nil, string).
func FromYAML(n *yaml.Node) any {
	n = yamlnode.Deref(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return FromYAML(n.Content[0])
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = FromYAML(n.Content[i+1])
		}
		return out
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			out[i] = FromYAML(item)
		}
		return out
	}
	switch n.Tag {
	case yaml.NodeTagInt:
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return v
		}
	case yaml.NodeTagFloat:
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return v
		}
	case yaml.NodeTagBool:
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	case yaml.NodeTagNull:
		return nil
	}
	return n.Value
}

// ToYAML is a JSON-shaped value as a YAML node in block style, keys in the
// order JSON encoding gives them (sorted for maps).
func ToYAML(v any) (*yaml.Node, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n, err := yaml.Parse(string(data))
	if err != nil {
		return nil, err
	}
	blockStyle(n.YNode())
	return n.YNode(), nil
}

// blockStyle clears the flow and quoting styles JSON parsing gives every
// node; the encoder quotes the strings that need it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
