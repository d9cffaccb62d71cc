package planner

import (
	"reflect"
	"testing"
)

// A change record's leaf path finds Azure's value in the body read.
func TestValueAtLeafPath(t *testing.T) {
	body := map[string]any{"properties": map[string]any{
		"allowBlobPublicAccess": true,
		"networkAcls":           map[string]any{"ipRules": []any{map[string]any{"value": "0.0.0.0/0"}}},
		"matrix":                []any{[]any{"a", "b"}},
	}}
	for path, want := range map[string]any{
		"properties.allowBlobPublicAccess":        true,
		"properties.networkAcls.ipRules[0].value": "0.0.0.0/0",
		"properties.matrix[0][1]":                 "b",
	} {
		if got, ok := valueAt(body, path); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("valueAt(%s) = %v, %v; want %v", path, got, ok, want)
		}
	}
	for _, path := range []string{"properties.networkAcls.ipRules[1].value", "properties.missing", "properties.allowBlobPublicAccess.x", "properties.matrix[x]"} {
		if got, ok := valueAt(body, path); ok {
			t.Errorf("valueAt(%s) = %v, want none", path, got)
		}
	}
}
