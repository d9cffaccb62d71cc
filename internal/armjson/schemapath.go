package armjson

import "strings"

// SchemaSteps splits a schema path, the form the registry's REST facts use
// ("properties.secrets[].value", "tags{}"), into its steps: property names,
// "[]" for a list's items and "{}" for a map's values.
func SchemaSteps(path string) []string {
	var steps []string
	for _, key := range strings.Split(path, ".") {
		var each []string
		for strings.HasSuffix(key, "[]") || strings.HasSuffix(key, "{}") {
			each = append([]string{key[len(key)-2:]}, each...)
			key = key[:len(key)-2]
		}
		steps = append(append(steps, key), each...)
	}
	return steps
}
