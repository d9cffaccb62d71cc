package convert

import (
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
)

// Status maps an ARM GET body to the kind's status shape (Kubernetes JSON
// names), using where the registry says each status field is read from. It is
// what the operator would write to .status, and what exported config maps and
// secrets are taken from.
func Status(k *registry.Kind, armBody map[string]any) map[string]any {
	if k.Status == nil {
		return map[string]any{}
	}
	out, _ := statusValue(k.Status, armBody).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func statusValue(f *registry.Field, v any) any {
	switch f.Type {
	case registry.TypeObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		out := map[string]any{}
		for _, child := range f.Fields {
			if child.ARM == nil {
				continue
			}
			src, found := any(obj), true
			if len(child.ARM) > 0 {
				src, found = armjson.Lookup(obj, child.ARM)
			}
			if !found {
				continue
			}
			if cv := statusValue(child, src); cv != nil {
				if len(child.ARM) == 0 {
					// A one-of alternative: only the one whose fields are present.
					if m, ok := cv.(map[string]any); ok && len(m) == 0 {
						continue
					}
				}
				out[child.Name] = cv
			}
		}
		return out
	case registry.TypeArray:
		list, ok := v.([]any)
		if !ok || f.Items == nil {
			return v
		}
		out := make([]any, 0, len(list))
		for _, item := range list {
			out = append(out, statusValue(f.Items, item))
		}
		return out
	case registry.TypeMap:
		m, ok := v.(map[string]any)
		if !ok || f.Values == nil {
			return v
		}
		out := make(map[string]any, len(m))
		for key, item := range m {
			out[key] = statusValue(f.Values, item)
		}
		return out
	}
	return v
}
