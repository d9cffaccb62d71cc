package manifestedit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// bom is the UTF-8 byte-order mark; the parser skips it, positions start after it.
var bom = []byte("\ufeff")

// source is one manifest file as read, parsed, with what its own layout
// says about how new text is written into it.
type source struct {
	bom  bool
	text []byte // the file without its byte-order mark
	docs []*yaml.Node
	// lineStarts[i] is the offset of line i+1.
	lineStarts []int
	eol        string // "\r\n" or "\n", as the file's first line ends
	json       bool   // the file is JSON: new text is written as JSON
	indent     int    // the file's indentation step
	// seqIndent: block sequences under a key are indented by indent
	// ("key:\n  - a"), not written at the key's column ("key:\n- a").
	seqIndent bool
}

func parse(data []byte) (*source, error) {
	s := &source{text: data, eol: "\n", indent: 2, seqIndent: true}
	if bytes.HasPrefix(data, bom) {
		s.bom, s.text = true, data[len(bom):]
	}
	s.lineStarts = []int{0}
	for i, c := range s.text {
		if c == '\n' {
			s.lineStarts = append(s.lineStarts, i+1)
		}
	}
	if i := bytes.IndexByte(s.text, '\n'); i > 0 && s.text[i-1] == '\r' {
		s.eol = "\r\n"
	}
	trimmed := bytes.TrimLeft(s.text, " \t\r\n")
	s.json = len(trimmed) > 0 && trimmed[0] == '{'
	dec := yaml.NewDecoder(bytes.NewReader(s.text))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(doc.Content) == 1 {
			s.docs = append(s.docs, doc.Content[0])
		}
	}
	s.learnLayout()
	return s, nil
}

// content is the file as it is, with its byte-order mark.
func (s *source) content() []byte {
	if !s.bom {
		return s.text
	}
	return append(append([]byte(nil), bom...), s.text...)
}

