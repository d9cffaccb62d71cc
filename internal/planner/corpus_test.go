package planner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
)

// TestCorpusNoSpuriousDiffs is the "no spurious diffs" measurement: for every
// PUT the operator recorded against real Azure, the desired body azk renders
// for the same sample is diffed with the planner's diff against the body ARM
// returned on the last successful GET after that PUT. A resource just created
// from the same YAML must plan as no change; every difference is printed.
func TestCorpusNoSpuriousDiffs(t *testing.T) {
	dir := corpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var total, spurious int
	var report []string
	for _, file := range files {
		group, version, ok := corpus.SamplesFolder(filepath.Base(file))
		folder := filepath.Join(dir, "samples", group, version)
		if _, err := os.Stat(folder); !ok || err != nil {
			continue
		}
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		n, bad, lines := measureRecording(t, rec, folder, filepath.Base(file))
		total += n
		spurious += bad
		report = append(report, lines...)
	}
	for _, line := range report {
		t.Log(line)
	}
	t.Logf("spurious diffs: %d of %d", spurious, total)
	if total == 0 {
		t.Fatal("no recorded PUT was compared")
	}
}

// measureRecording compares each recorded PUT of one recording that has a
// later successful GET.
func measureRecording(t *testing.T, rec *corpus.Recording, folder, name string) (total, spurious int, report []string) {
	t.Helper()
	g, err := corpus.LoadSamples(t, folder).Graph()
	if err != nil {
		t.Logf("%s: %v", name, err)
	}
	reqs, _ := convert.Requests(g, rec.Sources())
	type candidate struct {
		body map[string]any
		node *graph.Node
	}
	rendered := map[string][]candidate{}
	for _, r := range reqs {
		masked, _ := maskIDs(r.Body).(map[string]any)
		key := corpus.MaskID(strings.SplitN(r.URL, "?", 2)[0]) + "?" + corpus.APIVersion(r.URL)
		rendered[key] = append(rendered[key], candidate{masked, r.Node})
	}
	for i := range rec.Interactions {
		put := &rec.Interactions[i]
		if put.Request.Method != "PUT" || put.Response.Code >= 300 || !strings.Contains(put.Request.URL, "management.azure.com") {
			continue
		}
		path := put.Path()
		if segs := strings.Split(strings.Trim(path, "/"), "/"); len(segs) == 4 && strings.HasPrefix(segs[3], "asotest-rg-") {
			continue // the harness's resource group
		}
		key := corpus.MaskID(path) + "?" + corpus.APIVersion(put.Request.URL)
		current := lastGetAfter(rec, i, path)
		candidates := rendered[key]
		if current == nil || len(candidates) == 0 {
			continue
		}
		total++
		// The sample this PUT came from is the rendered body closest to the
		// PUT as recorded (names masked), not the one closest to the GET.
		var sent any
		_ = json.Unmarshal([]byte(put.Request.Body), &sent)
		sent = corpus.MaskBody(sent)
		chosen, distance := candidates[0], -1
		for _, c := range candidates {
			rendered, _ := json.Marshal(convert.RevealSecrets(corpus.MaskBody(c.body)))
			var decoded any
			_ = json.Unmarshal(rendered, &decoded)
			if d := len(corpus.Diff(sent, decoded)); distance < 0 || d < distance {
				chosen, distance = c, d
			}
		}
		masked, _ := maskIDs(current).(map[string]any)
		best := newDiffer(chosen.node.Kind).diff(chosen.body, masked)
		if len(best) == 0 {
			continue
		}
		spurious++
		paths := make([]string, len(best))
		for j, c := range best {
			paths[j] = c.Path + " (" + formatValue(c.Before) + " vs " + formatValue(c.After) + ")"
		}
		sort.Strings(paths)
		report = append(report, name+": "+key+": "+strings.Join(paths, "; "))
	}
	return total, spurious, report
}

// maskIDs masks the names inside ARM IDs (values and keys), which the
// operator's test harness changed, and drops the top-level name; names of
// nested items stay, as the planner matches them by name.
func maskIDs(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if isARMID(k) {
				k = corpus.MaskID(k)
			}
			out[k] = maskIDs(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = maskIDs(e)
		}
		return out
	case string:
		if isARMID(t) {
			return corpus.MaskID(t)
		}
	}
	return v
}

// lastGetAfter is the body of the last successful GET of path that follows
// interaction i, before the next write of it, and reports provisioning
// finished (or carries no state).
func lastGetAfter(rec *corpus.Recording, i int, path string) map[string]any {
	var found map[string]any
	for j := i + 1; j < len(rec.Interactions); j++ {
		in := &rec.Interactions[j]
		if !strings.EqualFold(in.Path(), path) {
			continue
		}
		if in.Request.Method == "DELETE" || in.Request.Method == "PUT" || in.Request.Method == "PATCH" {
			break
		}
		if in.Request.Method != "GET" || in.Response.Code != 200 {
			continue
		}
		var body map[string]any
		if json.Unmarshal([]byte(in.Response.Body), &body) != nil {
			continue
		}
		props, _ := body["properties"].(map[string]any)
		if state, _ := props["provisioningState"].(string); state == "" || strings.EqualFold(state, "Succeeded") {
			found = body
		}
	}
	return found
}
