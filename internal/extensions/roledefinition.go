package extensions

import "strings"

// Microsoft.Authorization/roleDefinitions: the operator's
// authorization/role_definition_extensions.go (Importer). Built-in role
// definitions are Azure's, at every scope: import leaves them out.
func init() { register("Microsoft.Authorization/roleDefinitions", roleDefinition{}) }

type roleDefinition struct{}

func (roleDefinition) SkipImport(body map[string]any, _ string) *ImportSkip {
	if strings.EqualFold(stringAt(body, "properties", "type"), "BuiltInRole") {
		return &ImportSkip{One: "built-in role definition", Many: "built-in role definitions"}
	}
	return nil
}
