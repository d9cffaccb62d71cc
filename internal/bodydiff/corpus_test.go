package bodydiff

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
)

// TestCorpusNoSpuriousDiffs is the "no spurious diffs" measurement: for every
// PUT the operator recorded against real Azure, the desired body azk renders
// for the same sample is diffed with the planner's diff against the body ARM
// returned on the first successful GET after that PUT (before any later
// write of it), as TestRecordedLifecycleNoSpuriousDiffs does: a resource just
// created from the same YAML must plan as no change; every difference is
// printed.
func TestCorpusNoSpuriousDiffs(t *testing.T) {
	dir := corpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := newMeasurement()
	for _, file := range files {
		f, ok := corpus.RecordingFolder(dir, file)
		if !ok {
			continue
		}
		folder := f.Path
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		measureRecording(t, rec, folder, filepath.Base(file), m)
	}
	m.log(t, "spurious diffs")
}

// measureRecording compares each recorded PUT of one recording that has a
// later successful GET.
func measureRecording(t *testing.T, rec *corpus.Recording, folder, name string, m *measurement) {
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
		gets := getsAfter(rec, i, path, false)
		candidates := rendered[key]
		if len(gets) == 0 || len(candidates) == 0 {
			continue
		}
		// The sample this PUT came from is the one of the same Azure name
		// (names under refs/ were kept), else the rendered body closest to
		// the PUT as recorded (names masked), not the one closest to the GET.
		var sent any
		_ = json.Unmarshal([]byte(put.Request.Body), &sent)
		sent = corpus.MaskBody(sent)
		azureName := path[strings.LastIndexByte(path, '/')+1:]
		chosen, distance := candidates[0], -1
		for _, c := range candidates {
			if strings.EqualFold(c.node.AzureName, azureName) {
				chosen, distance = c, 0
				break
			}
			if d := len(corpus.Diff(sent, revealed(corpus.MaskBody(c.body)))); distance < 0 || d < distance {
				chosen, distance = c, d
			}
		}
		first, _ := maskIDs(gets[0].body).(map[string]any)
		p := recordedPut{rec: rec, index: i, get: gets[0].index, path: path, armType: armTypeOf(path)}
		m.compare(t, chosen.node.Kind, chosen.body, first, spuriousDiff{recording: name, key: key}, p)
	}
}

// revealed is a rendered body as plain JSON values, secrets revealed.
func revealed(body any) any {
	data, _ := json.Marshal(convert.RevealSecrets(body))
	var decoded any
	_ = json.Unmarshal(data, &decoded)
	return decoded
}

// maskIDs masks the names inside ARM IDs (values and keys), which the
// operator's test harness changed, and drops the top-level name; names of
// nested items stay, as the planner matches them by name.
func maskIDs(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if armjson.IsID(k) {
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
		if armjson.IsID(t) {
			return corpus.MaskID(t)
		}
	}
	return v
}

// recordedGet is the body of a recorded GET and its place in the recording.
type recordedGet struct {
	index int
	body  map[string]any
}

// getsAfter are the successful GETs of path that follow interaction i,
// before the next write of it, in order; when settled, only those where
// provisioning finished (or that carry no state).
func getsAfter(rec *corpus.Recording, i int, path string, settled bool) []recordedGet {
	var found []recordedGet
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
		if state, _ := props["provisioningState"].(string); !settled || state == "" || strings.EqualFold(state, "Succeeded") {
			found = append(found, recordedGet{j, body})
		}
	}
	return found
}
