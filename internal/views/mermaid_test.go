package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
)

// planBuilder makes a plan resource by resource, for the picture's tests.
type planBuilder struct{ p planner.Plan }

func (b *planBuilder) add(kind, namespace, name string, action planner.Action, deps ...*planner.Resource) *planner.Resource {
	r := &planner.Resource{Address: "test.azure.com/" + kind + "/" + namespace + "/" + name, Kind: kind, Namespace: namespace, Name: name, Action: action, Exists: action != planner.ActionCreate}
	for _, d := range deps {
		r.DependsOn = append(r.DependsOn, d.Address)
	}
	b.p.Resources = append(b.p.Resources, r)
	return r
}

// changesPlan has every kind of decision, hostile names, an action this
// package does not know yet (as one added later would be), unchanged
// resources near the changes and far from them, and more near one change
// than the picture shows.
func changesPlan() *planner.Plan {
	var b planBuilder
	rg := b.add("ResourceGroup", "default", "rg", planner.ActionNoChange)
	vnet := b.add("VirtualNetwork", "default", "vnet", planner.ActionUpdate, rg)
	nsg := b.add("NetworkSecurityGroup", "default", "nsg", planner.ActionNoChange, rg)
	subnet := b.add("VirtualNetworksSubnet", "default", "web", planner.ActionCreate, vnet, nsg)
	b.add("RoleAssignment", "default", "ra", planner.ActionBlocked, subnet)
	b.add(`Evil"Kind]`, `ns[1]`, `a"b<script>alert(1)</script>#quot;end`, planner.ActionReplace, rg)
	b.add("StorageAccount", "default", "gone", planner.Action("delete"), rg)
	// Removed resources, drawn with the parent they were in: one whose
	// owner in the base is in the plan, one known only by its ARM ID (whose
	// parent is in the plan), one whose parent is not.
	rg.ARMID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"
	owned := b.add("KeyVault", "default", "vault", planner.ActionDelete)
	owned.Node = &graph.Node{Owner: &graph.Node{Object: &loader.Object{APIVersion: "test.azure.com/v1", Kind: "ResourceGroup", Namespace: "default", Name: "rg"}}}
	b.add("ManagedIdentity", "default", "old-id", planner.ActionDetach).ARMID = rg.ARMID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/old-id"
	b.add("StorageAccountsBlobService", "default", "orphan", planner.ActionDelete).ARMID = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/elsewhere/providers/Microsoft.Storage/storageAccounts/st/blobServices/default"
	b.add("StorageAccount", "default", "far", planner.ActionNoChange, rg) // next to no change: not shown
	b.add("UserAssignedIdentity", "other", "skipped", planner.ActionSkip)
	// A changed group with more unchanged resources in it than the picture shows.
	big := b.add("ResourceGroup", "default", "big", planner.ActionUpdate)
	for i := range mermaidContext + 2 {
		b.add("UserAssignedIdentity", "default", fmt.Sprintf("id-%d", i), planner.ActionNoChange, big)
	}
	return &b.p
}

// threeWayChangesPlan is a plan made against a base: an update this change
// makes, one that reverts drift only, one of both origins.
func threeWayChangesPlan() *planner.Plan {
	var b planBuilder
	b.p.Inputs.Base = "main"
	rg := b.add("ResourceGroup", "default", "rg", planner.ActionNoChange)
	mine := b.add("VirtualNetwork", "default", "vnet", planner.ActionUpdate, rg)
	mine.Changes = []planner.Change{{Path: "properties.a", Origin: planner.OriginChange}}
	drift := b.add("StorageAccount", "default", "st", planner.ActionUpdate, rg)
	drift.Changes = []planner.Change{{Path: "properties.b", Origin: planner.OriginDrift}}
	both := b.add("KeyVault", "default", "kv", planner.ActionUpdate, rg)
	both.Changes = []planner.Change{{Path: "properties.a", Origin: planner.OriginChange}, {Path: "properties.b", Origin: planner.OriginDrift}}
	b.add("UserAssignedIdentity", "default", "new", planner.ActionCreate, rg)
	return &b.p
}

