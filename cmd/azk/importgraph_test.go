package main

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/yamlnode"
)

// resolveOffline builds the graph of manifests as azk graph does.
func resolveOffline(t *testing.T, paths ...string) *graph.Graph {
	t.Helper()
	res, diags := loader.Load(loader.Options{Paths: paths})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	g, diags := graph.Build(res, graph.Options{Subscription: emulatorSubscription})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return g
}

// edgeOf is an edge between two ARM resources, by their ARM IDs: names and
// versions aside, the same edge in any manifests of the same resources.
type edgeOf struct {
	from, to string
	kind     graph.EdgeKind
}

// edgesAmong are g's edges whose both ends are among ids (lower-cased).
func edgesAmong(g *graph.Graph, ids map[string]bool) map[edgeOf]*graph.Edge {
	out := map[edgeOf]*graph.Edge{}
	for _, n := range g.Nodes {
		for _, e := range n.Edges {
			to := strings.ToLower(e.ARMID)
			if e.To != nil {
				to = strings.ToLower(e.To.ID)
			}
			if from := strings.ToLower(n.ID); ids[from] && ids[to] {
				out[edgeOf{from, to, e.Kind}] = e
			}
		}
	}
	return out
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

// TestImportKeepsTheExamplesGraphs applies every example on the emulator,
// imports their resource groups in one run, and compares the graphs: every
// owner and reference edge among the examples' resources is an edge of the
// imported manifests (by name, never by armId, where both ends were
// imported), and no other. The imported manifests validate and plan with
// no changes.
//
// Two kinds of edge are not in Azure, so import cannot write them, and the
// test checks what it writes instead: a config-map edge (a value the
// operator copies from another resource's status) becomes that value as
// Azure holds it, which is what the producer exports; a secret edge (Azure
// never returns secrets) becomes a field left out with a note that says
// so, or a Secret reference the notes name.
func TestImportKeepsTheExamplesGraphs(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	examples := exampleDirs(t)
	original := resolveOffline(t, examples...)
	ids := map[string]bool{}
	groups := map[string]bool{}
	for _, n := range original.Nodes {
		if n.Kind.IsARM() {
			ids[strings.ToLower(n.ID)] = true
			if n.Kind.Kind == "ResourceGroup" {
				groups[n.ID] = true
			}
		}
	}
	exported := map[string]string{} // namespace/configmap/key -> value, as Azure holds it
	for _, dir := range examples {
		if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
			t.Fatalf("apply %s: exit %d\n%s\n%s", dir, code, out, errOut)
		}
		out, errOut, code := azk(t, "", with("output", dir, "-o", "json")...)
		if code != 0 {
			t.Fatalf("output %s: exit %d\n%s", dir, code, errOut)
		}
		var maps []struct {
			Kind, Namespace, Name string
			Data                  map[string]string
		}
		if err := json.Unmarshal([]byte(out), &maps); err != nil {
			t.Fatalf("output %s: %v\n%s", dir, err, out)
		}
		for _, m := range maps {
			for k, v := range m.Data {
				if m.Kind == "ConfigMap" {
					exported[m.Namespace+"/"+m.Name+"/"+k] = v
				}
			}
		}
	}
	var rgs []string
	for id := range groups {
		rgs = append(rgs, id)
	}
	sort.Strings(rgs)
	dir := t.TempDir()
	if _, errOut, code := azk(t, "", with(append([]string{"import", "--recursive", "--out-dir", dir}, rgs...)...)...); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	if out, errOut, code := azk(t, "", "validate", dir, "--subscription", emulatorSubscription); code != 0 {
		t.Fatalf("validate of the imported manifests: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 || !strings.Contains(out, "No changes. Azure matches the manifests.") {
		t.Fatalf("plan of the imported manifests: exit %d, want 0 (no changes)\n%s\n%s", code, out, errOut)
	}

	imported := resolveOffline(t, dir)
	importedByID := map[string]*graph.Node{}
	for _, n := range imported.Nodes {
		importedByID[strings.ToLower(n.ID)] = n
	}
	for _, n := range imported.Nodes {
		for _, e := range n.Edges {
			if e.ARMID != "" && importedByID[strings.ToLower(e.ARMID)] != nil {
				t.Errorf("%s %s refers to %s, imported with it, by armId", n.Address(), e.Field, e.ARMID)
			}
		}
	}
	for id := range ids {
		if importedByID[id] == nil {
			t.Errorf("%s was not imported", id)
		}
	}
	want, got := edgesAmong(original, ids), edgesAmong(imported, ids)
	for key, e := range want {
		switch key.kind {
		case graph.EdgeOwner, graph.EdgeReference:
			if got[key] == nil {
				t.Errorf("imported manifests lack the %s edge %s -> %s (%s)", key.kind, key.from, key.to, e.Field)
			}
		case graph.EdgeConfigMap:
			checkConfigValue(t, importedByID[key.from], e, exported)
		case graph.EdgeSecret:
			checkSecretLeftOut(t, importedByID[key.from], e)
		}
	}
	for key, e := range got {
		if want[key] == nil {
			t.Errorf("imported manifests have an edge the examples do not: %s %s -> %s (%s)", key.kind, key.from, key.to, e.Field)
		}
	}
	if len(got) < 40 {
		t.Errorf("only %d edges among the examples' resources compared", len(got))
	}
}

// checkConfigValue: where the example reads field xFromConfig from a config
// map another resource exports, the imported manifest sets x to the value
// that config map holds.
func checkConfigValue(t *testing.T, n *graph.Node, e *graph.Edge, exported map[string]string) {
	t.Helper()
	plain, ok := strings.CutSuffix(e.Field, "FromConfig")
	if !ok || n == nil || strings.Contains(plain, "[") {
		t.Errorf("config-map edge at %s: not a xFromConfig field of an imported resource", e.Field)
		return
	}
	value, ok := exported[e.To.Object.Namespace+"/"+yamlnode.String(e.Ref.Node, "name")+"/"+yamlnode.String(e.Ref.Node, "key")]
	if !ok {
		t.Errorf("%s: the config map it reads is not exported", e.Field)
		return
	}
	spec := armjson.FromYAML(n.Object.Node.YNode())
	got, _ := armjson.Lookup(spec.(map[string]any), strings.Split(plain, "."))
	if got != value {
		t.Errorf("%s %s = %v, want %q, the value the example's config map holds", n.Address(), plain, got, value)
	}
}

// checkSecretLeftOut: where the example sends a secret another resource
// exports, the imported manifest leaves the field out with a note (Azure
// never returns secrets), or refers to a Secret its notes name.
func checkSecretLeftOut(t *testing.T, n *graph.Node, e *graph.Edge) {
	t.Helper()
	if n == nil {
		t.Errorf("secret edge at %s: the consumer was not imported", e.Field)
		return
	}
	data, err := os.ReadFile(n.Object.Source.File)
	if err != nil {
		t.Fatal(err)
	}
	path := listIndex.ReplaceAllString(strings.TrimPrefix(e.Field, "spec."), "")
	var note string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "# Note: Azure never returns secrets") {
			note += line
		}
	}
	if !strings.Contains(note, path) {
		t.Errorf("%s: the secret at %s is neither left out with a note nor a Secret reference:\n%s", n.Address(), e.Field, data)
	}
}

