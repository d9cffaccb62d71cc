package loader

import (
	"encoding/base64"
)

// Value reads one key of a v1 Secret or ConfigMap: stringData and data as
// text (a Secret's data is base64), binaryData decoded. ok is false when the
// key is absent or its base64 is malformed.
func (o *Object) Value(key string) (value string, ok bool) {
	root := o.Node.YNode()
	if v := mapValue(mapValue(root, "stringData"), key); v != nil {
		return v.Value, true
	}
	if v := mapValue(mapValue(root, "data"), key); v != nil {
		if !o.IsSecret() {
			return v.Value, true
		}
		return decode(v.Value)
	}
	if v := mapValue(mapValue(root, "binaryData"), key); v != nil {
		return decode(v.Value)
	}
	return "", false
}

// Keys lists the keys of a v1 Secret or ConfigMap, in document order.
func (o *Object) Keys() []string {
	var keys []string
	seen := map[string]bool{}
	for _, section := range []string{"stringData", "data", "binaryData"} {
		m := mapValue(o.Node.YNode(), section)
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
		if k, _ := mapEntry(mapValue(o.Node.YNode(), section), key); k != nil {
			return k.Line
		}
	}
	return o.Source.Line
}
