package graph

import "slices"

// Direction says what a selection takes along with the resources chosen.
type Direction int

const (
	// WithDependencies adds everything the chosen resources depend on, so
	// that they can be planned and applied (owners, references, the
	// resources exporting the config maps they read).
	WithDependencies Direction = iota
	// WithDependents adds everything that depends on the chosen resources,
	// so that deleting them leaves nothing dangling.
	WithDependents
)

// Select returns the graph of the chosen nodes and what dir adds to them
// (transitively), in the graph's order. The whole input stays resolved:
// nodes keep their owners and edges outside the selection, and Outside
// lists the nodes left out.
func (g *Graph) Select(chosen []*Node, dir Direction) *Graph {
	keep := map[*Node]bool{}
	next := map[*Node][]*Node{}
	if dir == WithDependents {
		next = g.Dependents()
	} else {
		for _, n := range g.Nodes {
			next[n] = n.DependsOn()
		}
	}
	stack := append([]*Node(nil), chosen...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep[n] {
			continue
		}
		keep[n] = true
		stack = append(stack, next[n]...)
	}
	// A copy of the whole graph, so that every input-wide field (Namespaces,
	// DefaultPolicy, …) holds for the selection too.
	out := *g
	out.Nodes, out.Outside = nil, slices.Clone(g.Outside)
	for _, n := range g.Nodes {
		if keep[n] {
			out.Nodes = append(out.Nodes, n)
		} else {
			out.Outside = append(out.Outside, n)
		}
	}
	return &out
}