// TestImportSummarisesWhatItLeavesOut: what import leaves out by design
// (Azure's own resources: here the built-in role definitions at every
// scope, a server's built-in database and a parameter at its system
// default) is one line per reason with its count; -v lists each resource
// under its line. The manifests written are the same either way.
func TestImportSummarisesWhatItLeavesOut(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "../../examples/postgres-app")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-postgres-app"
	server := rg + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/azk-postgres-app-db"
	client := emulatorClient(t, run)
	putAndWait(t, client, server+"/databases/azure_sys", "2024-08-01", map[string]any{"properties": map[string]any{"charset": "UTF8"}})
	putAndWait(t, client, server+"/configurations/max_connections", "2024-08-01", map[string]any{"properties": map[string]any{"value": "100", "source": "system-default"}})

	quiet, errOut, code := azk(t, "", with("import", "--recursive", rg)...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	roles := regexp.MustCompile(`(?m)^Left out by design: (\d+) built-in role definitions \(-v lists them\)$`).FindStringSubmatch(errOut)
	if roles == nil || roles[1] == "0" {
		t.Fatalf("no count of built-in role definitions:\n%s", errOut)
	}
	summary := []string{
		"Left out by design: " + roles[1] + " built-in role definitions (-v lists them)",
		"Left out by design: 1 built-in PostgreSQL database, which ARM does not manage (-v lists them)",
		"Left out by design: 1 server parameter at its system default (-v lists them)",
	}
	var lines []string
	for _, l := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(l, "Left out by design: ") {
			lines = append(lines, l)
		}
	}
	if strings.Join(lines, "\n") != strings.Join(summary, "\n") || strings.Contains(errOut, "roleDefinitions/") || strings.Contains(errOut, "Skipped") {
		t.Errorf("import summary:\n%s\nwant the lines\n%s", errOut, strings.Join(summary, "\n"))
	}

	listed, errOut, code := azk(t, "", with("import", "--recursive", rg, "-v")...)
	if code != 0 || listed != quiet {
		t.Fatalf("import -v: exit %d, manifests differ: %v\n%s", code, listed != quiet, errOut)
	}
	for _, l := range summary {
		mustContain(t, "import -v", errOut, strings.TrimSuffix(l, " (-v lists them)")+":\n")
	}
	if n := strings.Count(errOut, "\n  "+rg); n != atoi(t, roles[1])+2 {
		t.Errorf("import -v lists %d resources left out, want %s role definitions, the database and the parameter:\n%s", n, roles[1], errOut)
	}
	mustContain(t, "import -v", errOut, "\n  "+server+"/databases/azure_sys\n", "\n  "+server+"/configurations/max_connections\n")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
