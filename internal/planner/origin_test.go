package planner

import (
	"slices"
	"sort"
	"testing"
)

// The base's body and the manifests' differ where the change under review
// changes them, in the differ's path form: map keys added and removed,
// named list items by name, other items by position, a list of another
// length as a whole.
func TestBaseDiffPaths(t *testing.T) {
	base := map[string]any{
		"location": "westus2",
		"tags":     map[string]any{"env": "dev", "team": "a", "cost.center": "1"},
		"properties": map[string]any{
			"subnets":  []any{map[string]any{"name": "web", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}}, map[string]any{"name": "db"}},
			"prefixes": []any{"10.0.0.0/16"},
			"rules":    []any{map[string]any{"port": 80.0}, map[string]any{"port": 443.0}},
		},
	}
	head := map[string]any{
		"location": "westus2",
		"tags":     map[string]any{"env": "prod", "team": "a", "owner": "x"},
		"properties": map[string]any{
			"subnets":  []any{map[string]any{"name": "web", "properties": map[string]any{"addressPrefix": "10.0.9.0/24"}}},
			"prefixes": []any{"10.0.0.0/16", "10.1.0.0/16"},
			"rules":    []any{map[string]any{"port": 80.0}, map[string]any{"port": 8443.0}},
		},
	}
	d := baseDiff{inBase: true}
	walkDiff("", base, head, &d)
	sort.Strings(d.paths)
	want := []string{
		"properties.prefixes",
		"properties.rules[1].port",
		"properties.subnets[name=db]",
		"properties.subnets[name=web].properties.addressPrefix",
		"tags.env",
		"tags.owner",
		`tags["cost.center"]`,
	}
	if !slices.Equal(d.paths, want) {
		t.Errorf("paths %q, want %q", d.paths, want)
	}
	for path, origin := range map[string]Origin{
		"tags.env":                     OriginChange,
		"TAGS.ENV":                     OriginChange, // a removal names Azure's key case
		"tags.drifted":                 OriginDrift,
		"properties.prefixes":          OriginChange,
		"properties.subnets[name=web]": OriginChange, // around a changed path
		"properties.subnets[name=web].properties.addressPrefix": OriginChange,
		"properties.subnets[name=api]":                          OriginDrift,
		"properties.rules[0].port":                              OriginDrift,
		"location":                                              OriginDrift,
	} {
		if got := d.origin(path); got != origin {
			t.Errorf("origin of %s: %s, want %s", path, got, origin)
		}
	}
	if got := (baseDiff{}).origin("tags.a"); got != OriginChange {
		t.Errorf("a resource new in this change: %s, want change", got)
	}
	if got := (baseDiff{inBase: true, whole: true}).origin("tags.a"); got != OriginDrift {
		t.Errorf("an unchanged object whose base body could not be built: %s, want drift", got)
	}
	if got := (baseDiff{inBase: true, whole: true, differs: true}).origin("tags.a"); got != OriginChange {
		t.Errorf("a changed object whose base body could not be built: %s, want change", got)
	}
}
