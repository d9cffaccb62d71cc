package corpusgen

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// armResource is what an "ARM URI:" template says about a kind.
type armResource struct {
	Type      string
	Scope     registry.Scope
	FixedName string
}

// resourceGroupURI is the one ARM URI without a /providers/ segment.
const resourceGroupURI = "/subscriptions/{subscriptionid}/resourcegroups/{resourcegroupname}"

// parseARMURI derives type, scope and fixed name from a URI template such as
// /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Storage/storageAccounts/{accountName}/blobServices/default.
func parseARMURI(uri string) (armResource, error) {
	if strings.EqualFold(uri, resourceGroupURI) {
		return armResource{Type: "Microsoft.Resources/resourceGroups", Scope: registry.ScopeSubscription}, nil
	}
	// The resource is named after the last /providers/: anything before it that
	// itself names a resource (…/providers/{clusterRp}/{clusterResourceName}/{clusterName})
	// makes this an extension resource on that resource.
	i := strings.LastIndex(strings.ToLower(uri), "/providers/")
	if i < 0 {
		return armResource{}, fmt.Errorf("ARM URI %q has no /providers/ segment", uri)
	}
	prefix, tail := uri[:i], uri[i+len("/providers/"):]
	var res armResource
	segs := strings.Split(tail, "/")
	lowerPrefix := strings.ToLower(prefix)
	switch {
	case prefix == "":
		res.Scope = registry.ScopeTenant
	case strings.HasPrefix(prefix, "/{") || strings.Contains(lowerPrefix, "/providers/"):
		res.Scope = registry.ScopeExtension
	case lowerPrefix == "/subscriptions/{subscriptionid}" && len(segs) > 2 && strings.EqualFold(segs[1], "locations"):
		res.Scope = registry.ScopeLocation
		segs = append(segs[:1:1], segs[3:]...)
	case lowerPrefix == "/subscriptions/{subscriptionid}":
		res.Scope = registry.ScopeSubscription
	case strings.HasPrefix(lowerPrefix, resourceGroupURI):
		res.Scope = registry.ScopeResourceGroup
	default:
		return armResource{}, fmt.Errorf("ARM URI %q: unknown scope %q", uri, prefix)
	}
	// segs is namespace, then type/name pairs.
	if len(segs) < 3 || len(segs)%2 == 0 {
		return armResource{}, fmt.Errorf("ARM URI %q: expected namespace followed by type/name pairs", uri)
	}
	types := []string{segs[0]}
	for i := 1; i < len(segs); i += 2 {
		types = append(types, segs[i])
	}
	res.Type = strings.Join(types, "/")
	if last := segs[len(segs)-1]; !strings.HasPrefix(last, "{") {
		res.FixedName = last
	}
	return res, nil
}
