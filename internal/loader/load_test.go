package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
)

const fixtures = "../../testdata/loader"

// summarize renders objects as "address @ file:line" for comparison.
func summarize(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Address()+" @ "+o.Source.String())
	}
	return out
}

// render renders diagnostics as "severity: message".
func render(diags diag.List) []string {
	var out []string
	for _, d := range diags {
		out = append(out, string(d.Severity)+": "+d.Error())
	}
	return out
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestLoadInputForms(t *testing.T) {
	multi := filepath.Join(fixtures, "multi.yaml")
	list := filepath.Join(fixtures, "list.yaml")
	jsonFile := filepath.Join(fixtures, "vnet.json")
	tree := filepath.Join(fixtures, "tree")
	stdin := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg-stdin\n" +
		"---\n\n# a comment\napiVersion: v1\nkind: Secret\nmetadata:\n  name: from-stdin\n  namespace: ops\n"

	tests := []struct {
		name       string
		opts       Options
		resources  []string
		secrets    []string
		configMaps []string
		diags      []string
	}{
		{
			name: "multi-document file routes kinds and skips empty documents",
			opts: Options{Paths: []string{multi}},
			resources: []string{
				"resources.azure.com/ResourceGroup/default/rg-multi @ " + multi + ":2",
				"network.azure.com/VirtualNetwork/team-a/vnet-multi @ " + multi + ":9",
			},
			secrets:    []string{"v1/Secret/default/db-password @ " + multi + ":25"},
			configMaps: []string{"v1/ConfigMap/default/settings @ " + multi + ":32"},
			diags:      []string{"warning: ignored 2 objects of kind apps/v1 Deployment (first at " + multi + ":39)"},
		},
		{
			name: "List items keep their own lines",
			opts: Options{Paths: []string{list}},
			resources: []string{
				"resources.azure.com/ResourceGroup/default/rg-list @ " + list + ":4",
				"managedidentity.azure.com/UserAssignedIdentity/default/identity-list @ " + list + ":10",
			},
		},
		{
			name:      "JSON file",
			opts:      Options{Paths: []string{jsonFile}},
			resources: []string{"network.azure.com/VirtualNetwork/default/vnet-json @ " + jsonFile + ":1"},
		},
		{
			name: "folder is walked in lexical order, skipping hidden and non-manifest files",
			opts: Options{Paths: []string{tree}},
			resources: []string{
				"network.azure.com/VirtualNetworksSubnet/default/subnet-tree @ " + filepath.Join(tree, "network/subnet.json") + ":1",
				"network.azure.com/VirtualNetwork/default/vnet-tree @ " + filepath.Join(tree, "network/vnet.yml") + ":1",
				"resources.azure.com/ResourceGroup/default/rg-tree @ " + filepath.Join(tree, "rg.yaml") + ":1",
			},
			diags: []string{"warning: ignored 1 object of kind kustomize.config.k8s.io/v1beta1 Kustomization (first at " +
				filepath.Join(tree, "kustomization.yaml") + ":1)"},
		},
		{
			name:      "stdin with the default namespace option",
			opts:      Options{Paths: []string{"-"}, Stdin: strings.NewReader(stdin), Namespace: "team-b"},
			resources: []string{"resources.azure.com/ResourceGroup/team-b/rg-stdin @ -:1"},
			secrets:   []string{"v1/Secret/ops/from-stdin @ -:8"},
		},
		{
			name: "several inputs keep input order",
			opts: Options{Paths: []string{jsonFile, list}},
			resources: []string{
				"network.azure.com/VirtualNetwork/default/vnet-json @ " + jsonFile + ":1",
				"resources.azure.com/ResourceGroup/default/rg-list @ " + list + ":4",
				"managedidentity.azure.com/UserAssignedIdentity/default/identity-list @ " + list + ":10",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, diags := Load(tt.opts)
			check(t, "resources", summarize(res.Resources), tt.resources)
			check(t, "secrets", summarize(res.Secrets), tt.secrets)
			check(t, "config maps", summarize(res.ConfigMaps), tt.configMaps)
			check(t, "diagnostics", render(diags), tt.diags)
		})
	}
}

// writeFiles creates files (name → content) in a temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const rgDoc = "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\n"

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		paths     []string // relative to the temporary directory; default: every file, sorted
		resources []string // names of the objects still loaded
		diags     []string // "{dir}" stands for the temporary directory
	}{
		{
			name: "malformed YAML in the third document reports its absolute line",
			files: map[string]string{"a.yaml": rgDoc + "---\n" +
				"apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg2\n---\n" +
				"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n   namespace: bad\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"},
			resources: []string{"rg", "rg2"},
			diags:     []string{"error: {dir}/a.yaml:15: malformed YAML: mapping values are not allowed in this context"},
		},
		{
			name:  "malformed JSON reports the line where parsing stopped",
			files: map[string]string{"a.json": "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Secret\",\n  \"metadata\": {\"name\": \"s\"}\n  \"data\": {}\n}\n"},
			diags: []string{"error: {dir}/a.json:5: malformed YAML: did not find expected ',' or '}'"},
		},
		{
			name:  "errors without a line point at the document",
			files: map[string]string{"a.yaml": rgDoc + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: *nowhere\n"},
			paths: []string{"a.yaml"}, resources: []string{"rg"},
			diags: []string{"error: {dir}/a.yaml:5: malformed YAML: unknown anchor 'nowhere' referenced"},
		},
		{
			name: "missing identity fields are each reported",
			files: map[string]string{"a.yaml": "kind: ResourceGroup\nmetadata:\n  name: rg\n---\n" +
				"apiVersion: resources.azure.com/v1api20200601\nmetadata:\n  name: rg\n---\n" +
				"apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  namespace: x\n---\n" +
				"spec: {}\n"},
			diags: []string{
				"error: {dir}/a.yaml:1: ResourceGroup rg: apiVersion: missing apiVersion",
				"error: {dir}/a.yaml:5: (no kind) rg: kind: missing kind",
				"error: {dir}/a.yaml:9: ResourceGroup: metadata.name: missing metadata.name",
				"error: {dir}/a.yaml:14: (no kind): apiVersion: missing apiVersion",
				"error: {dir}/a.yaml:14: (no kind): kind: missing kind",
				"error: {dir}/a.yaml:14: (no kind): metadata.name: missing metadata.name",
			},
		},
		{
			name:  "a List item without a name is reported at the item",
			files: map[string]string{"a.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: ok\n- apiVersion: v1\n  kind: Secret\n"},
			diags: []string{"error: {dir}/a.yaml:8: Secret: metadata.name: missing metadata.name"},
		},
		{
			name:  "a document that is not a mapping",
			files: map[string]string{"a.yaml": "# notes\n- one\n- two\n"},
			diags: []string{"error: {dir}/a.yaml:2: expected a Kubernetes object (a mapping), found a sequence"},
		},
		{
			name: "duplicates name both places, across files and within one",
			files: map[string]string{
				"a.yaml": rgDoc + "---\n" + rgDoc,
				"b.yaml": "# same group, kind and name in another namespace is fine\n" + rgDoc + "  namespace: other\n---\n" + rgDoc,
			},
			resources: []string{"rg", "rg"},
			diags: []string{
				"error: {dir}/a.yaml:6: resources.azure.com/ResourceGroup/default/rg: duplicate object, first defined at {dir}/a.yaml:1",
				"error: {dir}/b.yaml:8: resources.azure.com/ResourceGroup/default/rg: duplicate object, first defined at {dir}/a.yaml:1",
			},
		},
		{
			name:  "a path that does not exist is named",
			files: map[string]string{"a.yaml": rgDoc},
			paths: []string{"missing.yaml", "a.yaml", "missing-dir"}, resources: []string{"rg"},
			diags: []string{
				"error: {dir}/missing.yaml: no such file or directory",
				"error: {dir}/missing-dir: no such file or directory",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			paths := tt.paths
			if paths == nil {
				for name := range tt.files {
					paths = append(paths, name)
				}
				slices.Sort(paths)
			}
			var opts Options
			for _, p := range paths {
				opts.Paths = append(opts.Paths, filepath.Join(dir, p))
			}
			res, diags := Load(opts)
			var names []string
			for _, o := range res.Resources {
				names = append(names, o.Name)
			}
			check(t, "resources", names, tt.resources)
			var want []string
			for _, d := range tt.diags {
				want = append(want, strings.ReplaceAll(d, "{dir}", dir))
			}
			check(t, "diagnostics", render(diags), want)
			if len(want) > 0 && !diags.HasErrors() {
				t.Error("HasErrors() = false")
			}
		})
	}
}

