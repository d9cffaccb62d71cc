package planner

import (
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
)

// waitNotes say, for a resource apply writes, that Azure holds it or its
// owner in a state in which the operator does not write it: apply waits
// until that passes (extensions.WriteBlocker, OwnerWriteBlocker).
func (m *maker) waitNotes(n *graph.Node, current map[string]any) []string {
	var notes []string
	if b := extensions.WriteBlockerFor(n.Kind.ARMType); b != nil && current != nil {
		if why := b.BlocksWrite(current); why != "" {
			notes = append(notes, "Azure reports that "+why+": apply waits until it settles before writing, as the operator does")
		}
	}
	if b := extensions.OwnerWriteBlockerFor(n.Kind.ARMType); b != nil && n.Owner != nil {
		if os := m.states[n.Owner]; os != nil && os.exists {
			if why := b.OwnerBlocksWrite(os.current); why != "" {
				notes = append(notes, "Azure reports that "+why+": apply waits until it settles before writing, as the operator does")
			}
		}
	}
	return notes
}
