package extensions

import (
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
)

// Microsoft.Authorization/roleAssignments: the operator's
// authorization/role_assignment_extensions.go (ARMResourceModifier,
// Importer). A roleDefinitionReference may name a built-in role
// (wellKnownName) instead of an ARM ID; the operator looks the role up among
// the built-in role definitions and sends its ID in the role assignment's
// subscription. Import leaves out the assignments a scope inherits from
// above it, which a listing there returns too.
func init() { register("Microsoft.Authorization/roleAssignments", roleAssignment{}) }

type roleAssignment struct{}

var roleDefinitionPath = []string{"properties", "roleDefinitionId"}

func (roleAssignment) ModifyBody(t Target, body map[string]any, _ *Outcome) error {
	v, _ := armjson.Lookup(body, roleDefinitionPath)
	name, ok := v.(string)
	if !ok || name == "" || armjson.IsID(name) {
		return nil // an ARM ID already, or not set
	}
	if t.RoleDefinitionID != nil {
		if id, ok := t.RoleDefinitionID(name); ok {
			if _, guid, found := strings.Cut(id, "/providers/Microsoft.Authorization/roleDefinitions/"); found && armid.SubscriptionOf(t.ID) != "" {
				id = "/subscriptions/" + armid.SubscriptionOf(t.ID) + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
			}
			armjson.Put(body, roleDefinitionPath, id)
			return nil
		}
	}
	armjson.Put(body, roleDefinitionPath, t.Unknown("role definition ID of built-in role "+name))
	return nil
}

func (roleAssignment) SkipImport(body map[string]any, scope string) *ImportSkip {
	if s := stringAt(body, "properties", "scope"); s != "" && !strings.EqualFold(s, scope) {
		return &ImportSkip{One: "role assignment inherited from a scope above", Many: "role assignments inherited from a scope above", Detail: "inherited from " + s}
	}
	return nil
}

// UniqueKey: ARM holds one assignment of a role to a principal at a scope,
// whatever its name (RoleAssignmentExists), so renaming one is a delete
// before the create.
func (roleAssignment) UniqueKey(id string, body map[string]any) string {
	scope, _, found := strings.Cut(strings.ToLower(id), "/providers/microsoft.authorization/roleassignments/")
	role := stringAt(body, "properties", "roleDefinitionId")
	principal := stringAt(body, "properties", "principalId")
	if !found || role == "" || principal == "" {
		return ""
	}
	return scope + "|" + strings.ToLower(role[strings.LastIndexByte(role, '/')+1:]) + "|" + strings.ToLower(principal)
}
