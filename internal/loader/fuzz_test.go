package loader_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/loader"
)

// hostileSeeds are the inputs of issue 12 and its kin: an alias bomb, an alias
// loop, deep nesting, keys set twice, Secret values that are not strings.
func hostileSeeds(t testing.TB) [][]byte {
	laughs, err := os.ReadFile(filepath.Join("..", "..", "testdata", "loader", "laughs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{
		laughs,
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: &a {x: *a}\n"),
		[]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  p: {a: b}\n  q: [1]\ndata:\n  r: '%%%'\n"),
		[]byte("apiVersion: v1\nkind: Secret\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"),
		[]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n" + strings.Repeat("- [", 50)),
		[]byte("a: " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n---\n--- \n...\n"),
	}
}

// FuzzLoad: whatever the bytes, Load returns (no panic, no hang on aliases),
// every diagnostic names its file, and every object it returns can be read:
// its values, its keys and its text, within the document bounds.
func FuzzLoad(f *testing.F) {
	for _, s := range hostileSeeds(f) {
		f.Add(s)
	}
	for _, s := range corpus.SampleFiles(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, diags := loader.Load(loader.Options{Paths: []string{"-"}, Stdin: bytes.NewReader(data)})
		for _, d := range diags {
			if d.Source.File != "-" && d.Source.File != "" {
				t.Fatalf("diagnostic without the input's name: %v", d)
			}
		}
		for _, objs := range [][]*loader.Object{res.Resources, res.Secrets, res.ConfigMaps} {
			for _, o := range objs {
				for _, k := range o.Keys() {
					o.Value(k)
				}
				if s, err := o.Node.String(); err != nil || len(s) > 64*len(data)+1024 {
					t.Fatalf("%s: %d bytes of text from %d bytes of input (%v)", o.Address(), len(s), len(data), err)
				}
			}
		}
	})
}
