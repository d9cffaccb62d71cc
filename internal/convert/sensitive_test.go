package convert

import (
	"encoding/json"
	"testing"
)

// TestMarkSensitiveFollowsSchemaPaths: plain strings at the REST
// specification's secret paths, through list items ([]) and map values
// ({}), in any case of the keys, print as (sensitive) and are still sent.
func TestMarkSensitiveFollowsSchemaPaths(t *testing.T) {
	body := map[string]any{
		"properties": map[string]any{
			"adminPassword": "p1",
			"Secrets":       []any{map[string]any{"name": "a", "value": "p2"}, map[string]any{"name": "b", "value": Sensitive{value: "p3"}}},
			"keys":          map[string]any{"k1": "p4", "k2": 7},
			"other":         "plain",
		},
	}
	markSensitive(body, []string{"properties.adminPassword", "properties.secrets[].value", "properties.keys{}", "properties.missing.deep"})
	printed, _ := json.Marshal(body)
	want := `{"properties":{"Secrets":[{"name":"a","value":"(sensitive)"},{"name":"b","value":"(sensitive)"}],"adminPassword":"(sensitive)","keys":{"k1":"(sensitive)","k2":7},"other":"plain"}}`
	if string(printed) != want {
		t.Errorf("printed:\n%s\nwant\n%s", printed, want)
	}
	sent, err := MarshalRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"properties":{"Secrets":[{"name":"a","value":"p2"},{"name":"b","value":"p3"}],"adminPassword":"p1","keys":{"k1":"p4","k2":7},"other":"plain"}}`; string(sent) != want {
		t.Errorf("sent:\n%s\nwant\n%s", sent, want)
	}
}
