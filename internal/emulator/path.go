package emulator

import (
	"strings"
)

// target is what an ARM request path names: one resource, a collection of
// resources of one type under a parent, or the resources of a resource group.
type target struct {
	kind targetKind
	// id is the resource ID as written in the request (resources only).
	id string
	// typ is the full resource type, e.g. "Microsoft.Network/virtualNetworks/subnets",
	// as written in the request.
	typ  string
	name string
	// parent is the ID of what contains the resource or collection: "" for the
	// tenant root, a subscription, a resource group or a resource.
	parent string
	// parentIsResource is true for child and extension resources, whose parent
	// must exist as a stored resource.
	parentIsResource bool
	sub, rg          string
}

type targetKind int

const (
	targetResource targetKind = iota + 1
	targetCollection
	targetGroupResources // /subscriptions/{s}/resourceGroups/{rg}/resources
	targetSubscription
)

const (
	typeResourceGroup = "Microsoft.Resources/resourceGroups"
	typeSubscription  = "Microsoft.Resources/subscriptions"
)

// parseTarget reads an ARM path. ok is false for paths ARM would not route
// (such as a bare provider namespace).
func parseTarget(path string) (t target, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
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
	if strings.EqualFold(segs[0], "subscriptions") {
		if len(segs) < 2 {
			return t, false
		}
		t.sub = segs[1]
		scope = "/subscriptions/" + segs[1]
		i = 2
		if len(segs) == 2 {
			return target{kind: targetSubscription, id: scope, typ: typeSubscription, name: segs[1], sub: segs[1]}, true
		}
		if strings.EqualFold(segs[2], "resourceGroups") {
			if len(segs) == 3 {
				return target{kind: targetCollection, typ: typeResourceGroup, parent: scope, sub: t.sub}, true
			}
			t.rg = segs[3]
			rgID := scope + "/resourceGroups/" + segs[3]
			if len(segs) == 4 {
				return target{kind: targetResource, id: rgID, typ: typeResourceGroup, name: segs[3], parent: scope, sub: t.sub, rg: t.rg}, true
			}
			if len(segs) == 5 && strings.EqualFold(segs[4], "resources") {
				return target{kind: targetGroupResources, parent: rgID, sub: t.sub, rg: t.rg}, true
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
			t.kind, t.typ, t.parent, t.parentIsResource = targetCollection, typ, parent, parentIsResource
			return t, true
		}
		id := parent + "/providers/" + typ + "/" + segs[i]
		name := segs[i]
		i++
		for {
			if i == len(segs) {
				t.kind, t.id, t.typ, t.name, t.parent, t.parentIsResource = targetResource, id, typ, name, parent, parentIsResource
				return t, true
			}
			if strings.EqualFold(segs[i], "providers") {
				parent, parentIsResource = id, true
				break
			}
			parent, parentIsResource = id, true
			typ += "/" + segs[i]
			if i+1 == len(segs) {
				t.kind, t.typ, t.parent, t.parentIsResource = targetCollection, typ, parent, parentIsResource
				return t, true
			}
			id += "/" + segs[i] + "/" + segs[i+1]
			name = segs[i+1]
			i += 2
		}
	}
}

// key is the case-insensitive identity of an ARM ID.
func key(id string) string { return strings.ToLower(id) }

// namespaceOf returns the provider namespace of a resource type.
func namespaceOf(typ string) string {
	if i := strings.IndexByte(typ, '/'); i >= 0 {
		return typ[:i]
	}
	return typ
}

// globMatch reports whether typ matches pattern, case-insensitively; "*" in
// the pattern matches any run of characters, including "/".
func globMatch(pattern, typ string) bool {
	p, s := strings.ToLower(pattern), strings.ToLower(typ)
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		j := strings.Index(s, mid)
		if j < 0 {
			return false
		}
		s = s[j+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