// TestChangeGraphThreeWay: in a three-way plan, drift and this change are
// drawn in classes of their own, which the legend names.
func TestChangeGraphThreeWay(t *testing.T) {
	p := threeWayChangesPlan()
	var out bytes.Buffer
	if err := Mermaid(&out, p); err != nil {
		t.Fatal(err)
	}
	golden(t, "threeway-changes.mermaid.golden", out.Bytes())
	checkChangeGraph(t, out.String(), p, true)
	g := parseChangeGraph(t, out.String())
	for class, label := range map[string]string{"update": "updated in place", "drift": "reverts drift Azure already has", "changeanddrift": "this change and drift"} {
		if g.legend[class] != label {
			t.Errorf("the legend names %s %q, want %q", class, g.legend[class], label)
		}
	}
	if g.styles["drift"] == g.styles["update"] || g.styles["changeanddrift"] == g.styles["update"] {
		t.Errorf("drift is drawn as this change is: %v", g.styles)
	}
}

// TestChangeGraphGolden: the picture of a plan's changes, as azk graph
// --changes -o mermaid prints it and as the markdown comment carries it.
func TestChangeGraphGolden(t *testing.T) {
	p := changesPlan()
	var mermaid bytes.Buffer
	if err := Mermaid(&mermaid, p); err != nil {
		t.Fatal(err)
	}
	golden(t, "changes.mermaid.golden", mermaid.Bytes())
	graph := markdownGraph(p)
	golden(t, "changes-graph.md.golden", []byte(graph))
	var md bytes.Buffer
	if err := Markdown(&md, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "\n"+graph) {
		t.Errorf("the markdown does not carry the graph:\n%s", md.String())
	}
	checkChangeGraph(t, mermaid.String(), p, true)
}

// TestNoChangeNoGraph: a plan with nothing to change, and a drift report,
// carry no graph in markdown; graph --changes says there is nothing.
func TestNoChangeNoGraph(t *testing.T) {
	var b planBuilder
	rg := b.add("ResourceGroup", "default", "rg", planner.ActionNoChange)
	b.add("VirtualNetwork", "default", "vnet", planner.ActionSkip, rg)
	if g := markdownGraph(&b.p); g != "" {
		t.Errorf("no change, yet a graph:\n%s", g)
	}
	var out bytes.Buffer
	if err := Mermaid(&out, &b.p); err != nil {
		t.Fatal(err)
	}
	if want := "graph LR\n  nothing[\"No changes. Azure matches the manifests.\"]\n"; out.String() != want {
		t.Errorf("Mermaid without changes: %q", out.String())
	}
	drift := changesPlan()
	drift.Drift = true
	if g := markdownGraph(drift); g != "" {
		t.Errorf("a drift report proposes nothing, yet a graph:\n%s", g)
	}
}

