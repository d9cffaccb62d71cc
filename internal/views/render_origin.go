package views

import (
	"fmt"

	"github.com/azkcli/azk/internal/planner"
)

// removalsNeedBase is what a plan without a base says under its unmanaged
// list: a stateless plan cannot tell a resource removed from the manifests
// from one that was never in them.
const removalsNeedBase = "    (a resource removed from the manifests stays in Azure and shows here: azk plan --base GITREF|DIR, the manifests before the change, plans its deletion)"

// listing is the order a plan's resources are listed in, and the title of
// the section each belongs to.
type listing struct {
	resources []*planner.Resource
	titles    map[*planner.Resource]string
	// current is the title last listed, see next.
	current string
}

// next is the title to list before r: its section's, when r is the first
// listed of it; "" otherwise.
func (l *listing) next(r *planner.Resource) string {
	t := l.titles[r]
	if t == l.current {
		return ""
	}
	l.current = t
	return t
}

// sections splits the listing at each change of title, in order.
func (l *listing) sections() [][]*planner.Resource {
	var out [][]*planner.Resource
	for i, r := range l.resources {
		if i == 0 || l.titles[r] != l.titles[l.resources[i-1]] {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// listingOf orders the plan's resources for listing. Without a base they are
// listed in plan order, untitled. A three-way plan lists what this change
// does first, then the drift Azure already has, then the rest; a resource
// with differences of both origins is listed in both, each time with the
// differences of that origin.
func listingOf(p *planner.Plan) *listing {
	if p.Inputs.Base == "" || p.Drift {
		return &listing{resources: p.Resources}
	}
	var change, drift, rest []*planner.Resource
	for _, r := range p.Resources {
		c, d := r.Origins()
		if c {
			change = append(change, withOrigin(r, planner.OriginChange, d))
		}
		if d {
			drift = append(drift, withOrigin(r, planner.OriginDrift, c))
		}
		if !c && !d {
			rest = append(rest, r)
		}
	}
	l := &listing{titles: map[*planner.Resource]string{}}
	for _, s := range []struct {
		title     string
		resources []*planner.Resource
	}{
		{fmt.Sprintf("This change: %d %s", len(change), plural(len(change), "resource", "resources")), change},
		{fmt.Sprintf("Drift Azure already has (apply reverts it): %d %s", len(drift), plural(len(drift), "resource", "resources")), drift},
		{"Also in the plan:", rest},
	} {
		for _, r := range s.resources {
			l.titles[r] = s.title
		}
		l.resources = append(l.resources, s.resources...)
	}
	return l
}

// withOrigin is r with only its changes of origin o, when it has changes of
// both origins; a replacement is shown whole.
func withOrigin(r *planner.Resource, o planner.Origin, both bool) *planner.Resource {
	if !both || r.Action == planner.ActionRecreate {
		return r
	}
	c := *r
	c.Changes = nil
	for _, ch := range r.Changes {
		if ch.Origin == o {
			c.Changes = append(c.Changes, ch)
		}
	}
	return &c
}
