package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// The change as a picture: a Mermaid graph of the resources a plan changes,
// the dependencies between them and one hop of unchanged context, coloured
// by action. GitHub renders it in a pull-request comment (Markdown
// includes it) and azk graph --changes -o mermaid prints it.

// mermaidClass is how the picture draws an action: a Mermaid class and its style.
type mermaidClass struct{ name, style string }

// changeClasses are the classes of the actions that change Azure. An action
// this table does not name, and notChanges does not either (one added since),
// is drawn as otherChange, so that no change is left out of the picture;
// giving it its colour is one row here.
var changeClasses = map[planner.Action]mermaidClass{
	planner.ActionCreate:   {"create", "fill:#dafbe1,stroke:#1a7f37,color:#0f5323"},
	planner.ActionUpdate:   {"update", "fill:#fff8c5,stroke:#9a6700,color:#633c01"},
	planner.ActionReplace:  {"replacerequired", "fill:#ffebe9,stroke:#cf222e,color:#82071e,stroke-dasharray:6 3"},
	planner.ActionRecreate: {"replace", "fill:#fbefff,stroke:#8250df,color:#512a97"},
	planner.ActionDelete:   {"delete", "fill:#ffebe9,stroke:#cf222e,color:#82071e"},
	planner.ActionDetach:   {"detach", "fill:#fff1e5,stroke:#bc4c00,color:#762c00,stroke-dasharray:3 3"},
}

// notChanges are the actions that leave Azure as it is: the picture shows
// such resources only as context, next to a change.
var notChanges = map[planner.Action]bool{planner.ActionNoChange: true, planner.ActionSkip: true, planner.ActionBlocked: true}

var (
	otherChange    = mermaidClass{"change", "fill:#ddf4ff,stroke:#0969da,color:#0a3069"}
	unchangedClass = mermaidClass{"unchanged", "fill:#f6f8fa,stroke:#8c959f,color:#57606a,stroke-dasharray:3 3"}
)

// changeClass is r's class, and whether r is a change.
func changeClass(r *planner.Resource) (mermaidClass, bool) {
	if c, ok := changeClasses[r.Action]; ok {
		return c, true
	}
	if notChanges[r.Action] {
		return unchangedClass, false
	}
	return otherChange, true
}

// mermaidContext is how many unchanged resources the picture shows on each
// side of a change (what it depends on, what depends on it); the others are
// one node that counts them, so that a changed resource group with hundreds
// of resources in it stays a small picture.
const mermaidContext = 3

// pictureNode is one box of the picture: a resource, or the count of the
// unchanged resources next to a change that are not shown.
type pictureNode struct {
	id     string
	label  string // Mermaid text
	class  mermaidClass
	change bool
}

// changeGraph is the picture of a plan's changes, as data.
type changeGraph struct {
	nodes []*pictureNode
	// edges run from a node to one that depends on it (the order apply
	// follows), at least one end a change.
	edges   [][2]*pictureNode
	changes int
}

// changeGraphOf is the changed resources of p and the dependencies between
// them, and with context the unchanged resources they depend on or that
// depend on them, mermaidContext a side for each change, the others counted.
// A drift report proposes no change: its graph is empty.
func changeGraphOf(p *planner.Plan, context bool) *changeGraph {
	g := &changeGraph{}
	if p.Drift {
		return g
	}
	byAddress := make(map[string]*planner.Resource, len(p.Resources))
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	changed := map[*planner.Resource]bool{}
	// dependencies and dependents of each resource, in the plan's order
	dependencies, dependents := map[*planner.Resource][]*planner.Resource{}, map[*planner.Resource][]*planner.Resource{}
	for _, r := range p.Resources {
		if _, ok := changeClass(r); ok {
			changed[r] = true
			g.changes++
		}
		for _, d := range r.DependsOn {
			if dep := byAddress[d]; dep != nil {
				dependencies[r] = append(dependencies[r], dep)
				dependents[dep] = append(dependents[dep], r)
			}
		}
	}
	shown := map[*planner.Resource]bool{}
	for _, r := range p.Resources {
		if !changed[r] || !context {
			continue
		}
		for _, side := range [][]*planner.Resource{dependencies[r], dependents[r]} {
			n := 0
			for _, o := range side {
				if !changed[o] && n < mermaidContext {
					shown[o] = true
					n++
				}
			}
		}
	}
	nodes := map[*planner.Resource]*pictureNode{}
	for _, r := range p.Resources {
		if changed[r] || shown[r] {
			class, _ := changeClass(r)
			nodes[r] = &pictureNode{id: fmt.Sprintf("r%d", len(g.nodes)), class: class, change: changed[r],
				label: mermaidText(lookOf(r, false).symbol+" "+r.Kind) + "<br/>" + mermaidText(r.Namespace+"/"+r.Name)}
			g.nodes = append(g.nodes, nodes[r])
		}
	}
	var counts []*pictureNode
	var countEdges [][2]*pictureNode
	for _, r := range p.Resources {
		for _, d := range dependencies[r] {
			if (changed[r] || changed[d]) && nodes[r] != nil && nodes[d] != nil {
				g.edges = append(g.edges, [2]*pictureNode{nodes[d], nodes[r]})
			}
		}
		if !changed[r] || !context {
			continue
		}
		for i, side := range [][]*planner.Resource{dependencies[r], dependents[r]} {
			hidden := 0
			for _, o := range side {
				if nodes[o] == nil {
					hidden++
				}
			}
			if hidden == 0 {
				continue
			}
			count := &pictureNode{id: fmt.Sprintf("m%d", len(counts)), class: unchangedClass,
				label: mermaidText(fmt.Sprintf("and %d more unchanged", hidden))}
			counts = append(counts, count)
			if i == 0 {
				countEdges = append(countEdges, [2]*pictureNode{count, nodes[r]})
			} else {
				countEdges = append(countEdges, [2]*pictureNode{nodes[r], count})
			}
		}
	}
	g.nodes = append(g.nodes, counts...)
	g.edges = append(g.edges, countEdges...)
	return g
}

