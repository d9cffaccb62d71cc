package planner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/corpus"
)

// The spurious-diff measurements (TestCorpusNoSpuriousDiffs,
// TestRecordedLifecycleNoSpuriousDiffs) diff a body ARM has just stored
// with what ARM returned for it. A difference that remains fails the test
// unless one of these categories explains it: each a specific, checkable way
// Azure behaved that no rule of the differ can know. They still count as
// spurious diffs. (What a resource provider documents about the values it
// stores is a rule, not a category: see extensions.StoredValues.)
const (
	unexplained     = "unexplained"
	recovered       = "recovered from soft delete (the PUT sent createMode recover): ARM restored the deleted resource's state, not the PUT's; the next PUT would change it"
	addedByReferrer = "added by another resource that refers to this one (a PUT of it carrying this resource's ID came before this GET: an ML workspace adds its access policy to its key vault): a real change a PUT would revert"
	policyTag       = "a tag Azure added while handling the PUT (the PUT's own response carries it, its body does not: Azure Policy's modify effect in the recording subscription); a PUT without it gets it again"
)

// recordedPut is what the categories may check about one recorded PUT.
type recordedPut struct {
	rec     *corpus.Recording
	index   int    // of the PUT among the interactions
	get     int    // of the GET diffed with
	path    string // the PUT's URL path
	armType string
}

// categorise says why change c of a recorded PUT remains, or unexplained.
func categorise(c Change, p recordedPut) string {
	put := &p.rec.Interactions[p.index]
	var sent, response map[string]any
	_ = json.Unmarshal([]byte(put.Request.Body), &sent)
	_ = json.Unmarshal([]byte(put.Response.Body), &response)
	if props, _ := sent["properties"].(map[string]any); strings.EqualFold(fmt.Sprint(props["createMode"]), "recover") {
		return recovered
	}
	if path, err := armjson.ParsePath(c.Path); err == nil && len(path) == 2 && path[0].Key == "tags" && !path[1].Item && c.Before != nil && c.After == nil {
		if tags, _ := response["tags"].(map[string]any); tags[path[1].Key] != nil {
			return policyTag
		}
	}
	if c.Before != nil && c.After == nil && referredBefore(p) {
		return addedByReferrer
	}
	return unexplained
}

// referredBefore reports a successful PUT of another resource, before the
// GET, whose body carries the ID of the resource p wrote.
func referredBefore(p recordedPut) bool {
	id := strings.ToLower(p.path)
	for j := 0; j < p.get; j++ {
		in := &p.rec.Interactions[j]
		if in.Request.Method != "PUT" || in.Response.Code >= 300 || strings.EqualFold(in.Path(), p.path) {
			continue
		}
		if strings.Contains(strings.ToLower(in.Request.Body), `"`+id+`"`) {
			return true
		}
	}
	return false
}

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

// spuriousReport gathers the differences of one measurement.
type spuriousReport struct {
	total      int
	diffs      []spuriousDiff
	categories map[string]int
}

func (r *spuriousReport) add(t *testing.T, d spuriousDiff) {
	t.Helper()
	if r.categories == nil {
		r.categories = map[string]int{}
	}
	r.diffs = append(r.diffs, d)
	failed := false
	for _, c := range d.changes {
		r.categories[c.category]++
		if c.category == unexplained && !failed {
			t.Errorf("unexplained spurious diff: %s", d)
			failed = true
		}
	}
}

// log prints every difference, the count per category and the summary line.
func (r *spuriousReport) log(t *testing.T, summary string) {
	t.Helper()
	for _, d := range r.diffs {
		t.Log(d)
	}
	names := make([]string, 0, len(r.categories))
	for c := range r.categories {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		t.Logf("  %d changes: %s", r.categories[c], c)
	}
	t.Logf("%s: %d of %d", summary, len(r.diffs), r.total)
	if r.total == 0 {
		t.Fatal("no recorded PUT was compared")
	}
}
