package applier

import (
	"net/http"
	"slices"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/registry"
)

// readerDeletes splits off the DELETE of each resource replaced because a
// value it reads from a replaced resource is one Azure accepts only at
// creation (planner.ReasonInputReplaced) into a step of its own, which the
// step deleting that resource waits for. As Terraform destroys dependents
// first, the reader is deleted before what it reads from (a role
// assignment before the identity whose principal it names), and, its own
// step waiting for the new resource as before, created again after it.
// steps[i] is resources[i]'s; the new steps, returned in order, get the
// indexes from next on.
func readerDeletes(resources []*planner.Resource, steps []*step, byAddress map[string]*step, next int) ([]*step, map[*step]*planner.Resource) {
	byAddr := make(map[string]*planner.Resource, len(resources))
	for _, r := range resources {
		byAddr[r.Address] = r
	}
	var added []*step
	of := map[*step]*planner.Resource{}
	deletes := map[string]*step{} // by address
	for i, r := range resources {
		if r.Reason != planner.ReasonInputReplaced || !r.Deletes() {
			continue
		}
		d := &step{index: next, cost: deleteCost(r.ID()), lane: laneOf(r.ID()), method: http.MethodDelete}
		next++
		added = append(added, d)
		of[d], deletes[r.Address] = r, d
		put := steps[i]
		put.deps = append(put.deps, d)
		put.method, put.cost = http.MethodPut, costOf(r.ARMType, registry.OpCreate)
	}
	// The step that sends a resource's DELETE: a reader's own, else its
	// step, or that of the owner ARM deletes it with.
	deleterOf := func(r *planner.Resource) *step {
		if r.CascadedBy != "" {
			r = byAddr[r.CascadedBy]
			if r == nil {
				return nil
			}
		}
		if d := deletes[r.Address]; d != nil {
			return d
		}
		return byAddress[r.Address]
	}
	for _, d := range added {
		var deleters []*step
		for _, in := range of[d].ReplacedInputs {
			from := byAddr[in.From]
			if from == nil {
				continue // not in this apply (--target)
			}
			if deleter := deleterOf(from); deleter != nil && !slices.Contains(deleters, deleter) {
				deleters = append(deleters, deleter)
				deleter.deps = append(deleter.deps, d)
			}
		}
	}
	return added, of
}
