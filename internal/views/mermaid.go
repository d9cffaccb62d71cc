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
// such resources only as context, next to a change. A blocked resource
// changes nothing either, but it is what keeps the plan from applying: it
// is drawn, in a class of its own, as replace-required is.
var notChanges = map[planner.Action]bool{planner.ActionNoChange: true, planner.ActionSkip: true}

var (
	otherChange    = mermaidClass{"change", "fill:#ddf4ff,stroke:#0969da,color:#0a3069"}
	unchangedClass = mermaidClass{"unchanged", "fill:#f6f8fa,stroke:#8c959f,color:#57606a,stroke-dasharray:3 3"}
	blockedClass   = mermaidClass{"blocked", "fill:#eaeef2,stroke:#cf222e,stroke-width:3px,color:#24292f"}
	// In a three-way plan (--base), an update that only reverts drift
	// Azure already has, and one that does both, are told apart from what
	// this change does.
	driftClass          = mermaidClass{"drift", "fill:#ffeff7,stroke:#bf3989,color:#772057"}
	changeAndDriftClass = mermaidClass{"changeanddrift", "fill:#fff8c5,stroke:#bf3989,stroke-width:3px,color:#633c01"}
	// parentClass draws the parent, known only by its ARM ID, a deleted
	// resource was in.
	parentClass = mermaidClass{"parent", "fill:#ffffff,stroke:#8c959f,color:#57606a,stroke-dasharray:1 3"}
)

// legendNames says what each class means, in the legend.
var legendNames = map[string]string{
	"create": "created", "update": "updated in place", "replacerequired": "replace required (blocked)",
	"replace": "replaced", "delete": "deleted", "detach": "detached (stays in Azure)",
	"change": "changed", "unchanged": "unchanged (context)", "blocked": "blocked",
	"drift": "reverts drift Azure already has", "changeanddrift": "this change and drift",
	"parent": "held a deleted resource",
}

// changeClass is r's class, and whether r is drawn for itself (a change,
// or what keeps the plan from applying). In a three-way plan an update
// whose differences are all drift, or of both origins, has the class of
// that origin.
func changeClass(r *planner.Resource, threeWay bool) (mermaidClass, bool) {
	if r.Action == planner.ActionBlocked {
		return blockedClass, true
	}
	if threeWay && r.Action == planner.ActionUpdate {
		switch change, drift := r.Origins(); {
		case drift && change:
			return changeAndDriftClass, true
		case drift:
			return driftClass, true
		}
	}
	if c, ok := changeClasses[r.Action]; ok {
		return c, true
	}
	if notChanges[r.Action] {
		return unchangedClass, false
	}
	return otherChange, true
}

// threeWayPlan reports a plan made against a base (azk plan --base) that
// is not a drift report: its changes have an origin.
func threeWayPlan(p *planner.Plan) bool { return p.Inputs.Base != "" && !p.Drift }

// parentARMID is the ARM ID of what holds id: the resource it is a child
// of, else its resource group; "" for none, and for a subscription, which
// holds everything and tells the reader nothing.
func parentARMID(id string) string {
	parts := strings.Split(strings.Trim(id, "/"), "/")
	if len(parts) < 4 {
		return ""
	}
	parts = parts[:len(parts)-2]
	if len(parts) >= 2 && strings.EqualFold(parts[len(parts)-2], "providers") {
		parts = parts[:len(parts)-2]
	}
	if len(parts) <= 2 {
		return ""
	}
	return "/" + strings.Join(parts, "/")
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
	edges [][2]*pictureNode
	// held run from the parent a deleted (or detached) resource was in, in
	// the base, to it.
	held    [][2]*pictureNode
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
	threeWay := threeWayPlan(p)
	byAddress := make(map[string]*planner.Resource, len(p.Resources))
	for _, r := range p.Resources {
		byAddress[r.Address] = r
	}
	changed := map[*planner.Resource]bool{}
	// dependencies and dependents of each resource, in the plan's order
	dependencies, dependents := map[*planner.Resource][]*planner.Resource{}, map[*planner.Resource][]*planner.Resource{}
	for _, r := range p.Resources {
		if _, ok := changeClass(r, threeWay); ok {
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
	// The parent each removed resource was in: its owner in the base when
	// the plan has it, else the resource at its ARM ID's parent, else that
	// ID alone (parentIDs).
	parents := map[*planner.Resource]*planner.Resource{}
	parentIDs := map[*planner.Resource]string{}
	byID := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		if id := r.ID(); id != "" {
			byID[strings.ToLower(id)] = r
		}
	}
	for _, r := range p.Resources {
		if !r.Removed() {
			continue
		}
		var parent *planner.Resource
		if r.Node != nil && r.Node.Owner != nil {
			parent = byAddress[r.Node.Owner.Address()]
		}
		id := parentARMID(r.ID())
		if parent == nil && id != "" {
			parent = byID[strings.ToLower(id)]
		}
		switch {
		case parent != nil && (changed[parent] || context):
			parents[r] = parent
			shown[parent] = shown[parent] || !changed[parent]
		case parent == nil && id != "" && context:
			parentIDs[r] = id
		}
	}
	nodes := map[*planner.Resource]*pictureNode{}
	for _, r := range p.Resources {
		if changed[r] || shown[r] {
			class, _ := changeClass(r, threeWay)
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
	depends := map[[2]*pictureNode]bool{}
	for _, e := range g.edges {
		depends[e] = true
	}
	idNodes := map[string]*pictureNode{}
	for _, r := range p.Resources {
		if parent := parents[r]; parent != nil && !depends[[2]*pictureNode{nodes[parent], nodes[r]}] {
			g.held = append(g.held, [2]*pictureNode{nodes[parent], nodes[r]})
		}
		id := parentIDs[r]
		if id == "" {
			continue
		}
		key := strings.ToLower(id)
		if idNodes[key] == nil {
			segments := strings.Split(id, "/")
			idNodes[key] = &pictureNode{id: fmt.Sprintf("p%d", len(idNodes)), class: parentClass,
				label: mermaidText(segments[len(segments)-2]) + "<br/>" + mermaidText(segments[len(segments)-1])}
			g.nodes = append(g.nodes, idNodes[key])
		}
		g.held = append(g.held, [2]*pictureNode{idNodes[key], nodes[r]})
	}
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
	for _, e := range g.held {
		fmt.Fprintf(&b, "  %s -.->|held| %s\n", e[0].id, e[1].id)
	}
	var classes []mermaidClass
	members := map[string][]string{}
	for _, n := range g.nodes {
		if members[n.class.name] == nil {
			classes = append(classes, n.class)
		}
		members[n.class.name] = append(members[n.class.name], n.id)
	}
	// The legend: a box for each class drawn, named.
	b.WriteString("  subgraph legend [\"Legend\"]\n")
	for i, c := range classes {
		id := fmt.Sprintf("k%d", i)
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id, mermaidText(legendNames[c.name]))
		members[c.name] = append(members[c.name], id)
	}
	b.WriteString("  end\n")
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
const mermaidLegend = "_Arrows run from a resource to those that depend on it; dotted ones (held) from the parent a removed resource was in. The Legend box names each colour; dashed boxes are unchanged, shown for context._\n\n"

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
