package planner

import (
	"fmt"
	"io"
	"strings"
)

// The change as a picture: a Mermaid graph of the resources a plan changes,
// the dependencies between them and one hop of unchanged context, coloured
// by action. GitHub renders it in a pull-request comment (WriteMarkdown
// includes it) and azk graph --changes -o mermaid prints it.

// mermaidClass is how the picture draws an action: a Mermaid class and its style.
type mermaidClass struct{ name, style string }

// changeClasses are the classes of the actions that change Azure. An action
// this table does not name, and notChanges does not either (one added since),
// is drawn as otherChange, so that no change is left out of the picture;
// giving it its colour is one row here.
var changeClasses = map[Action]mermaidClass{
	ActionCreate:  {"create", "fill:#dafbe1,stroke:#1a7f37,color:#0f5323"},
	ActionUpdate:  {"update", "fill:#fff8c5,stroke:#9a6700,color:#633c01"},
	ActionReplace: {"replace", "fill:#ffebe9,stroke:#cf222e,color:#82071e"},
}

// notChanges are the actions that leave Azure as it is: the picture shows
// such resources only as context, next to a change.
var notChanges = map[Action]bool{ActionNoChange: true, ActionSkip: true, ActionBlocked: true}

var (
	otherChange    = mermaidClass{"change", "fill:#ddf4ff,stroke:#0969da,color:#0a3069"}
	unchangedClass = mermaidClass{"unchanged", "fill:#f6f8fa,stroke:#8c959f,color:#57606a,stroke-dasharray:3 3"}
)

// changeClass is r's class, and whether r is a change.
func changeClass(r *Resource) (mermaidClass, bool) {
	if c, ok := changeClasses[r.Action]; ok {
		return c, true
	}
	if notChanges[r.Action] {
		return unchangedClass, false
	}
	return otherChange, true
}

// changeGraph is the picture of a plan's changes, as data.
type changeGraph struct {
	nodes []*Resource
	class map[*Resource]mermaidClass
	// edges run from a resource to one that depends on it (the order apply
	// follows), between nodes, at least one end a change.
	edges   [][2]*Resource
	changes int
}

// changeGraphOf is the changed resources of p, and with context the
// unchanged ones they depend on or that depend on them. A drift report
// proposes no change: its graph is empty.
func changeGraphOf(p *Plan, context bool) *changeGraph {
	g := &changeGraph{class: map[*Resource]mermaidClass{}}
	if p.Drift {
		return g
	}
	byAddress := make(map[string]*Resource, len(p.Resources))
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	changed := map[*Resource]bool{}
	for _, r := range p.Resources {
		if _, ok := changeClass(r); ok {
			changed[r] = true
			g.changes++
		}
	}
	shown := map[*Resource]bool{}
	for _, r := range p.Resources {
		for _, d := range r.DependsOn {
			dep := byAddress[d]
			if dep == nil || !changed[r] && !changed[dep] {
				continue
			}
			if changed[r] && changed[dep] || context {
				shown[r], shown[dep] = true, true
				g.edges = append(g.edges, [2]*Resource{dep, r})
			}
		}
	}
	for _, r := range p.Resources {
		if changed[r] || shown[r] {
			g.nodes = append(g.nodes, r)
			g.class[r], _ = changeClass(r)
		}
	}
	return g
}

// write writes the graph as Mermaid text.
func (g *changeGraph) write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("graph LR\n")
	ids := make(map[*Resource]string, len(g.nodes))
	for i, r := range g.nodes {
		ids[r] = fmt.Sprintf("r%d", i)
		fmt.Fprintf(&b, "  %s[\"%s %s<br/>%s\"]\n", ids[r], mermaidText(lookOf(r, false).symbol), mermaidText(r.Kind), mermaidText(r.Namespace+"/"+r.Name))
	}
	for _, e := range g.edges {
		fmt.Fprintf(&b, "  %s --> %s\n", ids[e[0]], ids[e[1]])
	}
	var classes []mermaidClass
	members := map[string][]string{}
	for _, r := range g.nodes {
		c := g.class[r]
		if members[c.name] == nil {
			classes = append(classes, c)
		}
		members[c.name] = append(members[c.name], ids[r])
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

// WriteMermaid writes the changes of p as a Mermaid graph (azk graph
// --changes -o mermaid): the resources it creates, updates or must replace,
// the dependencies between them, and the unchanged resources one
// dependency away, coloured by action. With nothing to change it writes a
// graph that says so.
func WriteMermaid(w io.Writer, p *Plan) error {
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
// WriteMarkdown, collapsed in <details> past mermaidOpenNodes; "" when
// nothing changes.
func markdownGraph(p *Plan) string {
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
	if n := len(g.nodes) - g.changes; n > 0 {
		context = fmt.Sprintf(" and %d unchanged next to them", n)
	}
	return fmt.Sprintf("<details><summary>Graph of the changes: %d %s%s</summary>\n\n%s</details>\n\n", g.changes, plural(g.changes, "resource", "resources"), context, block)
}
