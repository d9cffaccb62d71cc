package extensions

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
)

// PreservedChildren is the body modifier of a parent whose PUT replaces a
// collection of child resources that users manage as separate resources
// (subnets of a virtual network): the operator carries the children that
// exist in Azure into the parent's body so that they are not wiped.
type PreservedChildren struct {
	// Path is the collection's place in the ARM body.
	Path []string
}

// ModifyBody merges the collection from the resource's current state into
// body: items the spec names win, items only Azure has are kept.
func (p PreservedChildren) ModifyBody(t Target, body map[string]any, _ *Outcome) error {
	if t.Get == nil {
		return nil // offline: rendered as a create, which has no children yet
	}
	current, err := t.Get(t.ID, t.APIVersion)
	if err != nil {
		return fmt.Errorf("reading the current %s to keep its %s: %v", t.ARMType, p.Path[len(p.Path)-1], err)
	}
	have, _ := armjson.Lookup(current, p.Path)
	existing, _ := have.([]any)
	if len(existing) == 0 {
		return nil
	}
	want, _ := armjson.Lookup(body, p.Path)
	desired, _ := want.([]any)
	named := map[string]bool{}
	for _, item := range desired {
		if m, ok := item.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				named[strings.ToLower(name)] = true
			}
		}
	}
	merged := append([]any(nil), desired...)
	project := t.Project(p.Path)
	for _, item := range existing {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if name, _ := m["name"].(string); !named[strings.ToLower(name)] {
			merged = append(merged, project(m))
		}
	}
	armjson.Put(body, p.Path, merged)
	return nil
}