func TestLoadStdinUnavailable(t *testing.T) {
	_, diags := Load(Options{Paths: []string{"-"}})
	check(t, "diagnostics", render(diags), []string{"error: -: standard input requested but none available"})
}

func TestFieldLine(t *testing.T) {
	res, diags := Load(Options{Paths: []string{filepath.Join(fixtures, "multi.yaml")}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	vnet := res.Resources[1] // starts at line 9
	tests := []struct {
		path []string
		want int
	}{
		{nil, 9},
		{[]string{"metadata", "namespace"}, 13},
		{[]string{"spec", "owner", "name"}, 16},
		{[]string{"spec", "addressSpace"}, 18},
		{[]string{"spec", "addressSpace", "addressPrefixes", "[0]"}, 20},
		{[]string{"spec", "addressSpace", "addressPrefixes[0]"}, 20},
		{[]string{"spec", "addressSpace", "addressPrefixes[1]"}, 9},
		{[]string{"spec", "subnets"}, 9},
		{[]string{"spec", "location", "deeper"}, 9},
		{[]string{"spec", "owner", "[0]"}, 9},
		{[]string{"spec", "addressSpace", "addressPrefixes[x]"}, 9},
	}
	for _, tt := range tests {
		if got := FieldLine(vnet, tt.path...); got != tt.want {
			t.Errorf("FieldLine(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

// TestLoadLargeStream covers streams big enough to be decoded in parts: lines
// stay absolute in every part and a syntax error in a late part loses only
// its own document.
func TestLoadLargeStream(t *testing.T) {
	const docs = 10000 // nearly 4 × parallelChunk
	var sb strings.Builder
	for i := range docs {
		fmt.Fprintf(&sb, "---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg-%d\n", i)
		if i == docs-10 {
			sb.WriteString("spec: [unclosed\n")
		}
	}
	if sb.Len() < 3*parallelChunk {
		t.Fatalf("stream of %d bytes is too small to be decoded in parts", sb.Len())
	}
	res, diags := Load(Options{Paths: []string{"-"}, Stdin: strings.NewReader(sb.String())})
	// Document i starts on line 5i+1 (its "---"), its object on 5i+2; the
	// broken document pushes later ones down by one line.
	broken := 5*(docs-10) + 6
	check(t, "diagnostics", render(diags), []string{fmt.Sprintf("error: -:%d: malformed YAML: did not find expected ',' or ']'", broken)})
	if len(res.Resources) != docs-1 {
		t.Fatalf("loaded %d resources, want %d", len(res.Resources), docs-1)
	}
	for _, i := range []int{0, docs / 3, docs / 2, docs - 11, docs - 9, docs - 1} {
		idx, want := i, 5*i+2
		if i > docs-10 {
			idx, want = i-1, want+1
		}
		o := res.Resources[idx]
		if o.Name != fmt.Sprintf("rg-%d", i) || o.Source.Line != want || FieldLine(o, "metadata", "name") != want+3 {
			t.Errorf("rg-%d: got %s at line %d (name at %d), want line %d", i, o.Name, o.Source.Line, FieldLine(o, "metadata", "name"), want)
		}
	}
}

func TestPartition(t *testing.T) {
	var docs []document
	for i := range 6 {
		docs = append(docs, document{start: 10 * i, end: 10*i + 10, line: 2*i + 1})
	}
	for _, tt := range []struct {
		n    int
		want []int // documents per part
	}{
		{1, []int{6}},
		{2, []int{3, 3}},
		{3, []int{2, 2, 2}},
		{4, []int{2, 2, 2}},
		{8, []int{1, 1, 1, 1, 1, 1}},
	} {
		var got []int
		for _, p := range partition(docs, tt.n) {
			got = append(got, len(p))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("partition(n=%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// TestLoadFollowsSymlinks: a link to a folder, given as an input or found
// inside one, is read like the folder, each real folder once; files keep
// their path under the link.
func TestLoadFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	rg := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: %s\nspec:\n  location: westus2\n"
	os.WriteFile(filepath.Join(real, "rg.yaml"), []byte(fmt.Sprintf(rg, "rg1")), 0o644)
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte(fmt.Sprintf(rg, "rg2")), 0o644)
	link := filepath.Join(dir, "link")
	for _, l := range []struct{ target, name string }{
		{real, link},
		{filepath.Join(dir, "other.yaml"), filepath.Join(real, "nested", "other.yaml")}, // a link to a file
		{real, filepath.Join(real, "nested", "loop")},                                   // a link back up
	} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
	res, diags := Load(Options{Paths: []string{link}})
	check(t, "diagnostics", render(diags), nil)
	check(t, "resources", summarize(res.Resources), []string{
		"resources.azure.com/ResourceGroup/default/rg2 @ " + filepath.Join(link, "nested", "other.yaml") + ":1",
		"resources.azure.com/ResourceGroup/default/rg1 @ " + filepath.Join(link, "rg.yaml") + ":1",
	})
}

// TestLoadInputYieldingNothing: an input that holds nothing azk reads is an
// error naming it, never "0 resources".
func TestLoadInputYieldingNothing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	os.WriteFile(filepath.Join(empty, "README.md"), []byte("not a manifest"), 0o644)
	app := filepath.Join(dir, "app.yaml")
	os.WriteFile(app, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"), 0o644)
	blank := filepath.Join(dir, "blank.yaml")
	os.WriteFile(blank, []byte("# nothing yet\n---\n"), 0o644)
	_, diags := Load(Options{Paths: []string{empty, app, blank, "-"}, Stdin: strings.NewReader("")})
	check(t, "diagnostics", render(diags), []string{
		"error: " + empty + ": holds no ASO resource, Secret or ConfigMap: no .yaml, .yml or .json file with a document in it",
		"error: " + app + ": holds no ASO resource, Secret or ConfigMap: only objects of other kinds (1 ignored)",
		"error: " + blank + ": holds no ASO resource, Secret or ConfigMap: it is empty",
		"error: -: holds no ASO resource, Secret or ConfigMap: it is empty",
		"warning: ignored 1 object of kind apps/v1 Deployment (first at " + app + ":1)",
	})
}
