package planner

import (
	"encoding/json"
	"fmt"
	"github.com/azkcli/azk/internal/armjson"
	"path/filepath"
	"reflect"
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
	categories := map[string]int{}
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
		m := measureRecording(t, rec, folder, filepath.Base(file))
		total += m.total
		spurious += len(m.diffs)
		for _, d := range m.diffs {
			report = append(report, d.String())
			for _, c := range d.changes {
				categories[c.category]++
				if c.category == unexplained {
					t.Errorf("unexplained spurious diff: %s", d)
				}
			}
		}
	}
	for _, line := range report {
		t.Log(line)
	}
	names := make([]string, 0, len(categories))
	for c := range categories {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		t.Logf("  %d changes: %s", categories[c], c)
	}
	t.Logf("spurious diffs: %d of %d", spurious, total)
	if total == 0 {
		t.Fatal("no recorded PUT was compared")
	}
}

// Categories of the diffs that remain, each a way Azure really behaves that a
// plan cannot know from the manifests and the current state alone.
const (
	changedLater = "changed in Azure after creation by another resource (the first GET after the PUT had no such difference): a real change a PUT would revert"
	recovered    = "recovered from soft delete (the PUT sent createMode recover): ARM restored the deleted resource's state, not the PUT's; the next PUT would change it"
	assignedOnce = "ARM stored another value than sent, in this recording only: a normalisation cannot be told from a value ARM assigns itself"
	unexplained  = "unexplained"
)

type categorised struct {
	Change
	category string
}

type spuriousDiff struct {
	recording, key string
	changes        []categorised
}

func (d spuriousDiff) String() string {
	parts := make([]string, len(d.changes))
	for i, c := range d.changes {
		parts[i] = fmt.Sprintf("%s (%s vs %s) [%s]", c.Path, formatValue(c.Before), formatValue(c.After), c.category)
	}
	sort.Strings(parts)
	return d.recording + ": " + d.key + ": " + strings.Join(parts, "; ")
}

type measurement struct {
	total int
	diffs []spuriousDiff
}

// categorise says why a change remains: the PUT recovered a soft-deleted
// resource, against the first GET after the PUT it vanishes (something
// changed the resource later), or ARM stored another scalar than the one sent.
func categorise(c Change, first []Change, sent any) string {
	if props, _ := sent.(map[string]any)["properties"].(map[string]any); props["createMode"] == "recover" {
		return recovered
	}
	for _, f := range first {
		if f.Path == c.Path && reflect.DeepEqual(f.Before, c.Before) {
			if scalar(c.Before) && scalar(c.After) {
				return assignedOnce
			}
			return unexplained
		}
	}
	return changedLater
}

func scalar(v any) bool {
	switch v.(type) {
	case string, bool, float64:
		return true
	}
	return false
}

// measureRecording compares each recorded PUT of one recording that has a
// later successful GET.
func measureRecording(t *testing.T, rec *corpus.Recording, folder, name string) measurement {
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
	var m measurement
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
		gets := getsAfter(rec, i, path, true)
		candidates := rendered[key]
		if len(gets) == 0 || len(candidates) == 0 {
			continue
		}
		m.total++
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
		differ := newDiffer(chosen.node.Kind)
		last, _ := maskIDs(gets[len(gets)-1]).(map[string]any)
		changes := differ.diff(chosen.body, last)
		if len(changes) == 0 {
			continue
		}
		// The earliest state Azure reported, provisioning finished or not.
		first, _ := maskIDs(getsAfter(rec, i, path, false)[0]).(map[string]any)
		againstFirst := differ.diff(chosen.body, first)
		d := spuriousDiff{recording: name, key: key}
		for _, c := range changes {
			d.changes = append(d.changes, categorised{c, categorise(c, againstFirst, sent)})
		}
		m.diffs = append(m.diffs, d)
	}
	return m
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

// getsAfter are the bodies of the successful GETs of path that follow
// interaction i, before the next write of it, in order; when settled, only
// those where provisioning finished (or that carry no state).
func getsAfter(rec *corpus.Recording, i int, path string, settled bool) []map[string]any {
	var found []map[string]any
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
			found = append(found, body)
		}
	}
	return found
}
