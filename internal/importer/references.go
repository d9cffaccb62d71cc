package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/armid"
)

// linker decides how each imported manifest refers to the resources Azure's
// body names by ARM ID: by group, kind and name when the resource was
// imported in the same run, so that the reference is an edge of the
// imported manifests' graph (and follows a rename), by ARM ID otherwise.
// A reference by name is a dependency, as an owner is: one that would close
// a cycle (a resource referring to its own child, or to something that
// depends on it) stays by ARM ID, since neither resource could then be
// applied first.
type linker struct {
	byID map[string]*Resource
	// deps are what each resource depends on: its owner, the resources it
	// refers to by name.
	deps map[*Resource][]*Resource
}

// idKey compares ARM IDs as ARM does: in any case.
func idKey(id string) string {
	if parsed, err := armid.Parse(id); err == nil {
		id = parsed.String()
	}
	return strings.ToLower(id)
}

func newLinker() *linker {
	return &linker{byID: map[string]*Resource{}, deps: map[*Resource][]*Resource{}}
}

// add makes res a resource references may name, owned by parent (nil when
// its owner was not imported).
func (l *linker) add(res, parent *Resource) {
	l.byID[idKey(res.ID)] = res
	if parent != nil {
		l.deps[res] = append(l.deps[res], parent)
	}
}

// referrer is the function a resource's spec writer refers to ids with.
func (l *linker) referrer(from *Resource) func(id string) map[string]any {
	return func(id string) map[string]any {
		to := l.byID[idKey(id)]
		switch {
		case to == nil:
			return map[string]any{"armId": id}
		case to == from || l.dependsOn(to, from):
			note := fmt.Sprintf("refers to %s by ARM ID: it depends on this resource, and a reference by name would make a cycle", id)
			if !slices.Contains(from.Notes, note) {
				from.Notes = append(from.Notes, note)
			}
			return map[string]any{"armId": id}
		}
		l.deps[from] = append(l.deps[from], to)
		return map[string]any{"group": to.Kind.Group, "kind": to.Kind.Kind, "name": to.Name}
	}
}

// dependsOn reports whether a depends on b, directly or through others.
func (l *linker) dependsOn(a, b *Resource) bool {
	seen := map[*Resource]bool{}
	stack := []*Resource{a}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range l.deps[r] {
			if d == b {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}
