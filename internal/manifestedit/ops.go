package manifestedit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// element is one entry of a mapping or item of a list, as text: from its
// first character (the key, or the item) to the end of its value.
type element struct {
	start, end int
	line       int // the line it starts on
}

func (e *editor) elements(n *yaml.Node, sl slot) ([]element, error) {
	flow := sl.flow || n.Style&yaml.FlowStyle != 0
	var out []element
	step := 1
	if n.Kind == yaml.MappingNode {
		step = 2
	}
	for i := 0; i+step-1 < len(n.Content); i += step {
		first, last := n.Content[i], n.Content[i+step-1]
		end, err := e.end(last, flow)
		if err != nil {
			return nil, err
		}
		if isNull(last) && step == 2 {
			end = e.colonEnd(first, flow)
		}
		out = append(out, element{start: e.offset(first), end: end, line: first.Line})
	}
	return out, nil
}

// colonEnd is the offset after the colon that follows key.
func (e *editor) colonEnd(key *yaml.Node, flow bool) int {
	end, err := e.end(key, flow)
	if err != nil {
		return e.offset(key)
	}
	for end < len(e.text) && (e.text[end] == ' ' || e.text[end] == '\t') {
		end++
	}
	if end < len(e.text) && e.text[end] == ':' {
		end++
	}
	return end
}

// removeElements takes out the entries or items of n at the indices.
func (e *editor) removeElements(n *yaml.Node, sl slot, indices []int) error {
	if len(indices) == 0 {
		return nil
	}
	els, err := e.elements(n, sl)
	if err != nil {
		return err
	}
	if len(indices) == len(els) {
		var empty any = map[string]any{}
		if n.Kind == yaml.SequenceNode {
			empty = []any{}
		}
		return e.replaceWhole(n, sl, empty)
	}
	removed := make([]bool, len(els))
	for _, i := range indices {
		removed[i] = true
	}
	if sl.flow || n.Style&yaml.FlowStyle != 0 {
		// A run of removed elements goes with the separator after it, or,
		// at the end, with the one before it.
		for i := 0; i < len(els); i++ {
			if !removed[i] {
				continue
			}
			j := i
			for j+1 < len(els) && removed[j+1] {
				j++
			}
			if j+1 < len(els) {
				e.add(els[i].start, els[j+1].start, "")
			} else {
				e.add(els[i-1].end, els[j].end, "")
			}
			i = j
		}
		return nil
	}
	for i := 0; i < len(els); i++ {
		if !removed[i] {
			continue
		}
		start := els[i].start
		if n.Kind == yaml.SequenceNode {
			dash := strings.LastIndexByte(string(e.text[e.lineStart(start):start]), '-')
			if dash < 0 || !e.onlySpaceBefore(e.lineStart(start)+dash) {
				return errors.New("a list item inside a list item")
			}
			start = e.lineStart(start) + dash
		}
		if e.onlySpaceBefore(start) {
			e.add(e.lineStart(start), e.lineEnd(els[i].end), "")
			continue
		}
		// The first key of a list item ("- name: a"): the next kept
		// entry takes its place after the dash.
		j := i + 1
		for j < len(els) && removed[j] {
			j++
		}
		e.add(start, els[j].start, "")
		i = j - 1
	}
	return nil
}

// insertEntry adds key: value at the end of mapping n, which has entries.
func (e *editor) insertEntry(n *yaml.Node, key string, value any) error {
	first, lastValue := n.Content[0], n.Content[len(n.Content)-1]
	col := first.Column - 1
	if n.Style&yaml.FlowStyle != 0 || e.json {
		end, err := e.end(lastValue, true)
		if err != nil {
			return err
		}
		if isNull(lastValue) {
			end = e.colonEnd(n.Content[len(n.Content)-2], true)
		}
		if first.Line == n.Line {
			e.add(end, end, ", "+e.flowKey(key)+": "+e.flow(value, -1))
		} else {
			e.add(end, end, ","+e.eol+spaces(col)+e.flowKey(key)+": "+e.flow(value, col))
		}
		return nil
	}
	end, err := e.end(lastValue, false)
	if err != nil {
		return err
	}
	if isNull(lastValue) {
		end = e.colonEnd(n.Content[len(n.Content)-2], false)
	}
	e.insertLine(e.lineEnd(end), spaces(col)+e.key(key)+":"+e.afterKey(value, col))
	return nil
}

