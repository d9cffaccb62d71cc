package graph_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// TestMisspeltGroupIsAnError: each one-edit spelling of storage.azure.com
// is one error at the apiVersion line naming the resource and the served
// group, version and kind meant, as azk validate reads it; none is ignored
// (a three-way plan would delete the account the head still declares).
func TestMisspeltGroupIsAnError(t *testing.T) {
	const account = `# the shop's account
apiVersion: %s/v1api20230101
kind: StorageAccount
metadata:
  name: shopdata
spec:
  location: westus2
  kind: StorageV2
  sku:
    name: Standard_LRS
  owner:
    name: rg1
`
	for _, group := range []string{
		"storage.azure.com.", "storage.azure.con", "storage.azure.co", "storage.azure.comm",
		"storageazure.com", "storage.azur.com", "storag.azure.com", "sotrage.azure.com",
		"Storage.azure.com", "storage-azure.com", "storage.azure.cm", "storage.zure.com",
	} {
		t.Run(group, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "shop.yaml")
			doc := rg + "---\n" + strings.Replace(account, "%s", group, 1)
			if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			res, diags := loader.Load(loader.Options{Paths: []string{file}})
			_, more := graph.Build(res, graph.Options{})
			diags = append(diags, more...)
			if len(diags) != 1 || diags[0].Severity != diag.SeverityError {
				t.Fatalf("want one error, got:\n%v", diags)
			}
			d := diags[0]
			want := `apiVersion group "` + group + `" is not an ASO group; did you mean storage.azure.com/v1api20230101 StorageAccount?`
			if d.Source.File != file || d.Source.Line != 9 || d.Resource != group+"/StorageAccount/default/shopdata" ||
				d.Field != "apiVersion" || d.Message != want {
				t.Errorf("got %s\nwant %s:9: %s/StorageAccount/default/shopdata: apiVersion: %s", d, file, group, want)
			}
		})
	}
}

// TestUnknownGroupMessages: a group nothing served is near names the kind
// too; a group near a served one that has no kind like it names the group.
func TestUnknownGroupMessages(t *testing.T) {
	for doc, want := range map[string]string{
		"apiVersion: widgets.azure.com/v1\nkind: Gadget\nmetadata:\n  name: g\n":                    `apiVersion group "widgets.azure.com" is not an ASO group, and Gadget is not an ASO v2 resource kind`,
		"apiVersion: storage.azure.con/v1api20230101\nkind: Gadget\nmetadata:\n  name: g\n":         `apiVersion group "storage.azure.con" is not an ASO group; did you mean storage.azure.com? It serves no kind like Gadget`,
		"apiVersion: widgets.azure.com/v1api20230101\nkind: StorageAccount\nmetadata:\n  name: g\n": `apiVersion group "widgets.azure.com" is not an ASO group; did you mean storage.azure.com/v1api20230101 StorageAccount?`,
	} {
		_, diags, _ := build(t, doc)
		if err := diags.Err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", doc, err, want)
		}
	}
}

// TestDeclares: what the input declares is found among the resources,
// those a selection left out and the objects azk does not read; kind
// ignores case, namespace and name do not.
func TestDeclares(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n"
	g, diags, file := build(t, rg, vnet, deployment)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if len(g.Others) != 1 || g.Others[0].Kind != "Deployment" {
		t.Fatalf("Others = %v, want the Deployment", g.Others)
	}
	var vnetNode *graph.Node
	for _, n := range g.Nodes {
		if n.Object.Name == "vnet1" {
			vnetNode = n
		}
	}
	sel := g.Select([]*graph.Node{vnetNode}, graph.WithDependents)
	if len(sel.Outside) != 1 {
		t.Fatalf("selection left out %d nodes, want the resource group", len(sel.Outside))
	}
	for _, tc := range []struct {
		kind, namespace, name string
		line                  int // 0: not declared
	}{
		{"VirtualNetwork", "default", "vnet1", 8},
		{"resourcegroup", "default", "rg1", 1}, // outside the selection
		{"deployment", "shop", "web", 19},
		{"Deployment", "default", "web", 0},
		{"Deployment", "shop", "Web", 0},
		{"StorageAccount", "default", "vnet1", 0},
	} {
		got := sel.Declares(tc.kind, tc.namespace, tc.name)
		switch {
		case tc.line == 0 && got != nil:
			t.Errorf("Declares(%s, %s, %s) = %s, want nil", tc.kind, tc.namespace, tc.name, got.Source)
		case tc.line != 0 && (got == nil || got.Source != diag.Source{File: file, Line: tc.line}):
			t.Errorf("Declares(%s, %s, %s) = %v, want the object at line %d", tc.kind, tc.namespace, tc.name, got, tc.line)
		}
	}
}
