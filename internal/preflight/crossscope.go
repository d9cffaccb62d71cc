package preflight

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// SubscriptionsAPIVersion is the api-version of the subscription read that
// tells the subscription's tenant.
const SubscriptionsAPIVersion = "2022-12-01"

// cosmosSQLRoleAssignment is the type whose scope Cosmos DB confines to its
// own account.
const cosmosSQLRoleAssignment = "microsoft.documentdb/databaseaccounts/sqlroleassignments"

// crossScope reads the scopes, ARM IDs and tenant IDs each write's body
// holds. A Cosmos DB SQL role assignment whose scope is outside its account
// is refused by Cosmos (an error, CrossScopeRefused); an ARM ID in another
// subscription than the resource (CrossSubscriptionReference) or a tenant
// ID other than the subscription's (CrossTenantReference) may be meant, so
// they are warnings.
func crossScope(r *run) []planner.Finding {
	var out []planner.Finding
	tenants := map[string]string{} // by subscription
	for _, res := range r.writes() {
		sub, _ := scopeOf(res.ARMID)
		if sub == "" {
			continue
		}
		body := bodyValue(res)
		if strings.EqualFold(res.ARMType, cosmosSQLRoleAssignment) {
			account := res.ARMID[:strings.Index(strings.ToLower(res.ARMID), "/sqlroleassignments/")]
			if scope, _ := lookupString(body, "properties", "scope"); strings.HasPrefix(scope, "/") && !isDataPlanePath(scope) && !covers(account, scope) {
				out = append(out, finding(res, "cross-scope", "CrossScopeRefused", planner.SeverityError,
					"properties.scope %s is outside the Cosmos DB account %s, and Cosmos refuses a SQL role assignment there: set spec.scope to the account's ID (or a database or container under it, /dbs/{db}[/colls/{c}]), or assign the role in the account that holds the data", scope, account))
			}
		}
		refs := map[string]string{}
		collectReferences(body, "", refs)
		for _, path := range sortedKeys(refs) {
			v := refs[path]
			if isTenantKey(path) {
				tenant, err := r.tenantOf(sub, tenants)
				if err != nil {
					out = append(out, checkFailed(res, "cross-scope", err))
					continue
				}
				if tenant != "" && !strings.EqualFold(v, tenant) {
					out = append(out, finding(res, "cross-scope", "CrossTenantReference", planner.SeverityWarning,
						"%s is %s, not the tenant %s of subscription %s: a resource that trusts another tenant is rarely meant (az account show --query tenantId tells yours)", path, v, tenant, sub))
				}
				continue
			}
			if strings.EqualFold(res.ARMType, cosmosSQLRoleAssignment) && path == "properties.scope" {
				continue // told above when Cosmos refuses it
			}
			if refSub := armid.SubscriptionOf(v); refSub != "" && !strings.EqualFold(refSub, sub) {
				out = append(out, finding(res, "cross-scope", "CrossSubscriptionReference", planner.SeverityWarning,
					"%s names %s, in subscription %s, not this resource's subscription %s: the caller and the operator's identity need access there too, and some providers refuse it", path, v, refSub, sub))
			}
		}
	}
	return out
}

// isDataPlanePath: a Cosmos scope written relative to the account.
func isDataPlanePath(scope string) bool {
	return scope == "/" || strings.HasPrefix(strings.ToLower(scope), "/dbs/")
}

func lookupString(m map[string]any, path ...string) (string, bool) {
	for i, k := range path {
		v, ok := m[k]
		if !ok {
			return "", false
		}
		if i == len(path)-1 {
			s, ok := v.(string)
			return s, ok
		}
		if m, ok = v.(map[string]any); !ok {
			return "", false
		}
	}
	return "", false
}

// collectReferences puts in refs, by their JSON path, the body's string
// values that are ARM IDs in a subscription, and those of its tenant ID
// properties.
func collectReferences(v any, path string, refs map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			p := k
			if path != "" {
				p = path + "." + k
			}
			collectReferences(e, p, refs)
		}
	case []any:
		for i, e := range t {
			collectReferences(e, fmt.Sprintf("%s[%d]", path, i), refs)
		}
	case string:
		if isTenantKey(path) && IsGUID(t) || strings.HasPrefix(strings.ToLower(t), "/subscriptions/") {
			refs[path] = t
		}
	}
}

// isTenantKey: the property (its last key) holds a tenant ID.
func isTenantKey(path string) bool {
	return strings.EqualFold(path[strings.LastIndexByte(path, '.')+1:], "tenantId")
}

// tenantOf reads the tenant a subscription belongs to, once.
func (r *run) tenantOf(sub string, cache map[string]string) (string, error) {
	if t, ok := cache[sub]; ok {
		return t, nil
	}
	resp, err := r.client.Get(r.ctx, "/subscriptions/"+sub, SubscriptionsAPIVersion)
	if err != nil {
		return "", err
	}
	var s struct {
		TenantID string `json:"tenantId"`
	}
	if err := json.Unmarshal(resp.Body, &s); err != nil {
		return "", err
	}
	cache[sub] = s.TenantID
	return s.TenantID, nil
}