// insertLine inserts a line of text at pos, the start of a line (or the
// end of a file whose last line has no line break).
func (e *editor) insertLine(pos int, text string) {
	if pos == len(e.text) && pos > 0 && e.text[pos-1] != '\n' {
		text = e.eol + text
	} else {
		text += e.eol
	}
	e.add(pos, pos, text)
}

// insertItems inserts values into list n, which has items, after the item
// at index after (-1: before the first).
func (e *editor) insertItems(n *yaml.Node, after int, values []any) error {
	items := n.Content
	if n.Style&yaml.FlowStyle != 0 || e.json {
		multiline := items[0].Line != n.Line || len(items) > 1 && items[1].Line != items[0].Line
		col := items[0].Column - 1
		sep := ", "
		if multiline {
			sep = "," + e.eol + spaces(col)
		}
		var texts []string
		for _, v := range values {
			if multiline {
				texts = append(texts, e.flow(v, col))
			} else {
				texts = append(texts, e.flow(v, -1))
			}
		}
		text := strings.Join(texts, sep)
		if after < 0 {
			at := e.offset(items[0])
			e.add(at, at, text+sep)
			return nil
		}
		end, err := e.end(items[after], true)
		if err != nil {
			return err
		}
		e.add(end, end, sep+text)
		return nil
	}
	dash := n.Column - 1 // the parser places a block list at its first dash
	pos := e.lineStart(e.offset(n))
	if after >= 0 {
		end, err := e.end(items[after], false)
		if err != nil {
			return err
		}
		pos = e.lineEnd(end)
	}
	for _, v := range values {
		e.insertLine(pos, spaces(dash)+"-"+e.afterDash(v, dash))
	}
	return nil
}

// replaceWhole writes value in place of node n, in the style n's place
// allows: flow where n is flow, a block under its key or dash otherwise.
func (e *editor) replaceWhole(n *yaml.Node, sl slot, value any) error {
	flowCtx := sl.flow || e.json
	start := e.offset(n)
	end, err := e.end(n, flowCtx)
	if err != nil {
		return err
	}
	if isNull(n) && sl.key != nil && n.Value == "" {
		start = e.colonEnd(sl.key, flowCtx)
		end = start
	}
	col := e.lineIndent(n.Line)
	if sl.key != nil {
		col = sl.key.Column - 1
	}
	switch {
	case flowCtx:
		text := e.flow(value, -1)
		if n.Line != 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) > 0 && n.Content[0].Line != n.Line {
			text = e.flow(value, e.lineIndent(n.Line))
		}
		if start == end && sl.key != nil {
			text = " " + text
		}
		e.add(start, end, text)
	case n.Style&yaml.FlowStyle != 0 && isCollection(value):
		e.add(start, end, e.flow(value, -1))
	case sl.key != nil:
		e.add(e.colonEnd(sl.key, false), end, e.afterKey(value, col))
	default: // a block list item
		text := e.afterDash(value, e.offset(n)-e.lineStart(e.offset(n))-2)
		e.add(start, end, strings.TrimPrefix(text, " "))
	}
	return nil
}

func isCollection(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// scalarOver is the text of a scalar value written over scalar n, in n's
// quoting style where the value allows it.
func (e *editor) scalarOver(n *yaml.Node, value any, flow bool) (string, error) {
	str, isString := value.(string)
	if isString && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && !e.json {
		if text, ok := e.literal(n, str); ok {
			return text, nil
		}
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return "", fmt.Errorf("a value with an explicit YAML tag")
	}
	return e.scalar(value, n.Style, flow || e.json), nil
}

// literal writes a string as a literal block scalar at the indentation of
// the one it replaces; false where a literal block cannot hold it.
func (e *editor) literal(n *yaml.Node, str string) (string, bool) {
	if str == "" || strings.HasPrefix(str, " ") || strings.ContainsRune(str, '\r') {
		return "", false
	}
	start := e.offset(n)
	next := e.lineEnd(start)
	indent := e.lineIndent(n.Line) + e.indent
	if next < len(e.text) {
		line := e.text[next:e.lineEnd(next)]
		if trimmed := strings.TrimLeft(string(line), " "); strings.TrimSpace(trimmed) != "" {
			indent = len(line) - len(trimmed)
		}
	}
	header := "|-"
	body := str
	switch {
	case strings.HasSuffix(str, "\n\n"):
		return "", false
	case strings.HasSuffix(str, "\n"):
		header, body = "|", strings.TrimSuffix(str, "\n")
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = spaces(indent) + l
		}
	}
	return header + e.eol + strings.Join(lines, e.eol), true
}

