package planner

import (
	"reflect"
	"testing"
)

func TestSetAtFollowsItemsByPosition(t *testing.T) {
	body := map[string]any{"properties": map[string]any{"rules": []any{map[string]any{"port": 1.0}, map[string]any{"port": 2.0}}}}
	if !setAt(body, "properties.rules[1].protocol", "Tcp") || setAt(body, "properties.rules[5].protocol", "Tcp") {
		t.Fatal("setAt")
	}
	if got := body["properties"].(map[string]any)["rules"].([]any)[1].(map[string]any)["protocol"]; got != "Tcp" {
		t.Errorf("protocol %v", got)
	}
	removeAt(body, "properties.rules[1].protocol")
	if _, ok := body["properties"].(map[string]any)["rules"].([]any)[1].(map[string]any)["protocol"]; ok {
		t.Errorf("removeAt left the value")
	}
	if wholeList("properties.rules[2].port") != "properties.rules" || wholeList("properties.subnets[name=a].x") != "properties.subnets[name=a].x" {
		t.Errorf("wholeList")
	}
	if got := outermost([]string{"a.b", "a", "c[name=x].d", "c[name=x]", "a"}); !reflect.DeepEqual(got, []string{"a", "c[name=x]"}) {
		t.Errorf("outermost %v", got)
	}
}
