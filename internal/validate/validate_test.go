package validate_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/validate"
)

func ptr[T any](v T) *T { return &v }

// kind is a small schema exercising every rule the validator enforces.
var kind = &registry.Kind{Spec: &registry.Field{Type: registry.TypeObject, Fields: []*registry.Field{
	{Name: "count", Type: registry.TypeInteger, Minimum: ptr(1.0), Maximum: ptr(10.0)},
	{Name: "enabled", Type: registry.TypeBoolean},
	{Name: "labels", Type: registry.TypeMap, Values: &registry.Field{Type: registry.TypeString}},
	{Name: "mode", Type: registry.TypeString, Enum: []string{"Fast", "Slow"}},
	{Name: "name", Type: registry.TypeString, Required: true, MinLength: ptr(3), MaxLength: ptr(8), Pattern: "^[a-z]+$"},
	{Name: "ratio", Type: registry.TypeNumber},
	{Name: "rule", Type: registry.TypeObject, OneOf: true, Fields: []*registry.Field{
		{Name: "allow", Type: registry.TypeObject, ARM: []string{}},
		{Name: "deny", Type: registry.TypeObject, ARM: []string{}},
	}},
	{Name: "subnet", Type: registry.TypeObject, Ref: registry.RefResource, Fields: []*registry.Field{
		{Name: "armId", Type: registry.TypeString},
		{Name: "name", Type: registry.TypeString},
	}},
	{Name: "zones", Type: registry.TypeArray, MaxItems: ptr(2), Items: &registry.Field{Type: registry.TypeString}},
}}}

func check(t *testing.T, spec string) ([]validate.Ref, diag.List) {
	t.Helper()
	return checkManifest(t, "in.yaml", "apiVersion: example.azure.com/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n"+spec, kind)
}

// checkManifest checks the spec of one manifest, written at the top of
// file in the default namespace, against k.
func checkManifest(t *testing.T, file, manifest string, k *registry.Kind) ([]validate.Ref, diag.List) {
	t.Helper()
	node, err := yaml.Parse(manifest)
	if err != nil {
		t.Fatal(err)
	}
	obj := &loader.Object{Source: diag.Source{File: file, Line: 1}, APIVersion: node.GetApiVersion(), Kind: node.GetKind(), Namespace: "default", Name: node.GetName(), Node: node}
	return validate.Spec(obj, k)
}

// registryKind is a kind of the registry.
func registryKind(t *testing.T, group, version, name string) *registry.Kind {
	t.Helper()
	k, ok := registry.Default().Lookup(group, version, name)
	if !ok {
		t.Fatalf("%s not in the registry", name)
	}
	return k
}

func TestValidSpec(t *testing.T) {
	refs, diags := check(t, `  name: abc
  count: 3
  enabled: true
  ratio: 2
  mode: Fast
  labels: {a: b}
  zones: ["1", "2"]
  rule:
    allow: {}
  subnet:
    name: s1
`)
	if len(diags) > 0 {
		t.Fatalf("unexpected: %v", diags.Err())
	}
	if len(refs) != 1 || refs[0].Path != "spec.subnet" || refs[0].Line != 15 {
		t.Fatalf("refs = %+v", refs)
	}
}

func TestDateIsAString(t *testing.T) {
	// Kubernetes keeps an unquoted date as the string written.
	if _, diags := check(t, "  name: abc\n  mode: Fast\n  labels: {day: 2024-11-20}\n"); len(diags) > 0 {
		t.Fatal(diags.Err())
	}
}

func TestEveryRuleReportsFieldAndLine(t *testing.T) {
	cases := []struct {
		spec, field, want string
		line              int
	}{
		{"  count: 3\n", "spec.name", "required field is missing", 5},
		{"  name: ab\n", "spec.name", "has 2 characters, at least 3 required", 6},
		{"  name: abcdefghij\n", "spec.name", "at most 8 allowed", 6},
		{"  name: ABC\n", "spec.name", "does not match pattern", 6},
		{"  name: abc\n  count: 0\n", "spec.count", "less than the minimum 1", 7},
		{"  name: abc\n  count: 11\n", "spec.count", "greater than the maximum 10", 7},
		{"  name: abc\n  count: \"3\"\n", "spec.count", "must be an integer", 7},
		{"  name: abc\n  enabled: yes\n", "spec.enabled", "must be true or false", 7},
		{"  name: abc\n  ratio: fast\n", "spec.ratio", "must be a number", 7},
		{"  name: 123\n", "spec.name", "must be a string, got integer 123 (quote it)", 6},
		{"  name: abc\n  mode: Medium\n", "spec.mode", `"Medium" is not one of: Fast, Slow`, 7},
		{"  name: abc\n  zones: [a, b, c]\n", "spec.zones", "has 3 items, at most 2 allowed", 7},
		{"  name: abc\n  zones: a\n", "spec.zones", "must be a list, got string", 7},
		{"  name: abc\n  labels: [a]\n", "spec.labels", "must be a map, got a list", 7},
		{"  name: abc\n  rule:\n    allow: {}\n    deny: {}\n", "spec.rule", "set exactly one of allow, deny", 7},
		{"  name: abc\n  Mode: Fast\n", "spec.Mode", `unknown field "Mode" (did you mean "mode"?)`, 7},
	}
	for _, tc := range cases {
		_, diags := check(t, tc.spec)
		found := false
		for _, d := range diags {
			if strings.Contains(d.Message, tc.want) {
				found = true
				if d.Field != tc.field || d.Source.Line != tc.line || d.Source.File != "in.yaml" || d.Resource != "example.azure.com/Thing/default/t" {
					t.Errorf("%q: got %s %s %q", tc.want, d.Source, d.Resource, d.Field)
				}
			}
		}
		if !found {
			t.Errorf("no %q for %q; got %v", tc.want, tc.spec, diags.Err())
		}
	}
}