func spaces(n int) string { return strings.Repeat(" ", max(n, 0)) }

// key is a mapping key as YAML writes it.
func (e *editor) key(k string) string { return e.scalar(k, 0, false) }

func (e *editor) flowKey(k string) string {
	if e.json {
		return jsonText(k)
	}
	return e.scalar(k, 0, true)
}

// afterKey is what follows "key:" for value, whose key is at column col.
func (e *editor) afterKey(v any, col int) string {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return " {}"
		}
		return e.eol + e.blockMap(t, col+e.indent)
	case []any:
		if len(t) == 0 {
			return " []"
		}
		seqCol := col
		if e.seqIndent {
			seqCol += e.indent
		}
		return e.eol + e.blockSeq(t, seqCol)
	}
	return " " + e.scalar(v, 0, false)
}

// afterDash is what follows "-" for a list item whose dash is at column dash.
func (e *editor) afterDash(v any, dash int) string {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return " {}"
		}
		return " " + strings.TrimPrefix(e.blockMap(t, dash+2), spaces(dash+2))
	case []any:
		return " " + e.flow(t, -1)
	}
	return " " + e.scalar(v, 0, false)
}

func (e *editor) blockMap(m map[string]any, col int) string {
	var lines []string
	for _, k := range keysOf(m) {
		lines = append(lines, spaces(col)+e.key(k)+":"+e.afterKey(m[k], col))
	}
	return strings.Join(lines, e.eol)
}

func (e *editor) blockSeq(l []any, col int) string {
	var lines []string
	for _, v := range l {
		lines = append(lines, spaces(col)+"-"+e.afterDash(v, col))
	}
	return strings.Join(lines, e.eol)
}

// flow is v in flow style (JSON in a JSON file): on one line, or with col
// >= 0 in a JSON file, indented as the file is, continuing at column col.
func (e *editor) flow(v any, col int) string {
	if e.json {
		if col < 0 || !isCollection(v) {
			return jsonText(v)
		}
		return strings.ReplaceAll(jsonIndented(v, spaces(col), spaces(e.indent)), "\n", e.eol)
	}
	switch t := v.(type) {
	case map[string]any:
		var parts []string
		for _, k := range keysOf(t) {
			parts = append(parts, e.scalar(k, 0, true)+": "+e.flow(t[k], -1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = e.flow(x, -1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return e.scalar(v, 0, true)
}

// scalar is a scalar value as YAML (JSON in a JSON file) writes it, in
// style where the value allows: a string keeps double or single quotes.
func (e *editor) scalar(v any, style yaml.Style, flow bool) string {
	if e.json {
		return jsonText(v)
	}
	str, isString := v.(string)
	if isString {
		switch {
		case style&yaml.DoubleQuotedStyle != 0, strings.ContainsAny(str, "\r\n"):
			return jsonText(str)
		case style&yaml.SingleQuotedStyle != 0 && printable(str):
			return "'" + strings.ReplaceAll(str, "'", "''") + "'"
		}
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return jsonText(v)
	}
	out := strings.TrimSuffix(string(data), "\n")
	if isString && (strings.Contains(out, "\n") || flow && strings.ContainsAny(out, ",[]{}") && !strings.HasPrefix(out, "\"") && !strings.HasPrefix(out, "'")) {
		return jsonText(str)
	}
	return out
}

func printable(s string) bool {
	return !slices.ContainsFunc([]rune(s), func(r rune) bool { return r < 0x20 || r == 0x7f })
}
