package planner

import "fmt"

// removalsNeedBase is what a plan without a base says under its unmanaged
// list: a stateless plan cannot tell a resource removed from the manifests
// from one that was never in them.
const removalsNeedBase = "    (a resource removed from the manifests stays in Azure and shows here: azk plan --base GITREF|DIR, the manifests before the change, plans its deletion)"

// listing is the order a plan's resources are listed in, and the title of
// the section each belongs to.
type listing struct {
	resources []*Resource
	titles    map[*Resource]string
	// current is the title last listed, see next.
	current string
}

// next is the title to list before r: its section's, when r is the first
// listed of it; "" otherwise.
func (l *listing) next(r *Resource) string {
	t := l.titles[r]
	if t == l.current {
		return ""
	}
	l.current = t
	return t
}

// listing orders the plan's resources for listing. Without a base they are
// listed in plan order, untitled. A three-way plan lists what this change
// does first, then the drift Azure already has, then the rest; a resource
// with differences of both origins is listed in both, each time with the
// differences of that origin.
func (p *Plan) listing() *listing {
	if p.Inputs.Base == "" || p.Drift {
		return &listing{resources: p.Resources}
	}
	var change, drift, rest []*Resource
	for _, r := range p.Resources {
		c, d := r.origins()
		if c {
			change = append(change, withOrigin(r, OriginChange, d))
		}
		if d {
			drift = append(drift, withOrigin(r, OriginDrift, c))
		}
		if !c && !d {
			rest = append(rest, r)
		}
	}
	l := &listing{titles: map[*Resource]string{}}
	for _, s := range []struct {
		title     string
		resources []*Resource
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
func withOrigin(r *Resource, o Origin, both bool) *Resource {
	if !both || r.Action == ActionRecreate {
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
