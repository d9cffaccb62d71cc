package manifestedit

import (
	"testing"
)

var rg = Object{Group: "resources.azure.com", Kind: "ResourceGroup", Namespace: "default", Name: "rg"}

const rgHead = "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\n"

// Edits at the edges of YAML's layout: each gives exactly the text wanted.
func TestEditsAtTheEdges(t *testing.T) {
	for _, c := range []struct {
		name, in string
		edit     Edit
		want     string
	}{
		{
			name: "no line break at the end",
			in:   rgHead + "spec:\n  location: westus2",
			edit: Edit{Object: rg, Path: path("spec", "tags"), Value: map[string]any{"a": "b"}},
			want: rgHead + "spec:\n  location: westus2\n  tags:\n    a: b",
		},
		{
			name: "an empty value gets a mapping",
			in:   rgHead + "  annotations:   # none yet\nspec:\n  location: westus2\n",
			edit: Edit{Object: rg, Path: path("metadata", "annotations", "x"), Value: "z"},
			want: rgHead + "  annotations:\n    x: z   # none yet\nspec:\n  location: westus2\n",
		},
		{
			name: "a block mapping becomes a scalar",
			in:   rgHead + "spec:\n  location: westus2\n  tags:\n    a: b\n  managedBy: x\n",
			edit: Edit{Object: rg, Path: path("spec", "tags"), Value: "none"},
			want: rgHead + "spec:\n  location: westus2\n  tags: none\n  managedBy: x\n",
		},
		{
			name: "the first key of a list item is taken out",
			in:   rgHead + "spec:\n  items:\n  - name: a   # first\n    size: 1\n  - name: b\n",
			edit: Edit{Object: rg, Path: []Step{{Key: "spec"}, {Key: "items"}, {Key: "a", ItemField: "name"}, {Key: "name"}}, Remove: true},
			want: rgHead + "spec:\n  items:\n  - size: 1\n  - name: b\n",
		},
		{
			name: "a named item is added with its name first",
			in:   rgHead + "spec:\n  subnets:\n    - name: a\n      prefix: 10.0.0.0/24\n",
			edit: Edit{Object: rg, Path: []Step{{Key: "spec"}, {Key: "subnets"}, {Key: "b", ItemField: "name"}}, Value: map[string]any{"prefix": "10.0.1.0/24", "name": "b"}},
			want: rgHead + "spec:\n  subnets:\n    - name: a\n      prefix: 10.0.0.0/24\n    - name: b\n      prefix: 10.0.1.0/24\n",
		},
		{
			name: "a new item goes before the first where it belongs",
			in:   rgHead + "spec:\n  servers:\n  - 10.0.0.5 # second\n",
			edit: Edit{Object: rg, Path: path("spec", "servers"), Value: []any{"10.0.0.4", "10.0.0.5"}},
			want: rgHead + "spec:\n  servers:\n  - 10.0.0.4\n  - 10.0.0.5 # second\n",
		},
		{
			name: "a list item removed with its comment, the others kept",
			in:   rgHead + "spec:\n  servers:\n  - 10.0.0.4 # first\n  # about the second\n  - 10.0.0.5 # second\n  - 10.0.0.6 # third\n",
			edit: Edit{Object: rg, Path: path("spec", "servers"), Value: []any{"10.0.0.4", "10.0.0.6"}},
			want: rgHead + "spec:\n  servers:\n  - 10.0.0.4 # first\n  # about the second\n  - 10.0.0.6 # third\n",
		},
		{
			name: "a value that must be quoted is",
			in:   rgHead + "spec:\n  tags:\n    cost: 42x\n",
			edit: Edit{Object: rg, Path: path("spec", "tags", "cost"), Value: "42"},
			want: rgHead + "spec:\n  tags:\n    cost: \"42\"\n",
		},
		{
			name: "a string with a comma in a flow list",
			in:   rgHead + "spec:\n  tags: {a: b}\n",
			edit: Edit{Object: rg, Path: path("spec", "tags", "c"), Value: "d, e"},
			want: rgHead + "spec:\n  tags: {a: b, c: \"d, e\"}\n",
		},
		{
			name: "the last key of a flow mapping taken out",
			in:   rgHead + "spec:\n  tags: {a: b, c: d}   # two\n",
			edit: Edit{Object: rg, Path: path("spec", "tags", "c"), Remove: true},
			want: rgHead + "spec:\n  tags: {a: b}   # two\n",
		},
		{
			name: "the only key taken out leaves an empty mapping",
			in:   rgHead + "  annotations:\n    a: b\nspec:\n  location: westus2\n",
			edit: Edit{Object: rg, Path: path("metadata", "annotations", "a"), Remove: true},
			want: rgHead + "  annotations: {}\nspec:\n  location: westus2\n",
		},
		{
			name: "a literal block before the insertion point",
			in:   rgHead + "spec:\n  notes: |\n    one\n\n    two\n\n",
			edit: Edit{Object: rg, Path: path("spec", "location"), Value: "westus2"},
			want: rgHead + "spec:\n  notes: |\n    one\n\n    two\n  location: westus2\n\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, skipped, err := Apply([]byte(c.in), []Edit{c.edit})
			if err != nil {
				t.Fatal(err)
			}
			if skipped[0] != "" {
				t.Fatalf("skipped: %s", skipped[0])
			}
			if string(got) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// What cannot be edited in place is skipped with why, the file untouched.
func TestEditsThatAreSkipped(t *testing.T) {
	in := rgHead + "spec:\n  tags: &shared {team: a}\n  other: *shared\n  location: !!str westus2\n"
	for _, c := range []struct {
		edit Edit
		why  string
	}{
		{Edit{Object: rg, Path: path("spec", "tags", "team"), Value: "b"}, "spec.tags is a YAML alias or anchor, used elsewhere too: edit it yourself"},
		{Edit{Object: rg, Path: path("spec", "other"), Value: "b"}, "spec.other is a YAML alias or anchor, used elsewhere too: edit it yourself"},
		{Edit{Object: rg, Path: path("spec", "location", "x"), Value: "b"}, "spec.location is not a mapping in the manifest"},
		{Edit{Object: rg, Path: path("spec", "location"), Value: "eastus"}, "azk cannot edit it in place (a value with an explicit YAML tag): edit it yourself"},
	} {
		got, skipped, err := Apply([]byte(in), []Edit{c.edit})
		if err != nil {
			t.Fatal(err)
		}
		if skipped[0] != c.why || string(got) != in {
			t.Errorf("%v: skipped %q, want %q; file changed: %v", c.edit.Path, skipped[0], c.why, string(got) != in)
		}
	}
	if _, _, err := Apply([]byte(in), []Edit{{Object: Object{Kind: "ResourceGroup", Name: "gone"}, Path: path("spec"), Value: 1}}); err == nil {
		t.Errorf("an object no longer in the file is no error")
	}
}
