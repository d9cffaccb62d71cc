package armjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParsePathRoundTrips(t *testing.T) {
	for in, want := range map[string]Path{
		"tags":                         {{Key: "tags"}},
		"tags.owner":                   {{Key: "tags"}, {Key: "owner"}},
		`tags["cost.center"]`:          {{Key: "tags"}, {Key: "cost.center"}},
		"properties.subnets[name=web]": {{Key: "properties"}, {Key: "subnets"}, {Key: "web", Item: true}},
		"properties.subnets[name=web].properties.routeTable": {{Key: "properties"}, {Key: "subnets"}, {Key: "web", Item: true}, {Key: "properties"}, {Key: "routeTable"}},
	} {
		got, err := ParsePath(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParsePath(%q) = %v, %v; want %v", in, got, err, want)
			continue
		}
		if got.String() != in {
			t.Errorf("%q prints as %q", in, got.String())
		}
	}
	for _, bad := range []string{"", "tags.", ".tags", "tags..x", "a[0]", "a[name=]", `a["x`, "a b", "a[name=x]b"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
}

func TestPathGetSetDelete(t *testing.T) {
	var body map[string]any
	_ = json.Unmarshal([]byte(`{"Tags":{"owner":"a"},"properties":{"subnets":[{"name":"Web","properties":{"x":1}}]}}`), &body)
	mustPath := func(s string) Path {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if v, ok := mustPath("tags.owner").Get(body); !ok || v != "a" {
		t.Errorf("get tags.owner (key in another case): %v %v", v, ok)
	}
	if v, ok := mustPath("properties.subnets[name=web].properties.x").Get(body); !ok || v != 1.0 {
		t.Errorf("get by item name in any case: %v %v", v, ok)
	}
	mustPath("tags.owner").Set(body, "b")
	mustPath("properties.subnets[name=db].properties.y").Set(body, 2.0)
	mustPath("properties.subnets[name=web]").Delete(body)
	mustPath("sku.name").Set(body, "S1")
	want := `{"Tags":{"owner":"b"},"properties":{"subnets":[{"name":"db","properties":{"y":2}}]},"sku":{"name":"S1"}}`
	if got, _ := json.Marshal(body); string(got) != want {
		t.Errorf("after set and delete:\n%s\nwant\n%s", got, want)
	}
}
