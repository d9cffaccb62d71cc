package loader

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
)

// Bounds on one YAML document, so that hostile input is an error rather than
// exhausted memory. A manifest the API server would accept is far inside them.
const (
	// MaxDocumentBytes is the Kubernetes API server's limit on a request body.
	MaxDocumentBytes = 3 << 20
	// MaxDepth bounds nesting of mappings and sequences; ASO specs nest a few dozen levels at most.
	MaxDepth = 100
	// MaxExpandedNodes bounds what aliases may expand a document to, beyond
	// ten times its own nodes ("billion laughs" is a few hundred bytes).
	MaxExpandedNodes = 100_000
	// MaxFileBytes bounds one input file, and standard input: room for
	// thousands of manifests, checked before the file is read.
	MaxFileBytes = 64 << 20
)

// structure checks one decoded document against the bounds and for mapping
// keys set twice, returning every problem. A document that breaks a bound is
// unusable (ok is false); one with duplicate keys is still read, so that its
// other errors are reported too.
func structure(file string, n *yaml.Node) (problems diag.List, ok bool) {
	literal := countNodes(n, 1)
	w := &structureWalk{file: file, expanded: map[*yaml.Node]int{}, onPath: map[*yaml.Node]bool{},
		literal: literal, limit: max(MaxExpandedNodes, 10*literal)}
	w.walk(n, "", 1)
	if w.fatal != nil {
		return diag.List{w.fatal}, false
	}
	return w.duplicates, true
}

// countNodes is the number of nodes written in the document, aliases
// counted once each, to the depth the walk reports as too deep.
func countNodes(n *yaml.Node, depth int) int {
	if n == nil || depth > MaxDepth+1 {
		return 0
	}
	count := 1
	for _, c := range n.Content {
		count += countNodes(c, depth+1)
	}
	return count
}

type structureWalk struct {
	file string
	// expanded is each visited anchored node's size with aliases expanded,
	// so that a node many aliases point to is counted in one pass; onPath
	// holds the anchored nodes being walked, for aliases that loop. Only
	// anchored nodes are kept: aliases point to nothing else.
	expanded map[*yaml.Node]int
	onPath   map[*yaml.Node]bool
	literal  int // nodes written in the document
	// limit is what aliases may expand the document to: MaxExpandedNodes,
	// or ten times its own nodes when that is more.
	limit      int
	total      int // nodes with aliases expanded, up to the limit
	fatal      *diag.Diagnostic
	duplicates diag.List
}

// walk returns n's expanded size; path is n's field path for messages.
func (w *structureWalk) walk(n *yaml.Node, path string, depth int) int {
	if w.fatal != nil || n == nil {
		return 0
	}
	if depth > MaxDepth {
		if len(path) > 60 {
			path = path[:60] + "..."
		}
		w.fatal = diag.Errorf(diag.Source{File: w.file, Line: n.Line}, "", path, "nested more than %d levels deep: refusing the document", MaxDepth)
		return 0
	}
	if n.Kind == yaml.AliasNode {
		if w.onPath[n.Alias] {
			w.fatal = diag.Errorf(diag.Source{File: w.file, Line: n.Line}, "", path, "alias *%s refers to a node that contains it: refusing the document", n.Value)
			return 0
		}
		size, seen := w.expanded[n.Alias]
		if !seen {
			size = w.walk(n.Alias, path, depth)
		}
		w.add(n, path, size)
		return size
	}
	anchored := n.Anchor != ""
	if anchored {
		if size, seen := w.expanded[n]; seen {
			return size
		}
		w.onPath[n] = true
		defer delete(w.onPath, n)
	}
	w.add(n, path, 1)
	size := 1
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			childPath := joinPath(path, key.Value)
			if key.Kind == yaml.ScalarNode && key.Value != "<<" {
				if line, dup := first[key.Value]; dup {
					w.duplicates.Add(diag.Errorf(diag.Source{File: w.file, Line: key.Line}, "", childPath,
						"key %q is set twice (first on line %d)", key.Value, line))
				} else {
					first[key.Value] = key.Line
				}
			}
			size = saturating(size, w.walk(key, childPath, depth+1))
			size = saturating(size, w.walk(value, childPath, depth+1))
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, c := range n.Content {
			size = saturating(size, w.walk(c, fmt.Sprintf("%s[%d]", path, i), depth+1))
		}
	}
	if anchored {
		w.expanded[n] = size
	}
	return size
}

// add counts size more expanded nodes, and stops the walk at the node
// that takes them past the limit.
func (w *structureWalk) add(n *yaml.Node, path string, size int) {
	w.total = saturating(w.total, size)
	if w.total > w.limit && w.fatal == nil {
		w.fatal = diag.Errorf(diag.Source{File: w.file, Line: n.Line}, "", path,
			"YAML aliases expand this document to more than %d nodes (it has %d): refusing it", w.limit, w.literal)
	}
}

// saturating adds sizes without overflowing: nested aliases grow exponentially.
func saturating(a, b int) int { return min(a+b, 1<<50) }

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	if strings.ContainsAny(key, ".[]") {
		return path + "[" + fmt.Sprintf("%q", key) + "]"
	}
	return path + "." + key
}

// outOfBounds is the first problem that makes a document of data unusable
// (size, depth, aliases), or nil. Data that is not YAML is left to its reader.
func outOfBounds(file string, data []byte) *diag.Diagnostic {
	var diags diag.List
	for _, run := range withinBounds(file, splitDocuments(data), &diags) {
		for _, doc := range run {
			nodes, _ := decodeDocuments(data[doc.start:doc.end])
			for _, n := range nodes {
				shiftLines(n, doc.line-1)
				if problems, ok := structure(file, n); !ok {
					return problems[0]
				}
			}
		}
	}
	if len(diags) > 0 {
		return diags[0]
	}
	return nil
}
