package armjson

import "testing"

func TestPutAndLookup(t *testing.T) {
	m := map[string]any{}
	Put(m, []string{"properties", "subnet", "id"}, "/subscriptions/s/x")
	v, ok := Lookup(m, []string{"properties", "subnet", "id"})
	if !ok || v != "/subscriptions/s/x" || !IsID(v.(string)) {
		t.Fatalf("got %v %v", v, ok)
	}
	if _, ok := Lookup(m, []string{"properties", "missing"}); ok {
		t.Error("found a missing path")
	}
	if v, ok := LookupFold(map[string]any{"ProvisioningState": "Succeeded"}, "provisioningState"); !ok || v != "Succeeded" {
		t.Error("case-insensitive lookup failed")
	}
}

func TestNamedItems(t *testing.T) {
	items := []any{map[string]any{"name": "a"}, map[string]any{"name": "B"}}
	if !Named(items) || IndexByName(items, "b") != 1 || IndexByName(items, "c") != -1 {
		t.Error("named items")
	}
	if Named([]any{map[string]any{"name": ""}}) || Named([]any{"x"}) {
		t.Error("unnamed items count as named")
	}
}
