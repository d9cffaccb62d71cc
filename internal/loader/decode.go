package loader

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/yamlnode"
)

// document locates one YAML document in a stream: stream[start:end].
type document struct {
	start, end int
	line       int // 1-based line of stream[start]
}

// splitDocuments cuts a stream at every "---" marker line, so that the
// documents can be decoded on several cores and, because go-yaml cannot
// resume after a syntax error, so that one malformed document does not hide
// the others.
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
			docs = append(docs, document{start: start, end: pos, line: startLine})
			start, startLine = pos, line
		}
		pos = next
	}
	return append(docs, document{start: start, end: len(data), line: startLine})
}

func isDocumentMarker(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\n' || line[3] == '\r'
}

// parallelChunk is the stream size above which documents are decoded on
// several cores: go-yaml parses about 15 MB/s, so 10,000 resources take a
// third of a second on one core.
const parallelChunk = 256 << 10

// decodeStream parses every document of data and calls visit, in order, with
// each top-level node (a mapping for well-formed manifests) whose lines are
// absolute in data. Syntax errors are reported with their absolute line.
func decodeStream(file string, data []byte, diags *diag.List, visit func(*yaml.Node)) {
	var parts [][]document
	for _, run := range withinBounds(file, splitDocuments(data), diags) {
		parts = append(parts, partition(run, min(runtime.GOMAXPROCS(0), len(data)/parallelChunk+1))...)
	}
	type decoded struct {
		nodes []*yaml.Node
		diags diag.List
	}
	results := make([]decoded, len(parts))
	var wg sync.WaitGroup
	for i, docs := range parts {
		wg.Go(func() {
			results[i].nodes = decodeRun(file, data, docs, &results[i].diags)
		})
	}
	wg.Wait()
	for _, r := range results {
		*diags = append(*diags, r.diags...)
		for _, n := range r.nodes {
			visit(n)
		}
	}
}

// withinBounds reports every document larger than MaxDocumentBytes and returns
// the runs of consecutive documents between them, which are decoded.
func withinBounds(file string, docs []document, diags *diag.List) [][]document {
	var runs [][]document
	start := 0
	for i, d := range docs {
		if d.end-d.start <= MaxDocumentBytes {
			continue
		}
		diags.Add(diag.Errorf(diag.Source{File: file, Line: d.line}, "", "", "the document is %d bytes, more than the %d the Kubernetes API server accepts: refusing it", d.end-d.start, MaxDocumentBytes))
		if i > start {
			runs = append(runs, docs[start:i])
		}
		start = i + 1
	}
	if start < len(docs) {
		runs = append(runs, docs[start:])
	}
	return runs
}

// partition cuts docs into at most n runs of about the same size in bytes.
func partition(docs []document, n int) [][]document {
	if n <= 1 {
		return [][]document{docs}
	}
	total := docs[len(docs)-1].end - docs[0].start
	var parts [][]document
	start, size := 0, 0
	for i, d := range docs {
		size += d.end - d.start
		if size >= total/n && len(parts) < n-1 {
			parts = append(parts, docs[start:i+1])
			start, size = i+1, 0
		}
	}
	if start < len(docs) {
		parts = append(parts, docs[start:])
	}
	return parts
}

// decodeRun decodes consecutive documents of stream. One decoder for the whole run is
// much cheaper than one per document; only a run with a syntax error is
// decoded again, document by document, so that every error and every good
// document is found (go-yaml cannot resume after an error).
func decodeRun(file string, stream []byte, docs []document, diags *diag.List) []*yaml.Node {
	if len(docs) == 0 {
		return nil
	}
	first, last := docs[0], docs[len(docs)-1]
	nodes, err := decodeDocuments(stream[first.start:last.end])
	if err == nil {
		for _, n := range nodes {
			shiftLines(n, first.line-1)
		}
		return nodes
	}
	nodes = nodes[:0]
	for _, doc := range docs {
		docNodes, err := decodeDocuments(stream[doc.start:doc.end])
		for _, n := range docNodes {
			shiftLines(n, doc.line-1)
		}
		nodes = append(nodes, docNodes...)
		if err != nil {
			diags.Add(syntaxError(file, doc.line, err))
		}
	}
	return nodes
}

// decodeDocuments returns the top-level node of every non-empty document in
// data, up to the first syntax error.
func decodeDocuments(data []byte) ([]*yaml.Node, error) {
	var nodes []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nodes, nil
		}
		if err != nil {
			return nodes, err
		}
		if len(n.Content) > 0 && !yamlnode.IsNull(n.Content[0]) { // else empty or comments only
			nodes = append(nodes, n.Content[0])
		}
	}
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

// parserProblems are go-yaml's parser (not scanner) errors. go-yaml prints
// the 0-based line for these and the 1-based line for scanner errors.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntaxError turns a go-yaml error, whose line is relative to the document,
// into a diagnostic at the absolute line; errors without a line point at the
// document's first line.
func syntaxError(file string, docLine int, err error) *diag.Diagnostic {
	msg := err.Error()
	if m := yamlErrorLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserProblems[m[2]] {
			line++
		}
		return diag.Errorf(diag.Source{File: file, Line: docLine + line - 1}, "", "", "malformed YAML: %s", m[2])
	}
	return diag.Errorf(diag.Source{File: file, Line: docLine}, "", "", "malformed YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}
