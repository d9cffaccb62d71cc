package loader

import (
	"encoding/base64"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Value reads one key of a v1 Secret or ConfigMap: stringData and data as
// text (a Secret's data is base64), binaryData decoded. ok is false when the
// key is absent or its base64 is malformed.
func (o *Object) Value(key string) (value string, ok bool) {
	root := o.Node.YNode()
	if v := yamlnode.Deref(yamlnode.Value(yamlnode.Value(root, "stringData"), key)); v != nil {
		return v.Value, true
	}
	if v := yamlnode.Deref(yamlnode.Value(yamlnode.Value(root, "data"), key)); v != nil {
		if !o.IsSecret() {
			return v.Value, true
		}
		return decode(v.Value)
	}
	if v := yamlnode.Deref(yamlnode.Value(yamlnode.Value(root, "binaryData"), key)); v != nil {
		return decode(v.Value)
	}
	return "", false
}

// Keys lists the keys of a v1 Secret or ConfigMap, in document order.
func (o *Object) Keys() []string {
	var keys []string
	seen := map[string]bool{}
	for _, section := range []string{"stringData", "data", "binaryData"} {
		m := yamlnode.Value(o.Node.YNode(), section)
		if m == nil {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i].Value; !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func decode(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	return string(b), err == nil
}

// KeyLine is the line of key in a v1 Secret's or ConfigMap's stringData, data
// or binaryData, else the object's line.
func KeyLine(o *Object, key string) int {
	for _, section := range []string{"stringData", "data", "binaryData"} {
		if k, _ := yamlnode.Entry(yamlnode.Value(o.Node.YNode(), section), key); k != nil {
			return k.Line
		}
	}
	return o.Source.Line
}

// checkData reports the values of a v1 Secret or ConfigMap that the API
// server would refuse: stringData and data values must be strings (a map or a
// list would otherwise be read as an empty value), and a Secret's data and any
// binaryData must be base64. Each error names the key's line and field.
func checkData(o *Object) diag.List {
	var problems diag.List
	fail := func(line int, field, format string, args ...any) {
		problems.Add(diag.Errorf(diag.Source{File: o.Source.File, Line: line}, o.Address(), field, format, args...))
	}
	root := o.Node.YNode()
	for _, section := range []string{"stringData", "data", "binaryData"} {
		k, m := yamlnode.Entry(root, section)
		if m == nil || yamlnode.IsNull(m) {
			continue
		}
		if m.Kind != yaml.MappingNode {
			fail(k.Line, section, "must be a map of keys to strings")
			continue
		}
		base64Values := section == "binaryData" || section == "data" && o.IsSecret()
		for i := 0; i+1 < len(m.Content); i += 2 {
			key, v := m.Content[i], yamlnode.Deref(m.Content[i+1])
			field := section + "." + key.Value
			switch {
			case yamlnode.IsNull(v):
			case v.Kind == yaml.MappingNode:
				fail(key.Line, field, "must be a string, got a map")
			case v.Kind != yaml.ScalarNode:
				fail(key.Line, field, "must be a string, got a list")
			case v.Tag != yaml.NodeTagString && v.Tag != "!!timestamp" && v.Tag != "!!binary":
				fail(key.Line, field, "must be a string, got %s (quote it)", v.Tag)
			case base64Values:
				if _, ok := decode(v.Value); !ok {
					fail(key.Line, field, "is not valid base64")
				}
			}
		}
	}
	return problems
}
