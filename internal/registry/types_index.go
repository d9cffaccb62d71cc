package registry

import "strings"

// KindForARMType is the kind whose resources have the ARM resource type
// armType (any case), from the index alone; ok is false for types no ASO
// kind manages. Every ARM type belongs to one kind.
func (r *Registry) KindForARMType(armType string) (GroupKind, bool) {
	for _, gvk := range r.all {
		if k := r.kinds[gvk]; k.ARMType != "" && strings.EqualFold(k.ARMType, armType) {
			return GroupKind{Group: gvk.Group, Kind: gvk.Kind}, true
		}
	}
	return GroupKind{}, false
}

// ChildKinds are the kinds whose ARM type is a child of armType (one more
// type segment: Microsoft.Network/virtualNetworks/subnets under
// Microsoft.Network/virtualNetworks), and the extension kinds, which any
// resource may hold unless armType is an extension type itself.
func (r *Registry) ChildKinds(armType string) (children, extensions []GroupKind) {
	seen := map[GroupKind]bool{}
	parentIsExtension := false
	for _, gvk := range r.all {
		if k := r.kinds[gvk]; strings.EqualFold(k.ARMType, armType) && k.Scope == ScopeExtension {
			parentIsExtension = true
		}
	}
	prefix := strings.ToLower(armType) + "/"
	for _, gvk := range r.all {
		k := r.kinds[gvk]
		gk := GroupKind{Group: gvk.Group, Kind: gvk.Kind}
		if k.ARMType == "" || seen[gk] {
			continue
		}
		t := strings.ToLower(k.ARMType)
		switch {
		case k.Scope == ScopeExtension && !parentIsExtension:
			seen[gk] = true
			extensions = append(extensions, gk)
		case k.Scope != ScopeExtension && strings.HasPrefix(t, prefix) && !strings.Contains(t[len(prefix):], "/"):
			seen[gk] = true
			children = append(children, gk)
		}
	}
	return children, extensions
}
