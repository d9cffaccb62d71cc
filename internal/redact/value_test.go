package redact

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestValueReplacesWholeStringsThatHoldASecret(t *testing.T) {
	var s Set
	s.Add("hunter2-secret")
	s.Show("prod-rg")
	body := map[string]any{
		"name": "prod-rg",
		"tags": map[string]any{"owner": "x hunter2-secret y", "hunter2-secret": "k"},
		"list": []any{"plain", 3.0, "hunter2-secret"},
	}
	orig, _ := json.Marshal(body)
	got, changed := s.Value(body)
	want := map[string]any{
		"name": "prod-rg",
		"tags": map[string]any{"owner": Text, Text: "k"},
		"list": []any{"plain", 3.0, Text},
	}
	if !changed || !reflect.DeepEqual(got, want) {
		t.Fatalf("Value = %v, %v; want %v", got, changed, want)
	}
	if after, _ := json.Marshal(body); string(after) != string(orig) {
		t.Errorf("Value modified its input: %s", after)
	}
	if same, changed := s.Value(map[string]any{"name": "prod-rg"}); changed || same.(map[string]any)["name"] != "prod-rg" {
		t.Errorf("a body without secrets changed: %v", same)
	}
}