// write writes the graph as Mermaid text.
func (g *changeGraph) write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("graph LR\n")
	for _, n := range g.nodes {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", n.id, n.label)
	}
	for _, e := range g.edges {
		fmt.Fprintf(&b, "  %s --> %s\n", e[0].id, e[1].id)
	}
	var classes []mermaidClass
	members := map[string][]string{}
	for _, n := range g.nodes {
		if members[n.class.name] == nil {
			classes = append(classes, n.class)
		}
		members[n.class.name] = append(members[n.class.name], n.id)
	}
	for _, c := range classes {
		fmt.Fprintf(&b, "  classDef %s %s\n  class %s %s\n", c.name, c.style, strings.Join(members[c.name], ","), c.name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText escapes s for a quoted Mermaid label: every character but
// letters, digits and a few punctuation marks becomes an entity code (#34;),
// so that no name can end the label, start markup or inject a directive.
func mermaidText(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune(" .-_/+~!=?", c):
			b.WriteRune(c)
		default:
			fmt.Fprintf(&b, "#%d;", c)
		}
	}
	return b.String()
}

// Mermaid writes the changes of p as a Mermaid graph (azk graph
// --changes -o mermaid): the resources it creates, updates or must replace,
// the dependencies between them, and the unchanged resources one
// dependency away (mermaidContext a side of each change, the others
// counted), coloured by action. With nothing to change it writes a graph
// that says so.
func Mermaid(w io.Writer, p *planner.Plan) error {
	g := changeGraphOf(p, true)
	if g.changes == 0 {
		_, err := fmt.Fprintf(w, "graph LR\n  nothing[\"%s\"]\n", mermaidText(NoChangesLine))
		return err
	}
	return g.write(w)
}

// Sizes of the picture in a pull-request comment: past mermaidOpenNodes
// resources it is collapsed; past mermaidMaxBytes the unchanged context is
// left out, then the picture (the text lists every change either way).
const (
	mermaidOpenNodes = 20
	mermaidMaxBytes  = MarkdownLimit / 4
)

// mermaidLegend follows the picture in a comment.
const mermaidLegend = "_Arrows run from a resource to those that depend on it; dashed boxes are unchanged, shown for context._\n\n"

// markdownGraph is the picture of p's changes as a fenced mermaid block for
// Markdown, collapsed in <details> past mermaidOpenNodes; "" when
// nothing changes.
func markdownGraph(p *planner.Plan) string {
	var text strings.Builder
	var g *changeGraph
	for _, context := range []bool{true, false} {
		text.Reset()
		g = changeGraphOf(p, context)
		if g.changes == 0 {
			return ""
		}
		_ = g.write(&text)
		if text.Len() <= mermaidMaxBytes {
			break
		}
	}
	if text.Len() > mermaidMaxBytes {
		return fmt.Sprintf("_The graph of the %d changes is left out: it would be too long for a comment. `azk graph --changes -o mermaid` prints it._\n\n", g.changes)
	}
	block := "```mermaid\n" + text.String() + "```\n\n" + mermaidLegend
	if len(g.nodes) <= mermaidOpenNodes {
		return block
	}
	context := ""
	if len(g.nodes) > g.changes {
		context = ", with unchanged ones next to them"
	}
	return fmt.Sprintf("<details><summary>Graph of the changes: %d %s%s</summary>\n\n%s</details>\n\n", g.changes, plural(g.changes, "resource", "resources"), context, block)
}
