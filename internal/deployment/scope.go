package deployment

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/deployment/armtemplate"
)

// Scope is where a deployment runs: a resource group, a subscription, or the
// tenant (both fields empty).
type Scope struct {
	Subscription  string `json:"subscription,omitempty"`
	ResourceGroup string `json:"resourceGroup,omitempty"`
}

// scopeOf is the scope a template deploys the resource id into: its
// resource group, else its subscription (a resource group itself is created
// at subscription scope), else the tenant.
func scopeOf(id armid.ID) (Scope, error) {
	if len(id.Providers) > 0 && strings.EqualFold(id.Providers[0].Namespace, "Microsoft.Management") && id.Subscription == "" {
		return Scope{}, fmt.Errorf("%s: resources at management group scope cannot be handed to a deployment by azk; apply them with the default engine", id)
	}
	if len(id.Providers) == 0 {
		return Scope{Subscription: id.Subscription}, nil
	}
	return Scope{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}, nil
}

// ID is the scope's ARM path: "/subscriptions/{s}/resourceGroups/{rg}",
// "/subscriptions/{s}" or "" for the tenant.
func (s Scope) ID() string { return armtemplate.ScopeID(s.Subscription, s.ResourceGroup) }

func (s Scope) String() string {
	switch {
	case s.ResourceGroup != "":
		return "resource group " + s.ResourceGroup
	case s.Subscription != "":
		return "subscription " + s.Subscription
	}
	return "tenant"
}

// schema is the template schema ARM expects for deployments at the scope.
func (s Scope) schema() string {
	switch {
	case s.ResourceGroup != "":
		return "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
	case s.Subscription != "":
		return "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#"
	}
	return "https://schema.management.azure.com/schemas/2019-08-01/tenantDeploymentTemplate.json#"
}

// DeploymentID is the ARM ID of the deployment name at the scope.
func (s Scope) DeploymentID(name string) string {
	return s.ID() + "/providers/Microsoft.Resources/deployments/" + name
}

// StackID is the ARM ID of the deployment stack name at the scope.
func (s Scope) StackID(name string) string {
	return s.ID() + "/providers/Microsoft.Resources/deploymentStacks/" + name
}

// contains reports whether a template at s can name id with the scope's own
// resource ID functions: id lives in s (a resource group counts as in its
// subscription).
func (s Scope) contains(id armid.ID) bool {
	in, err := scopeOf(id)
	return err == nil && in == s
}

// idExpr is a template expression (without brackets) for the ARM ID of id,
// as a template deployed at scope s writes it: with resourceId(),
// subscriptionResourceId(), tenantResourceId() or extensionResourceId() for
// resources in s, else as the literal ID.
func idExpr(id armid.ID, s Scope) string {
	if isScope(id, s) {
		return scopeSelf(s)
	}
	if !s.contains(id) {
		return quote(id.String())
	}
	n := len(id.Providers)
	if n > 1 {
		parent := armid.ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup, Providers: id.Providers[:n-1]}
		return fmt.Sprintf("extensionResourceId(%s, %s)", idExpr(parent, s), typeAndNames(id))
	}
	switch {
	case s.ResourceGroup != "":
		return "resourceId(" + typeAndNames(id) + ")"
	case s.Subscription != "":
		return "subscriptionResourceId(" + typeAndNames(id) + ")"
	}
	return "tenantResourceId(" + typeAndNames(id) + ")"
}

// isScope reports whether id is the scope s itself.
func isScope(id armid.ID, s Scope) bool {
	return len(id.Providers) == 0 && id.Subscription == s.Subscription && id.ResourceGroup == s.ResourceGroup && s.Subscription != ""
}

func scopeSelf(s Scope) string {
	if s.ResourceGroup != "" {
		return "resourceGroup().id"
	}
	return "subscription().id"
}

// typeAndNames are the arguments naming id's own resource: its type, then
// each name ("'Microsoft.Network/virtualNetworks/subnets', 'vnet', 'web'").
func typeAndNames(id armid.ID) string {
	args := []string{quote(id.Type())}
	for _, n := range resourceNames(id) {
		args = append(args, quote(n))
	}
	return strings.Join(args, ", ")
}

// resourceNames are the names of id's own resource, parent first; a
// resource group's is its name.
func resourceNames(id armid.ID) []string {
	if n := len(id.Providers); n > 0 {
		var out []string
		for _, r := range id.Providers[n-1].Resources {
			out = append(out, r.Name)
		}
		return out
	}
	return []string{id.ResourceGroup}
}

// quote is a template string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
