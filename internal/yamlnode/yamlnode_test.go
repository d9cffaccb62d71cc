package yamlnode

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestReadsThroughAliasesAndNulls(t *testing.T) {
	root, err := yaml.Parse("base: &b {name: one, gone: null}\nuse: *b\nlist: [a]\n")
	if err != nil {
		t.Fatal(err)
	}
	n := root.YNode()
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"use", "name"}, "one"},
		{[]string{"base", "name"}, "one"},
		{[]string{"use", "gone"}, ""},
		{[]string{"use", "missing"}, ""},
		{[]string{"list"}, ""},
		{[]string{"list", "x"}, ""},
	} {
		if got := String(n, tc.path...); got != tc.want {
			t.Errorf("String(%v) = %q, want %q", tc.path, got, tc.want)
		}
	}
	k, v := Entry(n, "use")
	if k == nil || k.Value != "use" || v == nil || v.Kind != yaml.MappingNode {
		t.Errorf("Entry(use) = %v, %v: want the key and the mapping the alias names", k, v)
	}
	if !IsNull(Value(Value(n, "use"), "gone")) || IsNull(Value(n, "use")) {
		t.Error("IsNull: an explicit null is null, a mapping is not")
	}
}
