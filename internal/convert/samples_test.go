package convert_test

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// TestCorpusSamplesConvert converts every resource of every samples folder,
// with Azure answering as its recording shows (statuses, current state, the
// built-in roles) where one exists. Every ARM resource must convert to a
// complete body; those that cannot are listed with the reason, and only
// reasons that are facts of the samples (a kind the operator does not manage
// through ARM, a name from another resource's status, a known sample defect)
// pass.
func TestCorpusSamplesConvert(t *testing.T) {
	dir := corpus.Dir(t)
	folders, err := corpus.SampleFolders(dir)
	if err != nil {
		t.Fatal(err)
	}
	var converted, total int
	reasons := map[string]int{}
	for _, folder := range folders {
		s := corpus.LoadSamples(t, folder.Path)
		g, diags := graph.Build(s.Result, graph.Options{Subscription: corpus.Subscription})
		broken := map[string]bool{}
		for _, d := range diags {
			if d.Severity == diag.SeverityError {
				if corpus.KnownDefect(folder.Rel, d.Message) < 0 {
					t.Errorf("%s: %v", folder.Rel, d)
				}
				broken[d.Resource] = true
			}
		}
		src := convert.Sources{LookupEnv: func(string) (string, bool) { return "{PASSWORD}", true }, RoleDefinitionID: corpus.BuiltInRoleID}
		if rec, err := corpus.ReadRecording(filepath.Join(dir, "recordings", folder.Recording)); err == nil {
			src = rec.Sources()
		}
		for _, n := range g.Nodes {
			total++
			why := ""
			switch {
			case broken[n.Address()]:
				why = "known sample defect"
			case !n.Kind.IsARM():
				why = "not an ARM resource (" + n.Kind.Kind + ")"
			case n.Pending != "":
				why = "named from another resource's status (azureNameFromConfig)"
			}
			if why == "" {
				r, more := convert.Convert(g, n, src)
				switch {
				case more.HasErrors():
					t.Errorf("%s: %s: %v", folder.Rel, n.Address(), more.Err())
					continue
				case convert.HasUnknown(r.Body):
					for _, reason := range unknownReasons(r.Body) {
						if !strings.Contains(reason, " exported by ") {
							t.Errorf("%s: %s: unknown value: %s", folder.Rel, n.Address(), reason)
						}
					}
					why = "a value exported from another resource's status, known after apply"
				}
				if why == "" {
					converted++
					continue
				}
			}
			reasons[why]++
			t.Logf("%s: %s not converted: %s", folder.Rel, n.Address(), why)
		}
	}
	var lines []string
	for why, n := range reasons {
		lines = append(lines, why+": "+itoa(n))
	}
	sort.Strings(lines)
	t.Logf("converted %d of %d resources in %d sample folders; not converted: %s", converted, total, len(folders), strings.Join(lines, "; "))
}

// unknownReasons lists why each unknown value of a body is unknown.
func unknownReasons(v any) []string {
	switch t := v.(type) {
	case convert.Unknown:
		return []string{t.Reason}
	case map[string]any:
		var out []string
		for _, e := range t {
			out = append(out, unknownReasons(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, unknownReasons(e)...)
		}
		return out
	}
	return nil
}

func itoa(n int) string {
	return strconv.Itoa(n)
}
