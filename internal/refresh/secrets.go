package refresh

import (
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/registry"
)

// secretIn reports whether Azure's value at path holds a secret: at or
// below a path the REST specification calls sensitive, or a value Azure
// masks ("********"). ARM does not return secrets, but a provider may; a
// secret is never written into a manifest.
func secretIn(k *registry.Kind, path armjson.Path, value any) bool {
	sensitive, maps := map[string]bool{}, map[string]bool{"tags": true}
	if b := k.Body; b != nil {
		for _, p := range b.Sensitive {
			sensitive[p] = true
		}
		for _, p := range b.Maps {
			maps[p] = true
		}
	}
	schema := ""
	for _, st := range path {
		switch {
		case st.Item:
			schema += "[]"
		case maps[schema]:
			schema += "{}"
		default:
			schema = armjson.Join(schema, st.Key)
		}
		if sensitive[schema] {
			return true
		}
	}
	var walk func(schema string, v any) bool
	walk = func(schema string, v any) bool {
		if sensitive[schema] {
			return true
		}
		switch t := v.(type) {
		case string:
			return len(t) >= 3 && strings.Trim(t, "*") == ""
		case map[string]any:
			for key, e := range t {
				child := armjson.Join(schema, key)
				if maps[schema] {
					child = schema + "{}"
				}
				if walk(child, e) {
					return true
				}
			}
		case []any:
			for _, e := range t {
				if walk(schema+"[]", e) {
					return true
				}
			}
		}
		return false
	}
	return walk(schema, value)
}

// scrubbed reports whether Azure's value holds a secret of the run, which the
// plan read as redact.Text: writing the marker would send it to Azure.
func scrubbed(value any) bool {
	switch t := value.(type) {
	case string:
		return t == redact.Text
	case map[string]any:
		for k, e := range t {
			if k == redact.Text || scrubbed(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if scrubbed(e) {
				return true
			}
		}
	}
	return false
}
