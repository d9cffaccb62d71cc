package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// loadText writes text to a file and loads it.
func loadText(t *testing.T, text string) (*Result, []string, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := Load(Options{Paths: []string{file}})
	return res, render(diags), file
}

func mustReport(t *testing.T, diags []string, want ...string) {
	t.Helper()
	all := strings.Join(diags, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no diagnostic containing %q; got:\n%s", w, all)
		}
	}
}

// TestAliasBombIsRefused: 713 bytes of YAML whose aliases expand to 3.5
// billion strings are refused at load, naming file and line, in bounded time
// and memory (issue 12, item 2).
func TestAliasBombIsRefused(t *testing.T) {
	file := filepath.Join(fixtures, "laughs.yaml")
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, diags := Load(Options{Paths: []string{file}})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	mustReport(t, render(diags), "error: "+file+":16: network.azure.com/VirtualNetwork/default/laughs: spec.tags.f[0]: YAML aliases expand this document to more than 100000 nodes (it has 134): refusing it")
	if len(res.Resources) != 0 {
		t.Errorf("the bomb was loaded: %v", summarize(res.Resources))
	}
	if d, grew := time.Since(start), after.TotalAlloc-before.TotalAlloc; d > 5*time.Second || grew > 64<<20 {
		t.Errorf("refusing it took %s and %d MB", d, grew>>20)
	}
}

