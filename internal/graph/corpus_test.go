package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
)

// corpusDir finds ../shared/aso beside the repository root (or $AZK_CORPUS).
func corpusDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("AZK_CORPUS"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("ASO corpus not found: no go.mod above the test")
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "aso")
	if _, err := os.Stat(filepath.Join(corpus, "samples")); err != nil {
		t.Skipf("ASO corpus not found at %s (set AZK_CORPUS): skipping corpus test", corpus)
	}
	return corpus
}

// sampleResourceGroup is the resource group the operator's test harness adds
// to every samples folder.
const sampleResourceGroup = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: aso-sample-rg
  namespace: default
spec:
  location: westcentralus
`

// TestCorpusSamplesValidate loads every samples/<group>/<version> folder with
// its refs/ and the harness's resource group, and expects zero errors.
// Objects of versions the CRDs no longer serve are skipped, as the corpus README says.
func TestCorpusSamplesValidate(t *testing.T) {
	samples := filepath.Join(corpusDir(t), "samples")
	folders, err := filepath.Glob(filepath.Join(samples, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	rgFile := filepath.Join(t.TempDir(), "rg.yaml")
	if err := os.WriteFile(rgFile, []byte(sampleResourceGroup), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry.Default()
	var resources, skipped, checked int
	for _, folder := range folders {
		rel, _ := filepath.Rel(samples, folder)
		res, diags := loader.Load(loader.Options{Paths: []string{folder}})
		if diags.HasErrors() {
			t.Errorf("%s: load: %v", rel, diags.Err())
			continue
		}
		if !hasSampleResourceGroup(res) {
			rg, _ := loader.Load(loader.Options{Paths: []string{rgFile}})
			res.Resources = append(res.Resources, rg.Resources...)
		}
		served := res.Resources[:0]
		for _, o := range res.Resources {
			if _, ok := reg.Lookup(o.Group(), o.Version(), o.Kind); ok {
				served = append(served, o)
			} else {
				t.Logf("%s: skipped %s %s (%s): version no longer served", rel, o.APIVersion, o.Kind, o.Source)
				skipped++
			}
		}
		res.Resources = served
		_, more := graph.Build(res, graph.Options{Subscription: "00000000-0000-0000-0000-000000000000"})
		if more.HasErrors() {
			t.Errorf("%s: %v", rel, more.Err())
		}
		checked++
		resources += len(res.Resources)
	}
	t.Logf("validated %d resources in %d sample folders (%d objects skipped as no longer served)", resources, checked, skipped)
	if checked == 0 {
		t.Fatal("no sample folders found")
	}
}

func hasSampleResourceGroup(res *loader.Result) bool {
	for _, o := range res.Resources {
		if o.Kind == "ResourceGroup" && o.Name == "aso-sample-rg" {
			return true
		}
	}
	return false
}
