package armcore

import (
	"encoding/json"
	"testing"
)

func TestSpliceJSON(t *testing.T) {
	for _, tc := range []struct {
		body   string
		path   []string
		create bool
		want   string // "" for not ok
	}{
		{`{"properties":{"n":1}}`, []string{"properties", "subnets"}, false, `{"properties":{"subnets":[1],"n":1}}`},
		{`{ "properties" : { } , "x":true}`, []string{"properties", "subnets"}, false, `{ "properties" : {"subnets":[1] } , "x":true}`},
		{`{"a":"}\"{","properties":{"s":"x\\","subnets":[9]},"z":null}`, []string{"properties", "subnets"}, false, `{"a":"}\"{","properties":{"s":"x\\","subnets":[1]},"z":null}`},
		{`{"properties":{"v":[{"p":{}}]}}`, []string{"properties", "vmp", "ext", "list"}, false, `{"properties":{"v":[{"p":{}}]}}`},
		{`{"properties":{"v":2.5e3}}`, []string{"properties", "vmp", "ext", "list"}, true, `{"properties":{"vmp":{"ext":{"list":[1]}},"v":2.5e3}}`},
		{`{}`, []string{"properties", "subnets"}, false, `{}`},
		{`{}`, []string{"properties", "subnets"}, true, `{"properties":{"subnets":[1]}}`},
		{`{"properties":"text"}`, []string{"properties", "subnets"}, true, ""},
		{`{"properties":{"a":1`, []string{"properties", "subnets"}, true, ""},
		{`[1]`, []string{"properties"}, true, ""},
	} {
		got, ok := spliceJSON([]byte(tc.body), tc.path, []byte("[1]"), tc.create)
		if (tc.want == "") != !ok || (ok && string(got) != tc.want) {
			t.Errorf("spliceJSON(%s, %v, create=%v) = %s, %v; want %q", tc.body, tc.path, tc.create, got, ok, tc.want)
		}
		if ok && !json.Valid(got) {
			t.Errorf("spliceJSON(%s) is not JSON: %s", tc.body, got)
		}
	}
}