// TestChangeGraphFitsAComment: past mermaidOpenNodes the graph is
// collapsed; past mermaidMaxBytes the unchanged context goes, then the
// graph, with a note; the text keeps every change's header throughout.
func TestChangeGraphFitsAComment(t *testing.T) {
	chain := func(n int, withContext bool) *planner.Plan {
		var b planBuilder
		for i := range n {
			var deps []*planner.Resource
			if withContext {
				deps = append(deps, b.add("ResourceGroup", "default", fmt.Sprintf("rg-%03d", i), planner.ActionNoChange))
			}
			b.add("UserAssignedIdentity", "default", fmt.Sprintf("identity-%03d", i), planner.ActionCreate, deps...)
		}
		return &b.p
	}
	small := markdownGraph(chain(mermaidOpenNodes, false))
	if !strings.HasPrefix(small, "```mermaid\ngraph LR\n") {
		t.Errorf("a small graph is not shown open:\n%s", small)
	}
	collapsed := markdownGraph(chain(mermaidOpenNodes/2+1, true))
	if !strings.HasPrefix(collapsed, "<details><summary>Graph of the changes: 11 resources, with unchanged ones next to them</summary>\n\n```mermaid\n") {
		t.Errorf("a larger graph is not collapsed:\n%.300s", collapsed)
	}

	// 150 changes each beside an unchanged resource: too long with them.
	p := chain(150, true)
	g := markdownGraph(p)
	if len(g) > mermaidMaxBytes+200 || strings.Contains(g, "rg-000") || !strings.Contains(g, "identity-149") {
		t.Errorf("the context was not left out to fit (%d bytes):\n%.300s", len(g), g)
	}
	checkChangeGraph(t, strings.SplitN(strings.SplitN(g, "```mermaid\n", 2)[1], "```\n", 2)[0], p, false)

	// 400 changes: no graph fits; the note says how to get it.
	p = chain(400, false)
	g = markdownGraph(p)
	if g != "_The graph of the 400 changes is left out: it would be too long for a comment. `azk graph --changes -o mermaid` prints it._\n\n" {
		t.Errorf("400 changes: %.300s", g)
	}
	var md bytes.Buffer
	if err := Markdown(&md, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if md.Len() > MarkdownLimit {
		t.Errorf("markdown of 400 changes: %d bytes", md.Len())
	}
	for _, r := range p.Resources {
		if !strings.Contains(md.String(), "<code>"+r.Namespace+"/"+r.Name+"</code> will be created") {
			t.Fatalf("the markdown dropped %s", r.Address)
		}
	}
}

// parsedGraph is a Mermaid graph as the structural check reads it.
type parsedGraph struct {
	labels  map[string]string // id -> decoded label, its two lines joined by "\n"
	order   []string
	edges   [][2]string        // every edge, in order
	held    map[[2]string]bool // the edges from the parent a removed resource was in
	legend  map[string]string  // the legend's boxes: class -> label
	classes map[string]string  // id -> class
	styles  map[string]string  // class -> style
}

var (
	mermaidNode     = regexp.MustCompile(`^  ([rmpk]\d+)\["([^"]*)"\]$`)
	mermaidEdge     = regexp.MustCompile(`^  ([rmp]\d+) (-->|-\.->\|held\|) ([rm]\d+)$`)
	mermaidClassDef = regexp.MustCompile(`^  classDef ([a-z]+) ([a-z-]+:[#a-z0-9 ]+(?:,[a-z-]+:[#a-z0-9 ]+)*)$`)
	mermaidClassUse = regexp.MustCompile(`^  class ([rmpk]\d+(?:,[rmpk]\d+)*) ([a-z]+)$`)
	mermaidEntity   = regexp.MustCompile(`#(\d+);`)
	labelSafe       = regexp.MustCompile(`^[A-Za-z0-9 ._/+~!=?#;-]*$`)
	countLabel      = regexp.MustCompile(`^and (\d+) more unchanged$`)
)

// parseChangeGraph is the structural check of Mermaid text azk wrote: the
// header, then only node, edge, classDef and class lines; ids defined once
// before use; labels that cannot end their quotes or carry markup (every
// other character an entity code): a resource's two lines, or the count of
// those not shown.
func parseChangeGraph(t *testing.T, text string) parsedGraph {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != "graph LR" {
		t.Fatalf("first line %q", lines[0])
	}
	g := parsedGraph{labels: map[string]string{}, held: map[[2]string]bool{}, legend: map[string]string{}, classes: map[string]string{}, styles: map[string]string{}}
	inLegend, legendSeen := false, false
	defined := func(id string) {
		if _, ok := g.labels[id]; !ok {
			t.Errorf("%s used before it is defined", id)
		}
	}
	decode := func(s string) string {
		return mermaidEntity.ReplaceAllStringFunc(s, func(e string) string {
			n, _ := strconv.Atoi(e[1 : len(e)-1])
			return string(rune(n))
		})
	}
	for _, line := range lines[1:] {
		switch {
		case line == `  subgraph legend ["Legend"]` && !legendSeen:
			inLegend, legendSeen = true, true
			continue
		case line == "  end" && inLegend:
			inLegend = false
			continue
		}
		if m := mermaidNode.FindStringSubmatch(line); m != nil {
			if inLegend != (m[1][0] == 'k') {
				t.Errorf("%s in the legend: %v", m[1], inLegend)
			}
			if _, dup := g.labels[m[1]]; dup {
				t.Errorf("%s defined twice", m[1])
			}
			first, second, two := strings.Cut(m[2], "<br/>")
			safe := labelSafe.MatchString(first) && labelSafe.MatchString(second) && !strings.Contains(mermaidEntity.ReplaceAllString(m[2], ""), "#")
			if !safe || two != (m[1][0] == 'r' || m[1][0] == 'p') || m[1][0] == 'm' && !countLabel.MatchString(m[2]) {
				t.Errorf("bad label of %s: %q", m[1], m[2])
			}
			g.labels[m[1]] = decode(first) + "\n" + decode(second)
			g.order = append(g.order, m[1])
			continue
		}
		if m := mermaidEdge.FindStringSubmatch(line); m != nil {
			defined(m[1])
			defined(m[3])
			e := [2]string{m[1], m[3]}
			g.edges = append(g.edges, e)
			if m[2] != "-->" {
				g.held[e] = true
			} else if m[1][0] == 'p' {
				t.Errorf("%s depends on a parent known only by its ARM ID", m[3])
			}
			continue
		}
		if m := mermaidClassDef.FindStringSubmatch(line); m != nil {
			g.styles[m[1]] = m[2]
			continue
		}
		if m := mermaidClassUse.FindStringSubmatch(line); m != nil {
			if _, ok := g.styles[m[2]]; !ok {
				t.Errorf("class %s used before its classDef", m[2])
			}
			for _, id := range strings.Split(m[1], ",") {
				defined(id)
				if c, twice := g.classes[id]; twice {
					t.Errorf("%s is of class %s and %s", id, c, m[2])
				}
				g.classes[id] = m[2]
			}
			continue
		}
		t.Errorf("unexpected line %q", line)
	}
	if !legendSeen || inLegend {
		t.Errorf("no legend, or one not closed")
	}
	used := map[string]bool{}
	for _, id := range g.order {
		c := g.classes[id]
		if c == "" {
			t.Errorf("%s has no class", id)
		}
		if id[0] != 'k' {
			used[c] = true
			continue
		}
		if _, twice := g.legend[c]; twice {
			t.Errorf("the legend names %s twice", c)
		}
		g.legend[c] = strings.TrimSuffix(g.labels[id], "\n")
		if g.legend[c] == "" {
			t.Errorf("the legend does not name %s", c)
		}
	}
	for c := range used {
		if _, ok := g.legend[c]; !ok {
			t.Errorf("the legend does not name %s", c)
		}
	}
	for c := range g.legend {
		if !used[c] {
			t.Errorf("the legend names %s, which is not drawn", c)
		}
	}
	return g
}

// checkChangeGraph checks text is the picture of p's changes: each change
// once with its action's class and an edge for each dependency between
// changes, from what is depended on; with context, on each side of each
// change (what it depends on, what depends on it) its unchanged neighbours
// with an edge, at least mermaidContext of them (or all) shown, and the
// others counted in one node of that side; nothing else.
func checkChangeGraph(t *testing.T, text string, p *planner.Plan, context bool) {
	t.Helper()
	g := parseChangeGraph(t, text)
	byLabel := map[string]string{}
	for _, id := range g.order {
		byLabel[g.labels[id]] = id
	}
	edges := map[[2]string]bool{}
	for _, e := range g.edges {
		if edges[e] {
			t.Errorf("edge %v twice", e)
		}
		edges[e] = true
	}
	ids := map[string]string{} // address -> id, "" when not shown
	changed := map[string]bool{}
	for _, r := range p.Resources {
		class, change := changeClass(r, threeWayPlan(p))
		changed[r.Address] = change
		id := byLabel[lookOf(r, false).symbol+" "+r.Kind+"\n"+r.Namespace+"/"+r.Name]
		ids[r.Address] = id
		switch {
		case change && id == "":
			t.Errorf("the change %s is not in the graph", r.Address)
		case id != "" && g.classes[id] != class.name:
			t.Errorf("%s is of class %s, want %s", r.Address, g.classes[id], class.name)
		case id != "" && !change && !context:
			t.Errorf("%s is shown, though unchanged and without context", r.Address)
		}
	}
	dependents := map[string][]string{}
	for _, r := range p.Resources {
		for _, d := range r.DependsOn {
			dependents[d] = append(dependents[d], r.Address)
		}
	}
	want := map[[2]string]bool{} // the edges between resources
	near := map[string]bool{}
	for _, r := range p.Resources {
		for _, d := range r.DependsOn {
			if (changed[r.Address] || changed[d]) && ids[r.Address] != "" && ids[d] != "" {
				want[[2]string{ids[d], ids[r.Address]}] = true
				near[d], near[r.Address] = true, true
			}
		}
		if !changed[r.Address] || !context {
			continue
		}
		for side, neighbours := range [][]string{r.DependsOn, dependents[r.Address]} {
			shown, hidden := 0, 0
			for _, o := range neighbours {
				switch {
				case changed[o]:
				case ids[o] != "":
					shown++
				default:
					hidden++
				}
			}
			if shown < min(mermaidContext, shown+hidden) {
				t.Errorf("%s: %d unchanged neighbours shown on side %d, want %d", r.Address, shown, side, min(mermaidContext, shown+hidden))
			}
			count := ""
			for _, e := range g.edges {
				if side == 0 && e[1] == ids[r.Address] && e[0][0] == 'm' {
					count = e[0]
				}
				if side == 1 && e[0] == ids[r.Address] && e[1][0] == 'm' {
					count = e[1]
				}
			}
			if wantLabel := fmt.Sprintf("and %d more unchanged\n", hidden); hidden > 0 && g.labels[count] != wantLabel || hidden == 0 && count != "" {
				t.Errorf("%s: side %d counts %q, want %d hidden", r.Address, side, g.labels[count], hidden)
			}
			if count != "" {
				want[[2]string{count, ids[r.Address]}] = side == 0
				want[[2]string{ids[r.Address], count}] = side == 1
			}
		}
	}
	// Each removed resource with the parent it was in: its owner in the
	// base, else the resource at its ARM ID's parent, else that ID alone.
	byID := map[string]string{}
	for _, r := range p.Resources {
		if r.ID() != "" {
			byID[strings.ToLower(r.ID())] = r.Address
		}
	}
	for _, r := range p.Resources {
		if !r.Removed() {
			continue
		}
		parent := ""
		if r.Node != nil && r.Node.Owner != nil && ids[r.Node.Owner.Address()] != "" {
			parent = r.Node.Owner.Address()
		}
		id := r.ID()
		if i := strings.LastIndex(id, "/"); i > 0 {
			id = id[:strings.LastIndex(id[:i], "/")]
			if i := strings.LastIndex(id, "/providers/"); i >= 0 && strings.Count(id[i:], "/") == 2 {
				id = id[:i]
			}
		}
		if parent == "" {
			parent = byID[strings.ToLower(id)]
		}
		var from string
		switch {
		case parent != "":
			from = ids[parent]
			if from == "" && (changed[parent] || context) {
				t.Errorf("%s is drawn without %s, the parent it was in", r.Address, parent)
			}
			near[parent] = true
		case id != "" && context:
			segments := strings.Split(id, "/")
			from = byLabel[segments[len(segments)-2]+"\n"+segments[len(segments)-1]]
			if from == "" || from[0] != 'p' || g.classes[from] != "parent" {
				t.Errorf("%s is drawn without %s, the parent it was in", r.Address, id)
			}
		}
		if e := [2]string{from, ids[r.Address]}; from != "" && !want[e] {
			want[e] = true
			if !g.held[e] {
				t.Errorf("%s: the edge from its parent %s is not dotted", r.Address, from)
			}
		}
	}
	for e := range g.held {
		if !want[e] {
			t.Errorf("held edge %v should not be there", e)
		}
	}
	for _, id := range g.order {
		if id[0] == 'm' && !context || id[0] == 'p' && !context {
			t.Errorf("%s shows context in a graph without context", id)
		}
	}
	for e := range edges {
		if !want[e] {
			t.Errorf("edge %v should not be there", e)
		}
	}
	for e, ok := range want {
		if ok && !edges[e] {
			t.Errorf("edge %v is missing", e)
		}
	}
	for _, r := range p.Resources {
		if ids[r.Address] != "" && !changed[r.Address] && !near[r.Address] {
			t.Errorf("%s is shown, though no change is next to it", r.Address)
		}
	}
}

// mermaidParser is the folder holding Mermaid's parser (installed by
// .ci/run with npm ci from its package-lock.json).
var mermaidParser = filepath.Join("testdata", "mermaid")

// mermaidParse is what parse.mjs reports of one diagram.
type mermaidParse struct {
	Type      string              `json:"type"`
	Direction string              `json:"direction"`
	Vertices  []map[string]any    `json:"vertices"`
	Edges     [][2]string         `json:"edges"`
	Classes   map[string][]string `json:"classes"`
	Error     string              `json:"error"`
}

// parseWithMermaid parses each text with Mermaid's own parser, or skips
// when node or the parser is not installed.
func parseWithMermaid(t *testing.T, texts []string) []mermaidParse {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: Mermaid's parser cannot run (the structural check in Go still does)")
	}
	if _, err := os.Stat(filepath.Join(mermaidParser, "node_modules", "mermaid")); err != nil {
		t.Skip("Mermaid's parser is not installed: npm ci --prefix internal/views/testdata/mermaid (as .ci/run does) installs it")
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command(node, "parse.mjs")
	cmd.Dir = mermaidParser
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node parse.mjs: %v", err)
	}
	var results []mermaidParse
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(texts) {
		t.Fatalf("parse.mjs answered %v: %s", err, out)
	}
	return results
}

