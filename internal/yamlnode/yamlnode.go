// Package yamlnode reads values out of a YAML node tree as kubectl sends
// them to the API server: an alias stands for the node it names, and a null
// is no value.
package yamlnode

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Deref follows aliases to the node they stand for (the loader refuses
// documents whose aliases loop).
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// Entry returns the key node of key in mapping n and its value, aliases
// followed; nils when n is no mapping or has no such key.
func Entry(n *yaml.Node, key string) (k, v *yaml.Node) {
	n = Deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], Deref(n.Content[i+1])
		}
	}
	return nil, nil
}

// Value returns the value of key in mapping n, aliases followed, or nil.
func Value(n *yaml.Node, key string) *yaml.Node {
	_, v := Entry(n, key)
	return v
}

// String returns the scalar at the path of keys below n; "" when it is
// missing, null or not a scalar.
func String(n *yaml.Node, path ...string) string {
	n = Deref(n)
	for _, key := range path {
		n = Value(n, key)
	}
	if IsNull(n) || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// IsNull says whether n is missing or an explicit null.
func IsNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == yaml.NodeTagNull)
}
