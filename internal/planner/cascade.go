package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/registry"
)

// Cascade is something a deletion would remove that must not go silently:
// ARM deletes a resource's children (and a resource group's contents) with
// it, so deleting one takes along Azure resources the manifests do not hold,
// or resources whose policy (detach-on-delete, skip) says they stay. A
// collection that could not be listed is one too: the guard cannot vouch
// for what it holds, so the deletion is refused as if it held something.
type Cascade struct {
	// By is the address of the resource whose deletion removes it.
	By string `json:"by"`
	// ID is the ARM ID removed (for a failed listing, the collection's
	// path); Address is set when it is in the manifests.
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
	// CascadeUnlistedPrefix starts the reason of a collection whose listing
	// failed.
	CascadeUnlistedPrefix = "could not list"
)

// cascadeMarked is the reason of a Cascade for a resource of the input
// whose policy keeps it in Azure, which deleting its parent defeats.
func cascadeMarked(policy string) string {
	return "marked " + policy + ", which deleting its parent defeats"
}

// cascadeUnlisted is the reason of a Cascade for a collection whose listing
// failed.
func cascadeUnlisted(err error) string {
	return fmt.Sprintf("%s what it holds (%v): the cascade guard cannot vouch for it", CascadeUnlistedPrefix, err)
}

// Unverified reports a Cascade that stands for a listing that failed, not
// for a resource found.
func (c Cascade) Unverified() bool { return strings.HasPrefix(c.Reason, CascadeUnlistedPrefix) }

// childLister finds what deleting a resource would take with it, by listing
// every child collection ARM can hold under it (the contents, for a
// resource group), from the REST specs' child types: a child that also goes
// is walked into, any other is a Cascade. It fails closed: a listing that
// fails, or a type whose children azk does not know, is a Cascade too.
// Children that are part of their parent go with it unremarked and are
// walked into: the singletons ARM makes with it (a storage account's
// blobServices/default, which holds the containers) and the kinds Azure
// cannot delete on their own (a server's configurations).
type childLister struct {
	reader Reader
	// fate says of a child (its lower-cased ARM ID) whether it goes anyway,
	// and else why its going matters.
	fate func(id string) (goes bool, reason string)

	cascades []Cascade
}

// walk lists the children of id, the resource at address by, and walks
// into those that go too (their children go as well).
func (l *childLister) walk(ctx context.Context, by, id, armType string) {
	reg := registry.Default()
	type child struct{ id, typ string }
	var parts, kids []child
	collect := func(path, apiVersion string) {
		items, err := listChildren(ctx, l.reader, path, apiVersion)
		if err != nil {
			if !noSuchCollection(err) {
				l.cascades = append(l.cascades, Cascade{By: by, ID: path, Reason: cascadeUnlisted(err)})
			}
		}
		for _, item := range items {
			kids = append(kids, child{item.ID, item.Type})
		}
	}
	if strings.EqualFold(armType, "Microsoft.Resources/resourceGroups") {
		collect(id+"/resources", resourceGroupsAPIVersion)
	} else if _, known := reg.ARMType(armType); !known {
		l.cascades = append(l.cascades, Cascade{By: by, ID: id, Reason: "azk does not know which child resources ARM keeps under a " + armType + ": the cascade guard cannot vouch for them"})
	} else {
		for _, c := range reg.ChildTypes(armType) {
			switch {
			case c.ReadOnly: // views of the parent: nobody creates one
			case len(c.FixedNames) > 0:
				for _, name := range c.FixedNames {
					parts = append(parts, child{id + "/" + c.Segment + "/" + name, c.Type})
				}
			case partOfParent(c.Type) && len(reg.ChildTypes(c.Type)) == 0:
				// Settings Azure cannot delete on their own, holding nothing.
			default:
				collect(id+"/"+c.Segment, c.APIVersion)
			}
		}
	}
	for _, p := range parts {
		l.walk(ctx, by, p.id, p.typ)
	}
	for _, k := range kids {
		switch goes, reason := l.fate(strings.ToLower(k.id)); {
		case goes, partOfParent(k.typ):
			l.walk(ctx, by, k.id, k.typ)
		default:
			l.cascades = append(l.cascades, Cascade{By: by, ID: k.id, Reason: reason})
		}
	}
}

// listedChild is an item of a child collection, and its body as listed.
type listedChild struct {
	ID, Type string
	Raw      json.RawMessage `json:"-"`
}

// listChildren lists the collection at path. An item without an ID fails
// the listing, after the items that have one: what the collection holds
// cannot be vouched for.
func listChildren(ctx context.Context, reader Reader, path, apiVersion string) ([]listedChild, error) {
	items, err := reader.List(ctx, path, apiVersion)
	if err != nil {
		return nil, err
	}
	out := make([]listedChild, 0, len(items))
	for _, raw := range items {
		var item listedChild
		if json.Unmarshal(raw, &item) != nil || item.ID == "" {
			err = fmt.Errorf("an item without an ID")
			continue
		}
		if item.Type == "" {
			if parsed, err := armid.Parse(item.ID); err == nil {
				item.Type = parsed.Type() // listed without its type
			}
		}
		item.Raw = raw
		out = append(out, item)
	}
	return out, err
}

// partOfParent reports an ARM type Azure cannot delete on its own: it goes
// only with its parent, and so is no loss of its own when the parent goes.
func partOfParent(armType string) bool {
	t, ok := registry.Default().ARMType(armType)
	return ok && t.NoDelete
}

// noSuchCollection reports a listing ARM answered by saying there is
// nothing of the kind there: the parent is gone (404), or the provider has
// no such type here (InvalidResourceType, NoRegisteredProviderFound), so
// nothing of it can be taken along.
func noSuchCollection(err error) bool {
	var re *arm.ResponseError
	if !errors.As(err, &re) {
		return false
	}
	return re.StatusCode == http.StatusNotFound || strings.EqualFold(re.Code, "InvalidResourceType") || strings.EqualFold(re.Code, "NoRegisteredProviderFound")
}