// TestChangeGraphParsesWithMermaid: Mermaid's own parser reads every graph
// the tests above make as a left-to-right flowchart with the nodes, edges
// and classes the structural check reads; and it refuses a broken one, so
// that this check can fail.
func TestChangeGraphParsesWithMermaid(t *testing.T) {
	var texts []string
	for _, p := range []*planner.Plan{changesPlan(), {}, threeWayChangesPlan()} {
		var b bytes.Buffer
		if err := Mermaid(&b, p); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, b.String())
	}
	broken := strings.Replace(texts[0], `"]`, `"x"]`, 1)
	results := parseWithMermaid(t, append(texts, broken))
	if results[len(texts)].Error == "" {
		t.Errorf("Mermaid's parser accepted a broken graph:\n%s", broken)
	}
	for i, text := range texts {
		r := results[i]
		if r.Error != "" {
			t.Errorf("Mermaid refuses:\n%s\n%s", text, r.Error)
			continue
		}
		if !strings.HasPrefix(r.Type, "flowchart") || r.Direction != "LR" {
			t.Errorf("parsed as %s %s", r.Type, r.Direction)
		}
		if i == 1 {
			continue // the no-change graph: one node, no class
		}
		g := parseChangeGraph(t, text)
		var ids []string
		for _, v := range r.Vertices {
			id := v["id"].(string)
			ids = append(ids, id)
			classes, _ := v["classes"].([]any)
			if len(classes) != 1 || classes[0] != g.classes[id] {
				t.Errorf("Mermaid reads %s with classes %v, azk gave it %s", id, classes, g.classes[id])
			}
		}
		if !slices.Equal(ids, g.order) {
			t.Errorf("Mermaid reads nodes %v, azk wrote %v", ids, g.order)
		}
		if !slices.Equal(r.Edges, g.edges) {
			t.Errorf("Mermaid reads edges %v, azk wrote %v", r.Edges, g.edges)
		}
		for name, style := range g.styles {
			if strings.Join(r.Classes[name], ",") != style {
				t.Errorf("Mermaid reads class %s as %v, azk wrote %s", name, r.Classes[name], style)
			}
		}
	}
}
