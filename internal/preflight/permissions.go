package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/arm"
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
// subscription, and their role definitions) may send it, at the scope the
// write lands on (landingScope), which the finding names. The caller's
// permissions are read once per group (or subscription), and again at the
// landing scope only for what the group's do not grant: a role assigned on
// the resource itself is seen without a read per resource.
func permissions(r *run) []planner.Finding {
	var out []planner.Finding
	cache := map[string][]permission{}
	failed := map[string]error{}
	callerAt := func(scope string) ([]permission, error) {
		key := strings.ToLower(scope)
		if p, ok := cache[key]; ok || failed[key] != nil {
			return p, failed[key]
		}
		p, err := r.callerPermissions(scope)
		cache[key], failed[key] = p, err
		return p, err
	}
	created := r.createdIDs()
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
		landing := landingScope(res, created)
		var missing []string
		var err error
		if as != nil {
			var perms []permission
			if perms, err = as.at(sub, landing); err == nil {
				missing = missingActions(actions, perms)
			}
		} else {
			var perms []permission
			if perms, err = callerAt(scopeID(sub, rg)); err == nil {
				missing = missingActions(actions, perms)
			}
			if err == nil && len(missing) > 0 && !strings.EqualFold(landing, scopeID(sub, rg)) {
				if perms, err = callerAt(landing); err == nil {
					missing = missingActions(actions, perms)
				}
			}
		}
		if err != nil {
			// Permissions not read are not missing: the check says it could not run, and nothing else.
			return []planner.Finding{checkFailed(res, "permissions", err)}
		}
		if len(missing) == 0 {
			continue
		}
		who := "the caller"
		if as != nil {
			who = "the operator's identity " + r.opts.As
		}
		out = append(out, finding(res, "permissions", "PermissionMissing", planner.SeverityError,
			"%s cannot %s in %s, where this write lands (no role assignment there or above grants it)", who, strings.Join(missing, ", "), describeScope(landing)))
	}
	return out
}

func missingActions(actions []string, perms []permission) []string {
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
	return missing
}

// createdIDs are the ARM IDs (lower case) the plan creates.
func (r *run) createdIDs() map[string]bool {
	out := map[string]bool{}
	for _, res := range r.plan.Resources {
		if res.Action == planner.ActionCreate && res.ARMID != "" {
			out[strings.ToLower(res.ARMID)] = true
		}
	}
	return out
}

// landingScope is the scope whose role assignments (with those above it)
// decide a write: the resource itself when it exists, else the nearest
// container of it that exists (its parent resource, the resource an
// extension resource is on, its group, its subscription).
func landingScope(res *planner.Resource, created map[string]bool) string {
	id := res.ARMID
	if res.Action != planner.ActionCreate {
		return id
	}
	for {
		parent := containerOf(id)
		if parent == "" || parent == id {
			return id
		}
		id = parent
		if !created[strings.ToLower(id)] {
			return id
		}
	}
}

// containerOf is the scope directly above an ARM ID, "" above a subscription.
func containerOf(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return ""
	}
	switch n := len(parsed.Providers); {
	case n > 0:
		last := &parsed.Providers[n-1]
		last.Resources = last.Resources[:len(last.Resources)-1]
		if len(last.Resources) == 0 {
			parsed.Providers = parsed.Providers[:n-1]
		}
		return parsed.String()
	case parsed.ResourceGroup != "":
		return "/subscriptions/" + parsed.Subscription
	}
	return ""
}

// describeScope names a scope as a finding says it.
func describeScope(scope string) string {
	parsed, err := armid.Parse(scope)
	switch {
	case err != nil:
		return scope
	case len(parsed.Providers) > 0:
		return scope
	case parsed.ResourceGroup != "":
		return "resource group " + parsed.ResourceGroup
	}
	return "subscription " + parsed.Subscription
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

// IdentityAPIVersion is the Microsoft.ManagedIdentity api-version of the
// user-assigned identity list that maps a client ID to its object ID.
const IdentityAPIVersion = "2023-01-31"

// IsGUID: s is a GUID, in any case, with its hyphens.
func IsGUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// ObjectIDHint tells how to find the object ID --as wants.
const ObjectIDHint = "pass the object (principal) ID of the operator's identity: for a user-assigned identity `az identity show -g GROUP -n NAME --query principalId -o tsv`, for a service principal `az ad sp show --id CLIENT_ID --query id -o tsv`"

// ResolvePrincipal maps what --as names to the object ID whose role
// assignments the permissions check reads. ASO's settings hold the
// identity's client ID, an easy mistake: a GUID that is the client ID of a
// user-assigned identity in a subscription the plan writes to (listed from
// ARM) becomes that identity's principal ID. The finding (info) says what
// was evaluated: the mapping, or that no identity confirmed the GUID (it is
// then evaluated as the object ID it is given as).
func ResolvePrincipal(ctx context.Context, client *arm.Client, p *planner.Plan, as string) (string, planner.Finding) {
	subs := map[string]bool{}
	for _, res := range p.Resources {
		if sub, _ := scopeOf(res.ARMID); sub != "" && (res.Writes() || res.Deletes()) {
			subs[strings.ToLower(sub)] = true
		}
	}
	var unanswered []string
	for _, sub := range sortedKeys(subs) {
		items, err := client.List(ctx, "/subscriptions/"+sub+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities", IdentityAPIVersion)
		if err != nil {
			unanswered = append(unanswered, fmt.Sprintf("subscription %s (%v)", sub, err))
			continue
		}
		for _, it := range items {
			var id struct {
				ID         string `json:"id"`
				Properties struct {
					ClientID    string `json:"clientId"`
					PrincipalID string `json:"principalId"`
				} `json:"properties"`
			}
			if json.Unmarshal(it, &id) != nil {
				continue
			}
			switch {
			case strings.EqualFold(id.Properties.PrincipalID, as):
				return as, finding(nil, "permissions", "PrincipalConfirmed", planner.SeverityInfo,
					"--as %s is the object (principal) ID of the user-assigned identity %s", as, id.ID)
			case strings.EqualFold(id.Properties.ClientID, as) && id.Properties.PrincipalID != "":
				return id.Properties.PrincipalID, finding(nil, "permissions", "PrincipalFromClientID", planner.SeverityInfo,
					"--as %s is the client ID of the user-assigned identity %s: evaluated its object (principal) ID %s, which role assignments name (pass that to --as)",
					as, id.ID, id.Properties.PrincipalID)
			}
		}
	}
	why := "no user-assigned identity in the plan's subscriptions has it as client or object ID"
	if len(unanswered) > 0 {
		why = "the user-assigned identity list did not answer in " + strings.Join(unanswered, ", ")
	}
	return as, finding(nil, "permissions", "PrincipalUnconfirmed", planner.SeverityInfo,
		"--as %s is evaluated as an object ID as given (%s); if it is a service principal's client (application) ID, %s", as, why, ObjectIDHint)
}
