package corpusgen

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// goNode is one line of an ASO structure.txt outline: a Go field (or a
// top-level declaration) with its Go type and the lines nested under it.
type goNode struct {
	Name string
	Type goType
	// Line is the 1-based line in File, for error messages.
	File string
	Line int
	// Fields are the properties of the innermost object of Type (for
	// "Object (n properties)[]" the element's properties).
	Fields []*goNode
	// Enum holds the quoted values listed under an Enum type.
	Enum []string
}

// goType is a parsed structure.txt type such as "*Object (3 properties)",
// "Validated<string[]> (1 rule)", "map[string]Object (0 properties)" or
// "*genruntime.ResourceReference".
type goType struct {
	Kind goTypeKind
	// Named is the type name for goNamed ("string", "genruntime.ResourceReference", ...).
	Named string
	// Elem is the element type of arrays and maps.
	Elem *goType
}

type goTypeKind int

const (
	goNamed goTypeKind = iota
	goObject
	goEnum
	goArray
	goMap
)

// parseGoType reads the type part of an outline line.
func parseGoType(s string) goType {
	s = strings.TrimPrefix(strings.TrimSpace(s), "*")
	if strings.HasSuffix(s, "[]") {
		elem := parseGoType(strings.TrimSuffix(s, "[]"))
		return goType{Kind: goArray, Elem: &elem}
	}
	if strings.HasPrefix(s, "Validated<") {
		// Validated<T> (n rules): the rules are listed as child lines.
		end := strings.LastIndex(s, ">")
		return parseGoType(s[len("Validated<"):end])
	}
	if strings.HasPrefix(s, "map[string]") {
		elem := parseGoType(strings.TrimPrefix(s, "map[string]"))
		return goType{Kind: goMap, Elem: &elem}
	}
	switch {
	case strings.HasPrefix(s, "Object ("), s == "Object":
		return goType{Kind: goObject}
	case strings.HasPrefix(s, "Enum ("):
		return goType{Kind: goEnum}
	}
	return goType{Kind: goNamed, Named: s}
}

// leaf returns the innermost non-array, non-map type.
func (t goType) leaf() goType {
	for t.Kind == goArray || t.Kind == goMap {
		t = *t.Elem
	}
	return t
}

// field returns the property with exactly this Go name, or nil.
func (n *goNode) field(name string) *goNode {
	if n == nil {
		return nil
	}
	for _, f := range n.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// fieldNorm returns the property whose normalized name is norm, or nil.
func (n *goNode) fieldNorm(norm string) *goNode {
	if n == nil {
		return nil
	}
	for _, f := range n.Fields {
		if normalize(f.Name) == norm {
			return f
		}
	}
	return nil
}

// outline is one parsed structure.txt: its top-level declarations by name.
type outline struct {
	File  string
	Decls map[string]*goNode
}

// treePrefixWidth is the width in runes of one indentation step ("│   ", "├── ", "└── ", "    ").
const treePrefixWidth = 4

// parseOutline reads a structure.txt file.
func parseOutline(path string) (*outline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &outline{File: path, Decls: map[string]*goNode{}}
	// stack[d] is the most recent node at depth d.
	var stack []*goNode
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		depth, content := splitTreePrefix(line)
		if content == "" || strings.HasPrefix(content, "//") || strings.HasPrefix(content, "---") {
			continue
		}
		if depth == 0 && !strings.Contains(content, ": ") {
			continue // the package path header
		}
		if depth > len(stack) {
			return nil, fmt.Errorf("%s:%d: line nested deeper than its parent", path, lineNo)
		}
		stack = stack[:depth]
		if depth > 0 && stack[depth-1] != nil && stack[depth-1].Type.leaf().Kind == goEnum && !strings.Contains(content, ": ") {
			// Enum values are quoted strings or bare numbers.
			v := content
			if strings.HasPrefix(v, `"`) {
				var err error
				if v, err = strconv.Unquote(v); err != nil {
					return nil, fmt.Errorf("%s:%d: enum value: %v", path, lineNo, err)
				}
			}
			stack[depth-1].Enum = append(stack[depth-1].Enum, v)
			stack = append(stack, nil)
			continue
		}
		if strings.HasPrefix(content, "Rule ") {
			stack = append(stack, nil) // validation rules are taken from the CRD
			continue
		}
		name, typ, ok := strings.Cut(content, ": ")
		if !ok {
			return nil, fmt.Errorf("%s:%d: cannot parse %q", path, lineNo, content)
		}
		n := &goNode{Name: name, Type: parseGoType(typ), File: path, Line: lineNo}
		if depth == 0 {
			out.Decls[name] = n
		} else if parent := stack[depth-1]; parent != nil {
			parent.Fields = append(parent.Fields, n)
		}
		stack = append(stack, n)
	}
	return out, sc.Err()
}

// splitTreePrefix returns the nesting depth of an outline line and its content.
func splitTreePrefix(line string) (int, string) {
	runes := []rune(line)
	i := 0
	for i < len(runes) && strings.ContainsRune("│├└─ \u00a0", runes[i]) {
		i++
	}
	return i / treePrefixWidth, string(runes[i:])
}
