package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/redact"
)

// What the change records say is Azure's free text: a secret of the run in
// a recorded value or a principal's name never reaches the plan.
func TestHistoryFindingsHoldNoSecret(t *testing.T) {
	const secret = "h1st0ry-c4n4ry-Qp4"
	secrets := &redact.Set{}
	secrets.Add(secret)
	m := &maker{opts: Options{Secrets: secrets}}
	h := &History{
		Unknown: "could not be read: " + secret,
		Findings: []HistoryFinding{
			{Path: "tags.owner", Class: ClassChangedOutside, Value: "x-" + secret, ChangedBy: secret + "@contoso.example"},
			{Path: "properties.list", Class: ClassChangedOutside, Value: []any{map[string]any{"name": secret}}},
			{Path: "properties.plain", Class: ClassChangedOutside, Value: "plain", ChangedBy: "someone@contoso.example"},
		},
	}
	m.scrubHistory(h)
	out, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), secret) {
		t.Errorf("the history holds the secret: %s", out)
	}
	if h.Findings[2].Value != "plain" || h.Findings[2].ChangedBy != "someone@contoso.example" {
		t.Errorf("a value with no secret changed: %+v", h.Findings[2])
	}
}
