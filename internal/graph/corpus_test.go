package graph_test

import (
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// TestCorpusSamplesValidate loads every samples/<group>/<version> folder as the
// operator's test harness does (with its refs/, the aso-sample-rg resource
// group and the harness's owner binding) and expects zero errors. Objects of
// versions the CRDs no longer serve are skipped, as the corpus README says.
func TestCorpusSamplesValidate(t *testing.T) {
	folders, err := corpus.SampleFolders(corpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	var resources, unserved, fixups int
	seen := make([]int, len(corpus.KnownDefects))
	for _, folder := range folders {
		rel := folder.Rel
		s := corpus.LoadSamples(t, folder.Path)
		for _, o := range s.Unserved {
			t.Logf("%s: skipped %s %s (%s): version no longer served", rel, o.APIVersion, o.Kind, o.Source)
		}
		for _, f := range s.Fixups {
			t.Logf("%s: harness: %s", rel, f)
		}
		_, diags := graph.Build(s.Result, graph.Options{Subscription: corpus.Subscription})
		for _, d := range append(s.LoadDiagnostics, diags...) {
			if d.Severity != diag.SeverityError {
				continue
			}
			if defect := corpus.KnownDefect(rel, d.Message); defect >= 0 {
				seen[defect]++
				continue
			}
			t.Errorf("%s: %v", rel, d)
		}
		resources += len(s.Result.Resources)
		unserved += len(s.Unserved)
		fixups += len(s.Fixups)
	}
	for i, d := range corpus.KnownDefects {
		if seen[i] == 0 {
			t.Errorf("known defect in %s no longer occurs: drop it from corpus.KnownDefects", d.Folder)
		}
		t.Logf("known corpus defect in %s (%d errors): %s", d.Folder, seen[i], d.Reason)
	}
	t.Logf("validated %d resources in %d sample folders (%d skipped as no longer served, %d harness fixups)",
		resources, len(folders), unserved, fixups)
	if len(folders) == 0 {
		t.Fatal("no sample folders found")
	}
}
