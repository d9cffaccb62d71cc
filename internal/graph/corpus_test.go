package graph_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// knownDefects are errors azk rightly reports in samples the operator's
// harness never recorded, or that rely on objects the harness itself creates.
// Each is checked to still occur, so the list cannot go stale.
var knownDefects = []struct{ folder, message, reason string }{
	{"compute/v1api", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "no sample defines the vault; disk encryption sets are not in the recordings"},
	{"compute/v20220702", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "as above"},
	{"compute/v20240302", `reference target keyvault.azure.com/Vault "aso-sample-kv" is not in the input`, "as above"},
	{"dbforpostgresql/v20250801", `config map "admin-settings"`, "the harness creates admin-settings; no sample does"},
	{"insights/v1api", "duplicate object", "two Webtest versions share the name samplewebtest; not in the recordings"},
	{"redhatopenshift/v1api", "duplicate object", "two refs/ files define RoleAssignment aso-sample-sp-to-vnet"},
	{"redhatopenshift/v1api20260630preview", "", "owner.group/kind the CRD lacks, required fields missing, references to objects not in the folder; not in the recordings"},
}

// TestCorpusSamplesValidate loads every samples/<group>/<version> folder as the
// operator's test harness does (with its refs/, the aso-sample-rg resource
// group and the harness's owner binding) and expects zero errors. Objects of
// versions the CRDs no longer serve are skipped, as the corpus README says.
func TestCorpusSamplesValidate(t *testing.T) {
	samples := filepath.Join(corpus.Dir(t), "samples")
	folders, err := filepath.Glob(filepath.Join(samples, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var resources, unserved, fixups int
	seen := make([]int, len(knownDefects))
	for _, folder := range folders {
		rel, _ := filepath.Rel(samples, folder)
		s := corpus.LoadSamples(t, folder)
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
			if defect := knownDefect(rel, d.Message); defect >= 0 {
				seen[defect]++
				continue
			}
			t.Errorf("%s: %v", rel, d)
		}
		resources += len(s.Result.Resources)
		unserved += len(s.Unserved)
		fixups += len(s.Fixups)
	}
	for i, d := range knownDefects {
		if seen[i] == 0 {
			t.Errorf("known defect in %s no longer occurs: drop it from knownDefects", d.folder)
		}
		t.Logf("known corpus defect in %s (%d errors): %s", d.folder, seen[i], d.reason)
	}
	t.Logf("validated %d resources in %d sample folders (%d skipped as no longer served, %d harness fixups)",
		resources, len(folders), unserved, fixups)
	if len(folders) == 0 {
		t.Fatal("no sample folders found")
	}
}

func knownDefect(folder, message string) int {
	for i, d := range knownDefects {
		if d.folder == folder && strings.Contains(message, d.message) {
			return i
		}
	}
	return -1
}
