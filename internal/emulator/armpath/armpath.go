// Package armpath reads ARM request paths and resource type names: what a
// path addresses (Target), the case-insensitive key of an ID, a type's
// provider namespace. It is the emulator's lowest layer and imports nothing
// of it.
package armpath

import (
	"strings"
)

// Target is what an ARM request path names: one resource, a collection of
// resources of one type under a parent, or the resources of a resource group.
type Target struct {
	Kind Kind
	// ID is the resource ID as written in the request (resources only).
	ID string
	// Type is the full resource type, e.g. "Microsoft.Network/virtualNetworks/subnets",
	// as written in the request.
	Type string
	Name string
	// Parent is the ID of what contains the resource or collection: "" for the
	// tenant root, a subscription, a resource group or a resource.
	Parent string
	// ParentIsResource is true for child and extension resources, whose parent
	// must exist as a stored resource.
	ParentIsResource bool
	Sub, RG          string
	// TagValue is the value a TagNames path names, if any.
	TagValue string
}

// Kind is the kind of thing a path addresses.
type Kind int

const (
	Resource       Kind = iota + 1
	Collection          // resources of one type under a parent
	GroupResources      // /subscriptions/{s}/resourceGroups/{rg}/resources
	Subscription
	// Providers is the resource providers of a subscription
	// (/subscriptions/{s}/providers) or of the tenant (/providers).
	Providers
	// Provider is one resource provider: /subscriptions/{s}/providers/{namespace}
	// or /providers/{namespace}; Name is the namespace.
	Provider
	Subscriptions         // /subscriptions
	Tenants               // /tenants
	SubscriptionResources // /subscriptions/{s}/resources
	Locations             // /subscriptions/{s}/locations
	// TagNames is ARM's subscription tag names API:
	// /subscriptions/{s}/tagNames (Name ""), /subscriptions/{s}/tagNames/{name}
	// and /subscriptions/{s}/tagNames/{name}/tagValues/{TagValue}.
	TagNames
	// GroupAction is a POST action on a resource group,
	// /subscriptions/{s}/resourceGroups/{rg}/{Name} (exportTemplate).
	GroupAction
)

const (
	TypeResourceGroup = "Microsoft.Resources/resourceGroups"
	TypeSubscription  = "Microsoft.Resources/subscriptions"
)

// Parse reads an ARM path. ok is false for paths ARM would not route
// (such as a bare provider namespace).
func Parse(path string) (t Target, ok bool) {
	segs := dropEmptyParentPaths(strings.Split(strings.Trim(path, "/"), "/"))
	if len(segs) == 1 && segs[0] == "" {
		return t, false
	}
	for _, s := range segs {
		if s == "" {
			return t, false
		}
	}
	i := 0
	scope := ""
	if t, ok := parseProviders(segs); ok {
		return t, true
	}
	if len(segs) == 1 && strings.EqualFold(segs[0], "tenants") {
		return Target{Kind: Tenants}, true
	}
	if strings.EqualFold(segs[0], "subscriptions") {
		if len(segs) < 2 {
			return Target{Kind: Subscriptions}, true
		}
		t.Sub = segs[1]
		scope = "/subscriptions/" + segs[1]
		i = 2
		if len(segs) == 2 {
			return Target{Kind: Subscription, ID: scope, Type: TypeSubscription, Name: segs[1], Sub: segs[1]}, true
		}
		if len(segs) == 3 && strings.EqualFold(segs[2], "resources") {
			return Target{Kind: SubscriptionResources, Parent: scope, Sub: t.Sub}, true
		}
		if len(segs) == 3 && strings.EqualFold(segs[2], "locations") {
			return Target{Kind: Locations, Parent: scope, Sub: t.Sub}, true
		}
		if strings.EqualFold(segs[2], "tagNames") {
			return parseTagNames(t.Sub, segs[3:])
		}
		if strings.EqualFold(segs[2], "resourceGroups") {
			if len(segs) == 3 {
				return Target{Kind: Collection, Type: TypeResourceGroup, Parent: scope, Sub: t.Sub}, true
			}
			t.RG = segs[3]
			rgID := scope + "/resourceGroups/" + segs[3]
			if len(segs) == 4 {
				return Target{Kind: Resource, ID: rgID, Type: TypeResourceGroup, Name: segs[3], Parent: scope, Sub: t.Sub, RG: t.RG}, true
			}
			if len(segs) == 5 && strings.EqualFold(segs[4], "resources") {
				return Target{Kind: GroupResources, Parent: rgID, Sub: t.Sub, RG: t.RG}, true
			}
			if len(segs) == 5 && strings.EqualFold(segs[4], "exportTemplate") {
				return Target{Kind: GroupAction, Name: segs[4], Parent: rgID, Sub: t.Sub, RG: t.RG}, true
			}
			if (len(segs) == 7 || len(segs) == 8) && strings.EqualFold(segs[4], "deployments") && strings.EqualFold(segs[6], "operations") {
				// ARM's REST specification (and so every SDK) reads a
				// group's deployment operations without the provider
				// segment: the same operations as under it.
				segs = append(append(segs[:4:4], "providers", "Microsoft.Resources"), segs[4:]...)
			}
			scope = rgID
			i = 4
		}
	}
	// From here: providers/{namespace}/{type}/{name}[/{childType}/{name}]...,
	// where another "providers" after a full type/name pair starts an extension resource.
	parent, parentIsResource := scope, false
	for {
		if i+3 > len(segs) {
			return t, false
		}
		if !strings.EqualFold(segs[i], "providers") {
			return t, false
		}
		typ := segs[i+1] + "/" + segs[i+2]
		i += 3
		if i == len(segs) {
			t.Kind, t.Type, t.Parent, t.ParentIsResource = Collection, typ, parent, parentIsResource
			return t, true
		}
		id := parent + "/providers/" + typ + "/" + segs[i]
		name := segs[i]
		i++
		for {
			if i == len(segs) {
				t.Kind, t.ID, t.Type, t.Name, t.Parent, t.ParentIsResource = Resource, id, typ, name, parent, parentIsResource
				return t, true
			}
			if strings.EqualFold(segs[i], "providers") {
				parent, parentIsResource = id, true
				break
			}
			parent, parentIsResource = id, true
			typ += "/" + segs[i]
			if i+1 == len(segs) {
				t.Kind, t.Type, t.Parent, t.ParentIsResource = Collection, typ, parent, parentIsResource
				return t, true
			}
			id += "/" + segs[i] + "/" + segs[i+1]
			name = segs[i+1]
			i += 2
		}
	}
}

