package importer

import (
	"sort"
	"sync"

	"github.com/azkcli/azk/internal/extensions"
)

// Omitted is a resource import leaves out by design, as the operator's
// import does: one Azure makes itself and no manifest manages (built-in
// role definitions at every scope, a server's system databases and default
// parameters, role assignments a scope inherits). Nothing about it needs
// the user's attention, unlike LeftOut.
type Omitted struct {
	ID     string
	Reason extensions.ImportSkip
}

// OmittedGroup is the resources left out for one reason.
type OmittedGroup struct {
	// Reason is what they are; its Detail is empty (each resource's is in
	// Resources).
	Reason    extensions.ImportSkip
	Resources []Omitted
}

// String is the group in one line: "348 built-in role definitions".
func (g OmittedGroup) String() string { return g.Reason.Count(len(g.Resources)) }

// OmittedByReason groups what import left out by design, one group per
// reason, the largest first; within a group, by ARM ID.
func OmittedByReason(omitted []Omitted) []OmittedGroup {
	index := map[extensions.ImportSkip]int{}
	var out []OmittedGroup
	for _, o := range omitted {
		key := o.Reason
		key.Detail = ""
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, OmittedGroup{Reason: key})
		}
		out[i].Resources = append(out[i].Resources, o)
	}
	for _, g := range out {
		sort.Slice(g.Resources, func(i, j int) bool { return g.Resources[i].ID < g.Resources[j].ID })
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].Resources) != len(out[j].Resources) {
			return len(out[i].Resources) > len(out[j].Resources)
		}
		return out[i].Reason.Many < out[j].Reason.Many
	})
	return out
}

// omissions collects what import leaves out by design, from the listings'
// goroutines.
type omissions struct {
	mu   sync.Mutex
	list []Omitted
}

func (o *omissions) add(id string, reason extensions.ImportSkip) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.list = append(o.list, Omitted{ID: id, Reason: reason})
}
