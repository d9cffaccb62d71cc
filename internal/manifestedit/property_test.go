package manifestedit

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/testkit"
)

// emptyMapping is a line that ends in an empty flow mapping, or one and a comment.
var emptyMapping = regexp.MustCompile(`\{\}(\s+#.*)?$`)

// leaf is a one-line scalar value of an object and its path.
type leaf struct {
	object Object
	path   []Step
}

// leaves are the one-line scalars under mappings of every object of s,
// apart from the object's identity.
func leaves(s *source) []leaf {
	var out []leaf
	var walk func(o Object, n *yaml.Node, at []Step)
	walk = func(o Object, n *yaml.Node, at []Step) {
		if n.Kind != yaml.MappingNode || isAlias(n) {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := append(append([]Step(nil), at...), Step{Key: k.Value})
			switch id := printPath(p); {
			case id == "apiVersion", id == "kind", id == "metadata.name", id == "metadata.namespace", id == "items":
				continue
			}
			if v.Kind == yaml.ScalarNode && v.Line == k.Line && v.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) == 0 && !isNull(v) && !isAlias(v) {
				out = append(out, leaf{o, p})
			}
			walk(o, v, p)
		}
	}
	var objects func(n *yaml.Node)
	objects = func(n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			return
		}
		if scalarAt(n, "kind") == "List" {
			_, items := child(n, Step{Key: "items"})
			for _, item := range items.Content {
				objects(item)
			}
			return
		}
		group, _, _ := strings.Cut(scalarAt(n, "apiVersion"), "/")
		_, meta := child(n, Step{Key: "metadata"})
		walk(Object{Group: group, Kind: scalarAt(n, "kind"), Namespace: "default", Name: scalarAt(meta, "name")}, n, nil)
	}
	for _, d := range s.docs {
		objects(d)
	}
	return out
}

// Every one-line value of every test file, set to a new value, changes
// exactly its own line; taken out, it takes out only its own line (or,
// as a mapping's only key, the mapping becomes empty on its key's line).
// The files are this package's test files and those of the write-back and
// refresh tests.
func TestEveryValueEditChangesOneLine(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/*", "../applier/testdata/writeback/*", "../../cmd/azk/testdata/refreshwrite/*/*"} {
		more, _ := filepath.Glob(pattern)
		files = append(files, more...)
	}
	n := 0
	for _, file := range files {
		if strings.Contains(file, ".golden.") {
			continue
		}
		before, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parse(before)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range leaves(s) {
			n++
			after, skipped, err := Apply(before, []Edit{{Object: l.object, Path: l.path, Value: "new value"}})
			if err != nil || skipped[0] != "" {
				t.Errorf("%s %s: %v %s", file, printPath(l.path), err, skipped[0])
				continue
			}
			if d := testkit.LineDiff(before, after); len(d) != 2 || !strings.HasPrefix(d[0], "-") || !strings.Contains(d[1], "new value") {
				t.Errorf("%s: setting %s: the diff is %q", file, printPath(l.path), d)
			}
			after, skipped, err = Apply(before, []Edit{{Object: l.object, Path: l.path, Remove: true}})
			if err != nil || skipped[0] != "" {
				t.Errorf("%s %s: %v %s", file, printPath(l.path), err, skipped[0])
				continue
			}
			d := testkit.LineDiff(before, after)
			removedOnly := len(d) == 1 && strings.HasPrefix(d[0], "-")
			last := strings.TrimRight(d[len(d)-1], "\r\n")
			plus := 0
			for _, line := range d {
				if strings.HasPrefix(line, "+") {
					plus++
				}
			}
			emptied := plus == 1 && strings.HasPrefix(last, "+") && emptyMapping.MatchString(last)
			sameLine := len(d) == 2 && strings.HasPrefix(d[0], "-") && strings.HasPrefix(d[1], "+") // a flow mapping on one line
			if !removedOnly && !emptied && !sameLine {
				t.Errorf("%s: taking out %s: the diff is %q", file, printPath(l.path), d)
			}
		}
	}
	if n < 80 {
		t.Errorf("only %d values tried", n)
	}
}