func TestDocumentBounds(t *testing.T) {
	rg := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg1\nspec:\n  location: westus2\n"
	t.Run("depth", func(t *testing.T) {
		deep := strings.Replace(rg, "spec:\n", "spec:\n  tags: "+strings.Repeat("[", 200)+strings.Repeat("]", 200)+"\n", 1)
		res, diags, file := loadText(t, deep)
		mustReport(t, diags, "error: "+file+":6: resources.azure.com/ResourceGroup/default/rg1: spec.tags[0][0][0]", "...: nested more than 100 levels deep")
		if len(res.Resources) != 0 {
			t.Error("a document nested too deep was loaded")
		}
	})
	t.Run("alias cycle", func(t *testing.T) {
		res, diags, file := loadText(t, strings.Replace(rg, "spec:\n", "spec:\n  tags: &a [*a]\n", 1))
		mustReport(t, diags, "error: "+file+":6: resources.azure.com/ResourceGroup/default/rg1: spec.tags[0]: alias *a refers to a node that contains it")
		if len(res.Resources) != 0 {
			t.Error("a document whose alias loops was loaded")
		}
	})
	t.Run("size", func(t *testing.T) {
		big := strings.Replace(rg, "spec:\n", "spec:\n  tags: {a: \""+strings.Repeat("x", MaxDocumentBytes)+"\"}\n", 1)
		res, diags, file := loadText(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n---\n"+big+"---\n"+strings.Replace(rg, "rg1", "rg2", 1))
		mustReport(t, diags, "error: "+file+":5: the document is 3145862 bytes, more than the 3145728")
		check(t, "the documents around it", summarize(append(res.ConfigMaps, res.Resources...)),
			[]string{"v1/ConfigMap/default/before @ " + file + ":1", "resources.azure.com/ResourceGroup/default/rg2 @ " + file + ":14"})
	})
	t.Run("aliases within bounds", func(t *testing.T) {
		res, diags, _ := loadText(t, strings.Replace(rg, "spec:\n", "spec:\n  tags: &t {team: a}\n  x: *t\n", 1))
		if len(diags) != 0 || len(res.Resources) != 1 {
			t.Errorf("an ordinary alias was refused: %v", diags)
		}
	})
}

// TestAliasLimitIsOneLimit: whether the walk stops early (a bomb) or at the
// end (a document just past the limit), the error quotes the one limit the
// document has: 100,000 nodes or ten times its own, whichever is more
// (issue 22, item 6: a bomb quoted 1,000,000).
func TestAliasLimitIsOneLimit(t *testing.T) {
	tens := func(anchor, of string) string {
		return "  " + anchor + ": &" + anchor + " [" + strings.TrimSuffix(strings.Repeat(of+", ", 10), ", ") + "]\n"
	}
	justPast := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: past\nx:\n" +
		tens("a", "x") + tens("b", "*a") + tens("c", "*b") + tens("d", "*c") + tens("e", "*d")
	_, diags, _ := loadText(t, justPast)
	bomb, err := os.ReadFile(filepath.Join(fixtures, "laughs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, bombDiags, _ := loadText(t, string(bomb))
	for _, d := range [][]string{diags, bombDiags} {
		if len(d) != 1 || !strings.Contains(d[0], "YAML aliases expand this document to more than 100000 nodes (it has ") {
			t.Errorf("diagnostics %q, want one quoting the limit of 100000 nodes", d)
		}
	}
}

// TestKustomizeRefusesAnAliasBomb: kustomize would expand the bomb itself, so
// the files it reads are checked first.
func TestKustomizeRefusesAnAliasBomb(t *testing.T) {
	dir := t.TempDir()
	bomb, err := os.ReadFile(filepath.Join(fixtures, "laughs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bomb.yaml"), bomb, 0o644)
	os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- bomb.yaml\n"), 0o644)
	res, diags := Load(Options{Kustomize: []string{dir}})
	mustReport(t, render(diags), "bomb.yaml:16: spec.tags.f[0]: YAML aliases expand this document to more than 100000 nodes (it has 134)")
	if len(res.Resources) != 0 {
		t.Error("the bomb was loaded")
	}
}

// TestDuplicateKeysAnywhere: a key set twice is an error wherever it is, with
// the field and the line of both (issue 12, item 11).
func TestDuplicateKeysAnywhere(t *testing.T) {
	_, diags, file := loadText(t, `apiVersion: v1
kind: Secret
kind: ConfigMap
metadata:
  name: a
  name: b
stringData:
  password: one
  password: two
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet
  annotations:
    x: "1"
    x: "2"
spec:
  location: westus2
  location: eastus
  subnets:
    - {name: a, name: b}
`)
	mustReport(t, diags,
		"error: "+file+`:3: v1/Secret/default/a: kind: key "kind" is set twice (first on line 2)`,
		"error: "+file+`:6: v1/Secret/default/a: metadata.name: key "name" is set twice (first on line 5)`,
		"error: "+file+`:9: v1/Secret/default/a: stringData.password: key "password" is set twice (first on line 8)`,
		"error: "+file+`:17: network.azure.com/VirtualNetwork/default/vnet: metadata.annotations.x: key "x" is set twice (first on line 16)`,
		"error: "+file+`:20: network.azure.com/VirtualNetwork/default/vnet: spec.location: key "location" is set twice (first on line 19)`,
		"error: "+file+`:22: network.azure.com/VirtualNetwork/default/vnet: spec.subnets[0].name: key "name" is set twice (first on line 22)`,
	)
}

// TestSecretValuesMustBeStrings: a map, a list or a number as a Secret value,
// and data that is not base64, are input errors naming file, line and key
// (issue 12, item 3); before, a map became an empty password.
func TestSecretValuesMustBeStrings(t *testing.T) {
	res, diags, file := loadText(t, `apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password:
    nested: value
  list: [a, b]
  port: 5432
  ok: "fine"
  empty:
data:
  token: not base64!
  good: aGVsbG8=
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  replicas: 3
  name: web
binaryData:
  blob: "%%%"
`)
	mustReport(t, diags,
		"error: "+file+":6: v1/Secret/default/creds: stringData.password: must be a string, got a map",
		"error: "+file+":8: v1/Secret/default/creds: stringData.list: must be a string, got a list",
		"error: "+file+":9: v1/Secret/default/creds: stringData.port: must be a string, got !!int (quote it)",
		"error: "+file+":13: v1/Secret/default/creds: data.token: is not valid base64",
		"error: "+file+":21: v1/ConfigMap/default/settings: data.replicas: must be a string, got !!int (quote it)",
		"error: "+file+":24: v1/ConfigMap/default/settings: binaryData.blob: is not valid base64",
	)
	if len(diags) != 6 {
		t.Errorf("%d diagnostics, want 6:\n%s", len(diags), strings.Join(diags, "\n"))
	}
	if v, ok := res.Secrets[0].Value("good"); !ok || v != "hello" {
		t.Errorf("good = %q %v", v, ok)
	}
}

// endless is standard input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestInputBounds: a file larger than MaxFileBytes is refused before it is
// read, and standard input that never ends is read only up to the bound.
func TestInputBounds(t *testing.T) {
	file := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	_, diags := Load(Options{Paths: []string{file}})
	check(t, "a file too large", render(diags), []string{fmt.Sprintf("error: %s: is %d bytes, more than the %d azk reads from one file: refusing to read it", file, MaxFileBytes+1, MaxFileBytes)})

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, diags = Load(Options{Paths: []string{"-"}, Stdin: endless{}})
	runtime.ReadMemStats(&after)
	check(t, "endless standard input", render(diags), []string{fmt.Sprintf("error: -: is more than the %d bytes azk reads from one file: refusing it", MaxFileBytes)})
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*MaxFileBytes {
		t.Errorf("reading it allocated %d MB", grew>>20)
	}
}
