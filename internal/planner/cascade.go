package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// Cascade is something a deletion would remove that must not go silently:
// ARM deletes a resource's children (and a resource group's contents) with
// it, so deleting one takes along Azure resources the manifests do not hold,
// or resources whose policy (detach-on-delete, skip) says they stay.
type Cascade struct {
	// By is the address of the resource whose deletion removes it.
	By string `json:"by"`
	// ID is the ARM ID removed; Address is set when it is in the manifests.
	ID      string `json:"armId"`
	Address string `json:"address,omitempty"`
	// Reason says why it matters.
	Reason string `json:"reason"`
}

// Reasons of a Cascade.
const (
	CascadeNotInInput = "not in the input"
	// cascadeKept: the change under review keeps it in the manifests.
	cascadeKept = "still in the manifests"
)

// cascadeMarked is the reason of a Cascade for a resource of the input
// whose policy keeps it in Azure, which deleting its parent defeats.
func cascadeMarked(policy string) string {
	return "marked " + policy + ", which deleting its parent defeats"
}

// childLister finds what deleting a resource would take with it, by listing
// its children (the contents, for a resource group): a child that also goes
// is walked into, any other is a Cascade. Children ARM creates with their
// parent (a storage account's default blob service) go with it unremarked.
type childLister struct {
	reader Reader
	// fate says of a child (its lower-cased ARM ID) whether it goes anyway,
	// and else why its going matters.
	fate func(id string) (goes bool, reason string)

	cascades []Cascade
	warnings []string
}

// walk lists the children of id, the resource at address by, and walks
// into those that go too (their children go as well).
func (l *childLister) walk(ctx context.Context, by, id, armType string) {
	type child struct{ id, typ string }
	var kids []child
	collect := func(path, apiVersion string) {
		items, err := l.reader.List(ctx, path, apiVersion)
		if err != nil {
			if !arm.IsNotFound(err) {
				l.warnings = append(l.warnings, fmt.Sprintf("could not list %s: %v", path, err))
			}
			return
		}
		for _, raw := range items {
			var item struct{ ID, Type string }
			if json.Unmarshal(raw, &item) == nil && item.ID != "" {
				kids = append(kids, child{item.ID, item.Type})
			}
		}
	}
	if strings.EqualFold(armType, "Microsoft.Resources/resourceGroups") {
		collect(id+"/resources", resourceGroupsAPIVersion)
	} else {
		for _, c := range childTypes()[strings.ToLower(armType)] {
			collect(id+"/"+c.segment, c.apiVersion)
		}
	}
	createdWith := map[string]bool{}
	for _, c := range extensions.ChildrenCreatedWith(armType) {
		createdWith[strings.ToLower(id+"/"+c)] = true
	}
	for _, k := range kids {
		goes, reason := l.fate(strings.ToLower(k.id))
		if !goes {
			if !createdWith[strings.ToLower(k.id)] { // ARM made it with its parent and removes it with it
				l.cascades = append(l.cascades, Cascade{By: by, ID: k.id, Reason: reason})
			}
			continue
		}
		typ := k.typ
		if parsed, err := armid.Parse(k.id); typ == "" && err == nil {
			typ = parsed.Type() // listed without its type
		}
		l.walk(ctx, by, k.id, typ)
	}
}

type childType struct{ segment, apiVersion string }

// childTypes maps a lower-cased ARM type to the child collections ASO knows
// for it, from the registry (the newest api-version of each).
var childTypes = sync.OnceValue(func() map[string][]childType {
	reg := registry.Default()
	newest := map[string]string{} // child type -> api-version
	for _, gvk := range reg.All() {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || !k.IsARM() || k.Scope == registry.ScopeExtension || strings.Count(k.ARMType, "/") < 2 {
			continue
		}
		t := strings.ToLower(k.ARMType)
		if k.APIVersion > newest[t] {
			newest[t] = k.APIVersion
		}
	}
	out := map[string][]childType{}
	for t, v := range newest {
		i := strings.LastIndexByte(t, '/')
		out[t[:i]] = append(out[t[:i]], childType{segment: t[i+1:], apiVersion: v})
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool { return list[i].segment < list[j].segment })
	}
	return out
})
