package convert_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// TestCorpusRecordedPUTs renders every samples folder that has a recording and
// compares each PUT the operator recorded against real Azure with azk's, as
// the corpus README describes: method, ARM type, and body with names masked.
func TestCorpusRecordedPUTs(t *testing.T) {
	dir := corpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var matched, total, noFolder int
	var misses []string
	for _, file := range files {
		folder, ok := corpus.RecordingFolder(dir, file)
		if !ok {
			rec, _ := corpus.ReadRecording(file)
			n := len(recordedPUTs(rec))
			noFolder += n
			t.Logf("%s: no samples folder (%d recorded PUTs not comparable)", filepath.Base(file), n)
			continue
		}
		m, n, fileMisses := compareRecording(t, file, folder)
		matched += m
		total += n
		misses = append(misses, fileMisses...)
	}
	for _, m := range misses {
		t.Log("miss: " + m)
	}
	t.Logf("matched %d of %d recorded PUTs (%.1f%%); %d more PUTs in recordings whose samples folder is gone",
		matched, total, 100*float64(matched)/float64(max(total, 1)), noFolder)
	if total == 0 {
		t.Fatal("no recorded PUTs compared")
	}
	if float64(matched) < 0.97*float64(total) {
		t.Errorf("matched %d of %d recorded PUTs, below the 97%% target", matched, total)
	}
}

type recordedPUT struct {
	target string // masked path and api-version
	body   any    // masked
}

// recordedPUTs lists the distinct PUTs of a recording, leaving out the
// harness's own resource group.
func recordedPUTs(rec *corpus.Recording) []recordedPUT {
	if rec == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []recordedPUT
	for i := range rec.Interactions {
		in := &rec.Interactions[i]
		if in.Request.Method != "PUT" || !strings.Contains(in.Request.URL, "management.azure.com") {
			continue
		}
		path := in.Path()
		apiVersion := corpus.APIVersion(in.Request.URL)
		if segs := strings.Split(strings.Trim(path, "/"), "/"); len(segs) == 4 && strings.HasPrefix(segs[3], "asotest-rg-") {
			continue // the harness's resource group, not a sample
		}
		var body any
		if err := json.Unmarshal([]byte(in.Request.Body), &body); err != nil {
			continue
		}
		masked := corpus.MaskBody(body)
		target := corpus.MaskID(path) + "?api-version=" + apiVersion
		key := target + " " + mustJSON(masked)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, recordedPUT{target: target, body: masked})
	}
	return out
}

func compareRecording(t *testing.T, file string, folder corpus.Folder) (matched, total int, misses []string) {
	t.Helper()
	name := filepath.Base(file)
	rec, err := corpus.ReadRecording(file)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	s := corpus.LoadSamples(t, folder.Path)
	g, diags := graph.Build(s.Result, graph.Options{Subscription: corpus.Subscription})
	reportErrors(t, folder, name, diags)
	broken := map[string]bool{} // resources whose resolution failed: not converted
	for _, d := range diags {
		broken[d.Resource] = broken[d.Resource] || d.Severity == diag.SeverityError
	}
	src := rec.Sources()
	var reqs []*convert.Request
	for _, n := range g.Nodes {
		if broken[n.Address()] || !n.Kind.IsARM() || n.Pending != "" {
			t.Logf("%s: not rendered: %s %s", name, n.Address(), n.Pending)
			continue
		}
		r, more := convert.Convert(g, n, src)
		reportErrors(t, folder, name, more)
		if r != nil {
			reqs = append(reqs, r)
		}
	}
	rendered := map[string][]any{}
	for _, r := range reqs {
		raw, err := convert.MarshalRequest(r.Body)
		if err != nil {
			raw, _ = json.Marshal(r.Body) // still compare: the miss shows the unknown values
		}
		var body any
		_ = json.Unmarshal(raw, &body)
		target := corpus.MaskID(strings.SplitN(r.URL, "?", 2)[0]) + "?api-version=" + corpus.APIVersion(r.URL)
		rendered[target] = append(rendered[target], corpus.MaskBody(body))
	}
	for _, put := range recordedPUTs(rec) {
		total++
		candidates := rendered[put.target]
		if len(candidates) == 0 {
			misses = append(misses, name+": "+put.target+": not rendered")
			continue
		}
		best := corpus.Diff(put.body, candidates[0])
		for _, c := range candidates[1:] {
			if d := corpus.Diff(put.body, c); len(d) < len(best) {
				best = d
			}
		}
		if len(best) == 0 {
			matched++
			continue
		}
		shown := make([]string, 0, len(best))
		for _, d := range best {
			shown = append(shown, d.String())
		}
		misses = append(misses, name+": "+put.target+": recorded vs rendered differ at "+strings.Join(shown, ", "))
	}
	return matched, total, misses
}

// reportErrors fails the test for errors the corpus's known sample defects do
// not explain, and logs the rest.
func reportErrors(t *testing.T, folder corpus.Folder, name string, diags diag.List) {
	t.Helper()
	rel := folder.Rel
	for _, d := range diags {
		if d.Severity != diag.SeverityError {
			continue
		}
		if corpus.KnownDefect(rel, d.Message) >= 0 {
			t.Logf("%s: known corpus defect: %v", name, d)
			continue
		}
		t.Errorf("%s: %v", name, d)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