// learnLayout finds the file's indentation step and sequence indentation
// from its first nested block collections; the defaults stay where it has none.
func (s *source) learnLayout() {
	foundIndent, foundSeq := false, false
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if foundIndent && foundSeq {
			return
		}
		if n.Kind == yaml.MappingNode {
			if n.Style&yaml.FlowStyle != 0 {
				if s.json && !foundIndent && len(n.Content) > 0 && n.Content[0].Line > n.Line {
					if step := n.Content[0].Column - 1 - s.lineIndent(n.Line); step > 0 {
						s.indent, foundIndent = step, true
					}
				}
			} else {
				for i := 0; i+1 < len(n.Content); i += 2 {
					k, v := n.Content[i], n.Content[i+1]
					if v.Style&yaml.FlowStyle != 0 || v.Line <= k.Line {
						continue
					}
					switch v.Kind {
					case yaml.MappingNode:
						if !foundIndent && v.Column > k.Column {
							s.indent, foundIndent = v.Column-k.Column, true
						}
					case yaml.SequenceNode:
						if !foundSeq {
							s.seqIndent, foundSeq = v.Column > k.Column, true
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for _, d := range s.docs {
		walk(d)
	}
}

// offset is the byte offset of a node's position (the parser counts
// columns in characters).
func (s *source) offset(n *yaml.Node) int {
	if n.Line < 1 || n.Line > len(s.lineStarts) {
		return len(s.text)
	}
	off := s.lineStarts[n.Line-1]
	for col := 1; col < n.Column && off < len(s.text); col++ {
		_, size := utf8.DecodeRune(s.text[off:])
		off += size
	}
	return off
}

// lineIndent is the number of spaces that start line (1-based).
func (s *source) lineIndent(line int) int {
	off := s.lineStarts[line-1]
	i := off
	for i < len(s.text) && s.text[i] == ' ' {
		i++
	}
	return i - off
}

// lineStart is the offset of the start of the line holding off.
func (s *source) lineStart(off int) int {
	i := bytes.LastIndexByte(s.text[:off], '\n')
	return i + 1
}

// lineEnd is the offset just after the line break of the line holding off
// (the end of the text on the last line).
func (s *source) lineEnd(off int) int {
	i := bytes.IndexByte(s.text[off:], '\n')
	if i < 0 {
		return len(s.text)
	}
	return off + i + 1
}

// textEnd is the offset of the line break of the line holding off.
func (s *source) textEnd(off int) int {
	end := s.lineEnd(off)
	return off + len(bytes.TrimRight(s.text[off:end], "\r\n"))
}

// onlySpaceBefore reports whether off is the first non-blank on its line.
func (s *source) onlySpaceBefore(off int) bool {
	return len(bytes.TrimLeft(s.text[s.lineStart(off):off], " \t")) == 0
}

// contentStart skips a node's anchor and tag, which the parser reports as its position.
func (s *source) contentStart(n *yaml.Node) int {
	off := s.offset(n)
	for off < len(s.text) && (s.text[off] == '&' || s.text[off] == '!') {
		for off < len(s.text) && !isBlank(s.text[off]) {
			off++
		}
		for off < len(s.text) && (s.text[off] == ' ' || s.text[off] == '\t') {
			off++
		}
	}
	return off
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// end is the offset just after a node's last character (a comment after it
// is not part of it).
func (s *source) end(n *yaml.Node, flow bool) (int, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return s.offset(n) + 1 + len(n.Value), nil
	case yaml.ScalarNode:
		return s.scalarEnd(n, flow)
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 {
			return s.flowEnd(s.contentStart(n))
		}
		if len(n.Content) == 0 {
			return s.contentStart(n), nil
		}
		return s.end(n.Content[len(n.Content)-1], false)
	}
	return 0, fmt.Errorf("a YAML node of kind %d", n.Kind)
}

func (s *source) scalarEnd(n *yaml.Node, flow bool) (int, error) {
	start := s.contentStart(n)
	t := s.text
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := start + 1; i < len(t); i++ {
			switch t[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := start + 1; i < len(t); i++ {
			if t[i] == '\'' {
				if i+1 < len(t) && t[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return s.blockScalarEnd(start), nil
	default:
		if n.Value == "" && n.Tag == "!!null" {
			return start, nil // an empty value: nothing written
		}
		i := start
		for i < len(t) && t[i] != '\n' && t[i] != '\r' {
			if (t[i] == '#') && i > start && (t[i-1] == ' ' || t[i-1] == '\t') {
				break
			}
			if flow && (t[i] == ',' || t[i] == ']' || t[i] == '}') {
				break
			}
			if t[i] == ':' && (i+1 == len(t) || isBlank(t[i+1])) {
				break // a key's end
			}
			i++
		}
		for i > start && (t[i-1] == ' ' || t[i-1] == '\t') {
			i--
		}
		if string(t[start:i]) != n.Value {
			return 0, errors.New("a plain value written over several lines")
		}
		return i, nil
	}
	return 0, errors.New("an unterminated quoted value")
}

// blockScalarEnd is the end of the last non-blank line of a literal or
// folded scalar whose header starts at start: its lines are those indented
// at least as its first non-blank line.
func (s *source) blockScalarEnd(start int) int {
	end := s.lineEnd(start)
	last := end
	content := -1
	for pos := end; pos < len(s.text); {
		next := s.lineEnd(pos)
		line := bytes.TrimRight(s.text[pos:next], "\r\n")
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if len(bytes.TrimSpace(line)) == 0 {
			pos = next
			continue
		}
		if content < 0 {
			content = indent
		}
		if indent < content || content == 0 {
			break
		}
		last = pos + len(line)
		pos = next
	}
	if last == end {
		return s.textEnd(start) // header only: an empty value
	}
	return last
}

// flowEnd is the offset after the bracket closing the flow collection
// that opens at start.
func (s *source) flowEnd(start int) (int, error) {
	t := s.text
	depth := 0
	for i := start; i < len(t); i++ {
		switch t[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case '"':
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(t); i++ {
				if t[i] == '\'' {
					if i+1 < len(t) && t[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > start && isBlank(t[i-1]) {
				i = s.lineEnd(i) - 1
			}
		}
	}
	return 0, errors.New("an unclosed flow collection")
}
