package loader

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
)

// document is one YAML document of a stream, with its first line in the stream.
type document struct {
	data []byte
	line int // 1-based line of data[0] in the whole stream
}

// splitDocuments cuts a stream at every "---" marker line. go-yaml cannot
// resume after a syntax error, so each document gets its own decoder and one
// malformed document does not hide the problems of the others.
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine, line := 0, 1, 1
	for pos := 0; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		if pos > start && isDocumentMarker(data[pos:next]) {
			docs = append(docs, document{data: data[start:pos], line: startLine})
			start, startLine = pos, line
		}
		pos = next
	}
	return append(docs, document{data: data[start:], line: startLine})
}

func isDocumentMarker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\n' || line[3] == '\r'
}

// decodeStream parses every document of data and calls visit with each
// top-level node (a mapping for well-formed manifests) whose lines are
// absolute in data. Syntax errors are reported with their absolute line.
func decodeStream(file string, data []byte, diags *diag.List, visit func(*yaml.Node)) {
	for _, doc := range splitDocuments(data) {
		dec := yaml.NewDecoder(bytes.NewReader(doc.data))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				diags.Add(syntaxError(file, doc.line, err))
				break
			}
			if len(n.Content) == 0 || isNull(n.Content[0]) {
				continue // empty or comments-only document
			}
			shiftLines(n.Content[0], doc.line-1)
			visit(n.Content[0])
		}
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

var yamlErrorLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a go-yaml error, whose line is relative to the document,
// into a diagnostic at the absolute line; errors without a line point at the
// document's first line.
func syntaxError(file string, docLine int, err error) *diag.Diagnostic {
	msg := err.Error()
	if m := yamlErrorLine.FindStringSubmatch(msg); m != nil {
		rel, _ := strconv.Atoi(m[1])
		return diag.Errorf(diag.Source{File: file, Line: docLine + rel - 1}, "", "", "malformed YAML: %s", m[2])
	}
	return diag.Errorf(diag.Source{File: file, Line: docLine}, "", "", "malformed YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// mapEntry returns the key and value nodes of key in mapping node n, or nils.
func mapEntry(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// mapValue returns the value of key in mapping node n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(n, key)
	return v
}

// stringField returns the scalar string at key, "" when absent or not a string.
func stringField(n *yaml.Node, key string) string {
	v := mapValue(n, key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return v.Value
}