// parseTagNames reads what follows /subscriptions/{s}/tagNames: nothing,
// {name}, or {name}/tagValues/{value}.
func parseTagNames(sub string, rest []string) (Target, bool) {
	t := Target{Kind: TagNames, Sub: sub, Parent: "/subscriptions/" + sub, Type: "Microsoft.Resources/tagNames"}
	switch {
	case len(rest) == 0:
		return t, true
	case len(rest) == 1:
		t.Name, t.ID = rest[0], t.Parent+"/tagNames/"+rest[0]
		return t, true
	case len(rest) == 3 && strings.EqualFold(rest[1], "tagValues"):
		t.Name, t.TagValue = rest[0], rest[2]
		t.Type += "/tagValues"
		t.ID = t.Parent + "/tagNames/" + rest[0] + "/tagValues/" + rest[2]
		return t, true
	}
	return t, false
}

// dropEmptyParentPaths removes the empty parent path ARM's generic
// resource paths allow between a provider namespace and a top-level type:
// providers/{namespace}//{type}/{name}, which the Azure CLI's `az resource
// -g G -n N --resource-type NS/type` sends, is providers/{namespace}/{type}/{name}.
// Any other empty segment is kept, so that Parse refuses it.
func dropEmptyParentPaths(segs []string) []string {
	out := segs[:0:0]
	for i, s := range segs {
		if s == "" && i >= 2 && i+1 < len(segs) && strings.EqualFold(segs[i-2], "providers") && segs[i-1] != "" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// parseProviders reads the provider paths: /providers[/{namespace}] and
// /subscriptions/{s}/providers[/{namespace}].
func parseProviders(segs []string) (Target, bool) {
	var t Target
	rest := segs
	if len(segs) >= 3 && strings.EqualFold(segs[0], "subscriptions") {
		t.Sub, rest = segs[1], segs[2:]
	}
	if len(rest) == 0 || len(rest) > 2 || !strings.EqualFold(rest[0], "providers") {
		return t, false
	}
	if t.Sub != "" {
		t.Parent = "/subscriptions/" + t.Sub
	}
	if len(rest) == 1 {
		t.Kind = Providers
		return t, true
	}
	t.Kind, t.Name, t.ID = Provider, rest[1], t.Parent+"/providers/"+rest[1]
	return t, true
}

// Key is the case-insensitive identity of an ARM ID.
func Key(id string) string { return strings.ToLower(id) }

// NamespaceOf returns the provider namespace of a resource type.
func NamespaceOf(typ string) string {
	if i := strings.IndexByte(typ, '/'); i >= 0 {
		return typ[:i]
	}
	return typ
}
