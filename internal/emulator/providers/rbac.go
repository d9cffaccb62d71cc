package providers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Role-based access: who may do what where, from the role assignments and
// role definitions stored through ARM's own APIs (built-in roles included).
// A principal's permissions at a scope are those of its role assignments at
// that scope and every scope above it. GET {scope}/providers/Microsoft.Authorization/permissions
// answers them for the caller; GET .../roleAssignments?$filter=principalId eq '{id}'
// lists a principal's assignments at, above and below the scope, and
// $filter=atScope() those at and above it. With Options.EnforceRBAC a write
// the caller may not make is refused (403 AuthorizationFailed) by
// middleware.EnforceRBAC, which asks Authorize.
//
// The emulator's subscriptions have no creator: DefaultPrincipal, the
// caller a token without an "oid" stands for, is Owner of a subscription in
// which no role assignment names it (a fresh emulator lets it do anything);
// once one does, it has exactly what its assignments give, so a test
// narrows it by assigning it roles.

const (
	typeRoleAssignments = "Microsoft.Authorization/roleAssignments"
	typeRoleDefinitions = "Microsoft.Authorization/roleDefinitions"
)

// Permission is one role definition's permissions block.
type Permission struct {
	Actions        []string `json:"actions"`
	NotActions     []string `json:"notActions"`
	DataActions    []string `json:"dataActions"`
	NotDataActions []string `json:"notDataActions"`
}

// Allows reports whether p grants the control-plane action: an Actions
// pattern matches it and no NotActions pattern does. Data actions grant no
// control-plane action.
func (p Permission) Allows(action string) bool {
	return anyMatch(p.Actions, action) && !anyMatch(p.NotActions, action)
}

func anyMatch(patterns []string, action string) bool {
	for _, p := range patterns {
		if ActionMatches(p, action) {
			return true
		}
	}
	return false
}

// ActionMatches reports whether a permission pattern ("*", "*/read",
// "Microsoft.Storage/*", "Microsoft.Authorization/*/Write") covers action,
// case-insensitively; "*" matches any run of characters.
func ActionMatches(pattern, action string) bool { return armid.GlobMatch(pattern, action) }

type rbac struct{ c *armcore.Core }

// assignment is a stored role assignment.
type assignment struct {
	id, scope, principal, role string
	body                       []byte
}

