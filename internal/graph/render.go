package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the owner tree, one resource per line with its ARM ID, and
// each reference as an annotation under the resource that holds it.
func WriteText(w io.Writer, g *Graph) error {
	children := map[*Node][]*Node{}
	var roots []*Node
	for _, n := range g.Nodes {
		if n.Owner == nil {
			roots = append(roots, n)
		} else {
			children[n.Owner] = append(children[n.Owner], n)
		}
	}
	tw := &textWriter{w: w, children: children}
	for _, r := range roots {
		tw.node(r, "", "")
	}
	return tw.err
}

type textWriter struct {
	w        io.Writer
	children map[*Node][]*Node
	err      error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func (t *textWriter) node(n *Node, branch, indent string) {
	id := n.ID
	if id == "" && !n.Kind.IsARM() {
		id = "(not an ARM resource)"
	}
	t.printf("%s%s %s  %s\n", branch, n.Object.Kind, n.Object.Name, id)
	kids := t.children[n]
	notes := annotations(n)
	for _, note := range notes {
		bar := "  "
		if len(kids) > 0 {
			bar = "│ "
		}
		t.printf("%s%s  %s\n", indent, bar, note)
	}
	for i, c := range kids {
		if i == len(kids)-1 {
			t.node(c, indent+"└── ", indent+"    ")
		} else {
			t.node(c, indent+"├── ", indent+"│   ")
		}
	}
}

// annotations describe a node's non-tree dependencies: an armId owner and
// every reference.
func annotations(n *Node) []string {
	var notes []string
	for _, e := range n.Edges {
		target := edgeTarget(e)
		if target == "" || (e.Kind == EdgeOwner && e.To != nil) {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s %s -> %s", arrowLabel(e.Kind), e.Field, target))
	}
	return notes
}

func arrowLabel(k EdgeKind) string {
	switch k {
	case EdgeOwner:
		return "owner"
	case EdgeSecret:
		return "secret"
	case EdgeConfigMap:
		return "config map"
	}
	return "ref"
}

// edgeTarget names what an edge points at, or "" for secrets and config maps
// that the input does not hold.
func edgeTarget(e *Edge) string {
	switch {
	case e.To != nil:
		return e.To.Object.Kind + "/" + e.To.Object.Name
	case e.Object != nil:
		return e.Object.Kind + "/" + e.Object.Name
	}
	return e.ARMID
}

// WriteDot writes the graph in Graphviz dot: owner edges solid, references dashed,
// each edge pointing from a resource to what it depends on.
func WriteDot(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("digraph azk {\n  rankdir=LR;\n  node [shape=box];\n")
	ids := nodeIDs(g)
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s [label=%q];\n", ids[n], n.Object.Kind+"\n"+n.Object.Name)
	}
	external := map[string]string{}
	for _, n := range g.Nodes {
		for _, e := range n.Edges {
			to := dotTarget(e, ids, external, &b)
			if to == "" {
				continue
			}
			style := ""
			if e.Kind != EdgeOwner {
				style = fmt.Sprintf(" [style=dashed, label=%q]", e.Field)
			}
			fmt.Fprintf(&b, "  %s -> %s%s;\n", ids[n], to, style)
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotTarget(e *Edge, ids map[*Node]string, external map[string]string, b *strings.Builder) string {
	label := ""
	switch {
	case e.To != nil:
		return ids[e.To]
	case e.Object != nil:
		label = e.Object.Kind + "\n" + e.Object.Name
	case e.ARMID != "":
		label = e.ARMID
	default:
		return ""
	}
	id, ok := external[label]
	if !ok {
		id = fmt.Sprintf("x%d", len(external))
		external[label] = id
		fmt.Fprintf(b, "  %s [label=%q, style=dotted];\n", id, label)
	}
	return id
}

func nodeIDs(g *Graph) map[*Node]string {
	ids := make(map[*Node]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n] = fmt.Sprintf("n%d", i)
	}
	return ids
}

// WriteMermaid writes a Mermaid flowchart, for pull-request descriptions.
func WriteMermaid(w io.Writer, g *Graph) error {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	ids := nodeIDs(g)
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s[\"%s<br/>%s\"]\n", ids[n], n.Object.Kind, mermaidEscape(n.Object.Name))
	}
	for _, n := range g.Nodes {
		for _, e := range n.Edges {
			if e.To == nil {
				continue
			}
			if e.Kind == EdgeOwner {
				fmt.Fprintf(&b, "  %s --> %s\n", ids[n], ids[e.To])
			} else {
				fmt.Fprintf(&b, "  %s -. \"%s\" .-> %s\n", ids[n], mermaidEscape(e.Field), ids[e.To])
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mermaidEscape(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

// JSONGraph is the -o json form of a graph. Version changes when fields change meaning.
type JSONGraph struct {
	Version      int        `json:"version"`
	Subscription string     `json:"subscription"`
	Resources    []JSONNode `json:"resources"`
}

// JSONNode is one resource in JSONGraph.
type JSONNode struct {
	Address    string     `json:"address"`
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Namespace  string     `json:"namespace"`
	Name       string     `json:"name"`
	AzureName  string     `json:"azureName"`
	ARMID      string     `json:"armId,omitempty"`
	ARMType    string     `json:"armType,omitempty"`
	ARMVersion string     `json:"armApiVersion,omitempty"`
	Source     string     `json:"source"`
	DependsOn  []JSONEdge `json:"dependsOn"`
}

// JSONEdge is one dependency in JSONNode.
type JSONEdge struct {
	Kind    EdgeKind `json:"kind"`
	Field   string   `json:"field"`
	Address string   `json:"address,omitempty"`
	ARMID   string   `json:"armId,omitempty"`
}

// WriteJSON writes the graph as JSONGraph.
func WriteJSON(w io.Writer, g *Graph) error {
	out := JSONGraph{Version: 1, Subscription: g.Subscription, Resources: make([]JSONNode, 0, len(g.Nodes))}
	for _, n := range g.Nodes {
		jn := JSONNode{
			Address: n.Address(), APIVersion: n.Object.APIVersion, Kind: n.Object.Kind,
			Namespace: n.Object.Namespace, Name: n.Object.Name, AzureName: n.AzureName,
			ARMID: n.ID, ARMType: n.Kind.ARMType, ARMVersion: n.Kind.APIVersion,
			Source: n.Object.Source.String(), DependsOn: []JSONEdge{},
		}
		for _, e := range n.Edges {
			je := JSONEdge{Kind: e.Kind, Field: e.Field, ARMID: e.ARMID}
			switch {
			case e.To != nil:
				je.Address = e.To.Address()
			case e.Object != nil:
				je.Address = e.Object.Address()
			}
			jn.DependsOn = append(jn.DependsOn, je)
		}
		out.Resources = append(out.Resources, jn)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
