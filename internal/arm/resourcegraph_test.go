package arm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// A Resource Graph query is a POST that reads: it draws on the read
// budget, as the plan's GETs do, never on the writes'; the Activity Log is
// a list with its OData filter.
func TestResourceGraphQueryIsPacedAsARead(t *testing.T) {
	e := startEmulator(t, emulator.Options{})
	c := e.client(t, nil)
	ctx := testContext(t)
	id := "/subscriptions/" + testSub + "/resourceGroups/rg"
	query := map[string]any{"subscriptions": []string{testSub}, "query": "resources | where tolower(id) in ('" + strings.ToLower(id) + "')", "options": map[string]any{"resultFormat": "objectArray"}}
	raw, err := c.QueryResourceGraph(ctx, testSub, query)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil || answer.Data == nil {
		t.Fatalf("answer %s: %v", raw, err)
	}
	if b := c.Budget(); b.Reads.Answered != 1 || b.Writes.Answered != 0 {
		t.Errorf("budget %+v, want one read and no write", b)
	}
	events, err := c.ActivityLog(ctx, testSub, "eventTimestamp ge '2026-01-01T00:00:00Z' and eventTimestamp le '2026-12-31T00:00:00Z' and resourceUri eq '"+id+"'")
	if err != nil || len(events) != 0 {
		t.Errorf("Activity Log of a group never written: %d events, %v", len(events), err)
	}
	if b := c.Budget(); b.Reads.Answered != 2 || b.Writes.Answered != 0 {
		t.Errorf("budget %+v, want two reads and no write", b)
	}
}