func assignments(tx armcore.Tx) []assignment {
	var out []assignment
	for k, rec := range tx.Store().OfType(typeRoleAssignments) {
		if tx.Live(k) == nil {
			continue
		}
		var b struct {
			Properties struct {
				PrincipalID      string `json:"principalId"`
				RoleDefinitionID string `json:"roleDefinitionId"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(rec.Body, &b)
		i := strings.LastIndex(strings.ToLower(rec.ID), "/providers/microsoft.authorization/roleassignments/")
		out = append(out, assignment{id: rec.ID, scope: rec.ID[:max(i, 0)], principal: b.Properties.PrincipalID, role: b.Properties.RoleDefinitionID, body: rec.Body})
	}
	return out
}

// covers reports whether an assignment at scope applies at target: scope
// is target or above it.
func covers(scope, target string) bool {
	s, t := strings.ToLower(strings.TrimSuffix(scope, "/")), strings.ToLower(strings.TrimSuffix(target, "/"))
	return s == "" || s == t || strings.HasPrefix(t, s+"/") || strings.HasPrefix(s, "/providers/microsoft.management/")
}

// roleDefinition is the permissions of the role definition id (a built-in
// by GUID, or one stored).
func roleDefinition(tx armcore.Tx, id string) ([]Permission, bool) {
	guid := lastSegment(id)
	for _, role := range builtInRoles {
		if strings.EqualFold(role.guid, guid) {
			return []Permission{{Actions: role.actions, NotActions: role.notActions, DataActions: role.dataActs}}, true
		}
	}
	for k, rec := range tx.Store().OfType(typeRoleDefinitions) {
		if !strings.EqualFold(lastSegment(rec.ID), guid) || tx.Live(k) == nil {
			continue
		}
		var b struct {
			Properties struct {
				Permissions []Permission `json:"permissions"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(rec.Body, &b)
		return b.Properties.Permissions, true
	}
	return nil, false
}

// permissions are principal's permissions at scope.
func permissions(tx armcore.Tx, principal, scope string) []Permission {
	out := []Permission{}
	named := false
	sub := armid.SubscriptionOf(scope)
	for _, a := range assignments(tx) {
		if !strings.EqualFold(a.principal, principal) {
			continue
		}
		if sub != "" && strings.HasPrefix(strings.ToLower(a.scope), "/subscriptions/"+strings.ToLower(sub)) {
			named = true
		}
		if !covers(a.scope, scope) {
			continue
		}
		if perms, ok := roleDefinition(tx, a.role); ok {
			out = append(out, perms...)
		}
	}
	if principal == DefaultPrincipal && !named {
		out = append(out, Permission{Actions: []string{"*"}})
	}
	for i := range out {
		for _, l := range []*[]string{&out[i].Actions, &out[i].NotActions, &out[i].DataActions, &out[i].NotDataActions} {
			if *l == nil {
				*l = []string{}
			}
		}
	}
	return out
}

var (
	principalFilter  = regexp.MustCompile(`(?i)^\s*principalId\s+eq\s+'([^']*)'\s*$`)
	assignedToFilter = regexp.MustCompile(`(?i)^\s*assignedTo\('([^']*)'\)\s*$`)
	atScopeFilter    = regexp.MustCompile(`(?i)^\s*atScope\(\)\s*$`)
)

// Route answers the caller's permissions, and role assignment lists with a $filter.
func (rb rbac) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if t.Kind != armpath.Collection || r.Method != http.MethodGet {
		return false, nil
	}
	switch {
	case strings.EqualFold(t.Type, "Microsoft.Authorization/permissions"):
		var perms []Permission
		err := rb.c.Read(func(tx armcore.Tx) error {
			if err := tx.Ancestors(t, false); err != nil {
				return err
			}
			perms = permissions(tx, principalOf(r), t.Parent)
			return nil
		})
		if err != nil {
			return true, err
		}
		armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": perms})
		return true, nil
	case strings.EqualFold(t.Type, typeRoleAssignments) && r.URL.Query().Get("$filter") != "":
		return true, rb.listAssignments(w, t, r.URL.Query().Get("$filter"))
	}
	return false, nil
}

func (rb rbac) listAssignments(w http.ResponseWriter, t armpath.Target, filter string) error {
	scope := t.Parent
	var keep func(assignment) bool
	switch {
	case principalFilter.MatchString(filter):
		p := principalFilter.FindStringSubmatch(filter)[1]
		keep = func(a assignment) bool {
			return strings.EqualFold(a.principal, p) && (covers(a.scope, scope) || covers(scope, a.scope))
		}
	case assignedToFilter.MatchString(filter):
		p := assignedToFilter.FindStringSubmatch(filter)[1]
		keep = func(a assignment) bool { return strings.EqualFold(a.principal, p) && covers(a.scope, scope) }
	case atScopeFilter.MatchString(filter):
		keep = func(a assignment) bool { return covers(a.scope, scope) }
	default:
		return armcore.Errorf(http.StatusBadRequest, "InvalidFilter", "The filter '%s' is not supported; use principalId eq '{id}', assignedTo('{id}') or atScope().", filter)
	}
	items := []json.RawMessage{}
	_ = rb.c.Read(func(tx armcore.Tx) error {
		for _, a := range assignments(tx) {
			if keep(a) {
				if rec := tx.Live(armpath.Key(a.id)); rec != nil {
					items = append(items, armcore.View(rec, time.Now()))
				}
			}
		}
		return nil
	})
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
	return nil
}

// RequiredAction is the Azure RBAC action a request needs, and the scope it
// acts on; "" for requests the emulator does not authorize (reads, and the
// read-only checks: name checks, validate, what-if, policy checks).
func RequiredAction(r *http.Request, t armpath.Target) (action, scope string) {
	switch r.Method {
	case http.MethodPut, http.MethodPatch:
		if t.Kind == armpath.Resource {
			return typeForAction(t.Type) + "/write", t.ID
		}
	case http.MethodDelete:
		if t.Kind == armpath.Resource {
			return typeForAction(t.Type) + "/delete", t.ID
		}
	case http.MethodPost:
		if t.Kind == armpath.Collection && t.ParentIsResource {
			op := lastSegment(t.Type)
			if readOnlyOperations[strings.ToLower(op)] {
				return "", ""
			}
			pt, _ := armpath.Parse(t.Parent)
			if strings.EqualFold(pt.Type, "microsoft.resources/deployments") {
				return "", "" // whatIf, validate, cancel: not modelled
			}
			return typeForAction(pt.Type) + "/" + op + "/action", t.Parent
		}
	}
	return "", ""
}

// readOnlyOperations are POSTs that change nothing (ARM documents them as checks).
var readOnlyOperations = map[string]bool{"validate": true, "whatif": true, "checknameavailability": true}

// typeForAction is a type as RBAC actions spell it (a resource group's
// actions are Microsoft.Resources/subscriptions/resourceGroups/...).
func typeForAction(typ string) string {
	if strings.EqualFold(typ, armpath.TypeResourceGroup) {
		return "Microsoft.Resources/subscriptions/resourceGroups"
	}
	return typ
}

// Authorize refuses a write the caller's role assignments do not allow.
func (rb rbac) Authorize(r *http.Request, t armpath.Target) error {
	action, scope := RequiredAction(r, t)
	if action == "" {
		return nil
	}
	principal := principalOf(r)
	allowed := false
	_ = rb.c.Read(func(tx armcore.Tx) error {
		for _, p := range permissions(tx, principal, scope) {
			if p.Allows(action) {
				allowed = true
			}
		}
		return nil
	})
	if allowed {
		return nil
	}
	return armcore.Errorf(http.StatusForbidden, "AuthorizationFailed",
		"The client '%s' with object id '%s' does not have authorization to perform action '%s' over scope '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
		principal, principal, action, scope)
}
