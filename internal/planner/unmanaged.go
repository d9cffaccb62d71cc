package planner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/diag"
)

// listUnmanaged starts listing the resources of the input's resource groups
// that are not in the input, alongside the reads (each group once it is known
// to exist); the returned function waits for the sorted result.
func (m *maker) listUnmanaged() func() []string {
	inInput := map[string]bool{}
	groups := map[string]bool{}
	var groupIDs []string
	for _, n := range m.g.Outside {
		inInput[strings.ToLower(n.ID)] = true // in the manifests, not selected
	}
	for _, st := range m.ordered {
		inInput[strings.ToLower(st.node.ID)] = true
		if rg := armid.ResourceGroupOf(st.node.ID); rg != "" && !groups[strings.ToLower(rg)] {
			groups[strings.ToLower(rg)] = true
			groupIDs = append(groupIDs, rg)
		}
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out []string
	)
	for _, rg := range groupIDs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rs := m.stateByID(rg); rs != nil {
				if <-rs.read; !rs.exists {
					return // it will be created: nothing in it yet
				}
			}
			if m.ctx.Err() != nil {
				return
			}
			items, err := m.opts.Reader.List(m.ctx, rg+"/resources", resourceGroupsAPIVersion)
			if arm.IsNotFound(err) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				m.diags.Add(diag.Warningf(diag.Source{}, "", "", "listing the resources of %s for the unmanaged report: %v", rg, err))
				return
			}
			for _, raw := range items {
				var item struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(raw, &item) == nil && item.ID != "" && !inInput[strings.ToLower(item.ID)] {
					out = append(out, item.ID)
				}
			}
		}()
	}
	return func() []string {
		wg.Wait()
		sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
		return out
	}
}

// noteSameTypeUnmanaged tells, on each create, which unmanaged resources of
// the same type share its resource group: a new Azure name or owner is a new
// ARM ID, so a plan cannot tell a rename or a move from a second resource.
func noteSameTypeUnmanaged(p *Plan) {
	if len(p.Unmanaged) == 0 {
		return
	}
	// Each unmanaged ID is parsed once, not once for every create.
	type unmanaged struct{ armType, group, name string }
	others := make([]unmanaged, len(p.Unmanaged))
	for i, id := range p.Unmanaged {
		others[i] = unmanaged{armTypeOf(id), armid.ResourceGroupOf(id), id[strings.LastIndexByte(id, '/')+1:]}
	}
	for _, r := range p.Resources {
		if r.Action != ActionCreate {
			continue
		}
		rg := armid.ResourceGroupOf(r.ARMID)
		var names []string
		for _, o := range others {
			if strings.EqualFold(o.armType, r.ARMType) && strings.EqualFold(o.group, rg) {
				names = append(names, o.name)
			}
		}
		if len(names) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s in this resource group not in the input: %s; if this renames or moves one of them, "+
				"azk cannot tell (the Azure name and owner are part of the ARM ID): it creates a second resource and leaves the old one",
				r.ARMType, strings.Join(names, ", ")))
		}
	}
}
