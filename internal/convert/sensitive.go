package convert

import (
	"strings"

	"github.com/azkcli/azk/internal/armjson"
)

// markSensitive marks as Sensitive every plain string of body at a path the
// REST specification calls secret (paths: registry BodyFacts.Sensitive, with
// list items as "[]" and map values as "{}"), as Terraform marks what a
// provider's schema calls sensitive: it prints as (sensitive) and a saved
// plan holds its digest, whatever the manifests gave it as. Values already
// marked (secret references) stay as they are.
func markSensitive(body map[string]any, paths []string) {
	for _, p := range paths {
		markAt(body, armjson.SchemaSteps(p))
	}
}

// markAt marks the strings at steps under v; it reports the value to put
// in place of v (v itself unless v is the string marked).
func markAt(v any, steps []string) any {
	if len(steps) == 0 {
		if s, ok := v.(string); ok {
			return Sensitive{value: s}
		}
		return v
	}
	switch step := steps[0]; step {
	case "[]":
		if list, ok := v.([]any); ok {
			for i, item := range list {
				list[i] = markAt(item, steps[1:])
			}
		}
	case "{}":
		if m, ok := v.(map[string]any); ok {
			for k, item := range m {
				m[k] = markAt(item, steps[1:])
			}
		}
	default:
		if m, ok := v.(map[string]any); ok {
			for k, item := range m {
				if strings.EqualFold(k, step) {
					m[k] = markAt(item, steps[1:])
				}
			}
		}
	}
	return v
}
