package preflight

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// AuthorizationAPIVersion is the Microsoft.Authorization api-version of
// permission, role assignment and role definition reads.
const AuthorizationAPIVersion = "2022-04-01"

// permission is one permissions block of a role definition.
type permission struct {
	Actions    []string `json:"actions"`
	NotActions []string `json:"notActions"`
}

// allows: an Actions pattern covers the action and no NotActions pattern
// does. Data actions never grant a control-plane action.
func (p permission) allows(action string) bool {
	return anyMatch(p.Actions, action) && !anyMatch(p.NotActions, action)
}

func anyMatch(patterns []string, action string) bool {
	for _, p := range patterns {
		if armid.GlobMatch(p, action) {
			return true
		}
	}
	return false
}

// actionType is a type as RBAC actions name it.
func actionType(typ string) string {
	if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
		return "Microsoft.Resources/subscriptions/resourceGroups"
	}
	return typ
}

// requiredActions are the actions applying res needs: write for a PUT,
// delete for a DELETE, and the POST actions it reads secrets with.
func requiredActions(res *planner.Resource) []string {
	var out []string
	if res.Deletes() {
		out = append(out, actionType(res.ARMType)+"/delete")
	}
	if res.Writes() {
		out = append(out, actionType(res.ARMType)+"/write")
		for _, p := range res.SecretReads {
			out = append(out, actionType(res.ARMType)+"/"+lastSegment(p)+"/action")
		}
	}
	return out
}

// permissions evaluates, for every request apply sends, whether the caller
// (GET {scope}/providers/Microsoft.Authorization/permissions) or, with
// Options.As, that principal (its role assignments at, above and below the
// subscription, and their role definitions) may send it.
func permissions(r *run) []planner.Finding {
	var out []planner.Finding
	cache := map[string][]permission{}
	created := r.createdGroups()
	var as *principalRoles
	if r.opts.As != "" {
		as = &principalRoles{r: r, principal: r.opts.As, roles: map[string][]permission{}}
	}
	for _, res := range r.plan.Resources {
		actions := requiredActions(res)
		if len(actions) == 0 || res.ARMID == "" {
			continue
		}
		sub, rg := scopeOf(res.ARMID)
		if sub == "" {
			continue
		}
		if created[strings.ToLower(scopeID(sub, rg))] {
			rg = "" // the group does not exist yet: what holds in it is inherited from the subscription
		}
		scope := scopeID(sub, rg)
		var perms []permission
		var err error
		if as != nil {
			perms, err = as.at(sub, res.ARMID)
		} else if p, ok := cache[scope]; ok {
			perms = p
		} else {
			perms, err = r.callerPermissions(scope)
			cache[scope] = perms
		}
		if err != nil {
			// Permissions not read are not missing: the check says it could not run, and nothing else.
			return []planner.Finding{checkFailed(res, "permissions", err)}
		}
		var missing []string
		for _, a := range actions {
			allowed := false
			for _, p := range perms {
				allowed = allowed || p.allows(a)
			}
			if !allowed {
				missing = append(missing, a)
			}
		}
		if len(missing) == 0 {
			continue
		}
		who := "the caller"
		if as != nil {
			who = "the operator's identity " + r.opts.As
		}
		where := "resource group " + rg
		if rg == "" {
			where = "subscription " + sub
		}
		out = append(out, finding(res, "permissions", "PermissionMissing", planner.SeverityError,
			"%s cannot %s in %s (no role assignment there or above grants it)", who, strings.Join(missing, ", "), where))
	}
	return out
}

func (r *run) callerPermissions(scope string) ([]permission, error) {
	items, err := r.client.List(r.ctx, scope+"/providers/Microsoft.Authorization/permissions", AuthorizationAPIVersion)
	if err != nil {
		return nil, err
	}
	out := make([]permission, 0, len(items))
	for _, it := range items {
		var p permission
		if err := json.Unmarshal(it, &p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// principalRoles reads a principal's role assignments once and evaluates
// them at any scope.
type principalRoles struct {
	r           *run
	principal   string
	assignments map[string][]assignment // by subscription
	roles       map[string][]permission // by role definition ID
}

type assignment struct{ scope, role string }

func (p *principalRoles) at(sub, id string) ([]permission, error) {
	if p.assignments == nil {
		p.assignments = map[string][]assignment{}
	}
	list, ok := p.assignments[sub]
	if !ok {
		items, err := p.r.client.ListFiltered(p.r.ctx, "/subscriptions/"+sub+"/providers/Microsoft.Authorization/roleAssignments",
			AuthorizationAPIVersion, fmt.Sprintf("principalId eq '%s'", p.principal))
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			var a struct {
				ID         string `json:"id"`
				Properties struct {
					Scope            string `json:"scope"`
					RoleDefinitionID string `json:"roleDefinitionId"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(it, &a); err != nil {
				return nil, err
			}
			scope := a.Properties.Scope
			if scope == "" {
				if i := strings.LastIndex(strings.ToLower(a.ID), "/providers/microsoft.authorization/roleassignments/"); i >= 0 {
					scope = a.ID[:i]
				}
			}
			list = append(list, assignment{scope: scope, role: a.Properties.RoleDefinitionID})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].scope < list[j].scope })
		p.assignments[sub] = list
	}
	var out []permission
	for _, a := range list {
		if !covers(a.scope, id) {
			continue
		}
		perms, ok := p.roles[strings.ToLower(a.role)]
		if !ok {
			resp, err := p.r.client.Get(p.r.ctx, a.role, AuthorizationAPIVersion)
			if err != nil {
				return nil, err
			}
			var def struct {
				Properties struct {
					Permissions []permission `json:"permissions"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(resp.Body, &def); err != nil {
				return nil, err
			}
			perms = def.Properties.Permissions
			p.roles[strings.ToLower(a.role)] = perms
		}
		out = append(out, perms...)
	}
	return out, nil
}

// covers: an assignment at scope applies to id (scope is id or above it).
func covers(scope, id string) bool {
	s, t := strings.ToLower(strings.TrimSuffix(scope, "/")), strings.ToLower(id)
	return s == "" || s == t || strings.HasPrefix(t, s+"/") || strings.HasPrefix(s, "/providers/microsoft.management/")
}
