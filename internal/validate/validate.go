// Package validate checks a manifest's spec against its kind's schema and
// finds the references inside it, in one walk over the YAML tree.
package validate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/suggest"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Ref is a reference field found in a spec: a resource, owner, secret or
// config-map reference, or a config-map export.
type Ref struct {
	Field *registry.Field
	// Path is the field's location, e.g. "spec.ipConfigurations[0].subnet.reference".
	Path string
	// Node is the reference's YAML value (a mapping for most references).
	Node *yaml.Node
	// Line is where the field starts in its source file (its key's line).
	Line int
}

// Spec checks obj's spec against kind's schema, returning every problem and
// the references it found, in document order.
func Spec(obj *loader.Object, kind *registry.Kind) ([]Ref, diag.List) {
	w := walker{obj: obj}
	spec := obj.Node.Field("spec")
	if spec == nil || spec.Value == nil || spec.Value.IsNilOrEmpty() {
		if kind.Spec != nil && hasRequired(kind.Spec) {
			w.errorf(obj.Source.Line, "spec", "spec is required")
		}
		return nil, w.diags
	}
	w.value(kind.Spec, spec.Value.YNode(), "spec", spec.Key.YNode().Line)
	if kind.Spec.Child("operatorSpec") != nil {
		w.expressions(kind, spec.Value.YNode())
	}
	if kind.Operator != nil && len(kind.Operator.RootOneOf) > 0 {
		w.rootOneOf(kind.Operator.RootOneOf, spec.Value.YNode(), spec.Key.YNode().Line)
	}
	return w.refs, w.diags
}

func hasRequired(f *registry.Field) bool {
	for _, c := range f.Fields {
		if c.Required {
			return true
		}
	}
	return false
}

type walker struct {
	obj   *loader.Object
	refs  []Ref
	diags diag.List
}

func (w *walker) errorf(line int, path, format string, args ...any) {
	src := w.obj.Source
	if line > 0 {
		src.Line = line
	}
	w.diags.Add(diag.Errorf(src, w.obj.Address(), path, format, args...))
}

// value checks n against f; line is where the field starts (its key's line,
// or the item's own line in a list).
func (w *walker) value(f *registry.Field, n *yaml.Node, path string, line int) {
	n = yamlnode.Deref(n)
	if yamlnode.IsNull(n) {
		return // explicit null is "unset", as Kubernetes treats it
	}
	if f.Ref != "" {
		w.refs = append(w.refs, Ref{Field: f, Path: path, Node: n, Line: line})
	}
	switch f.Type {
	case registry.TypeAny:
		return
	case registry.TypeObject:
		if w.expectKind(n, yaml.MappingNode, "an object", path, line) {
			w.object(f, n, path, line)
		}
	case registry.TypeMap:
		if !w.expectKind(n, yaml.MappingNode, "a map", path, line) {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if f.Values != nil {
				w.value(f.Values, n.Content[i+1], path+"."+n.Content[i].Value, n.Content[i].Line)
			}
		}
	case registry.TypeArray:
		if !w.expectKind(n, yaml.SequenceNode, "a list", path, line) {
			return
		}
		w.bounds(line, path, "items", len(n.Content), f.MinItems, f.MaxItems)
		for i, item := range n.Content {
			if f.Items != nil {
				w.value(f.Items, item, fmt.Sprintf("%s[%d]", path, i), yamlnode.Deref(item).Line)
			}
		}
	default:
		w.scalar(f, n, path, line)
	}
}

func (w *walker) expectKind(n *yaml.Node, kind yaml.Kind, what, path string, line int) bool {
	if n.Kind == kind {
		return true
	}
	w.errorf(line, path, "must be %s, got %s", what, describe(n))
	return false
}

func (w *walker) object(f *registry.Field, n *yaml.Node, path string, line int) {
	seen := make(map[string]bool, len(n.Content)/2)
	alternatives := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		childPath := path + "." + key.Value
		if seen[key.Value] {
			continue // the loader reports keys set twice, anywhere in a manifest
		}
		child := f.Child(key.Value)
		if child == nil {
			w.errorf(key.Line, childPath, "unknown field %q%s", key.Value, didYouMean(f, key.Value))
			continue
		}
		seen[key.Value] = true
		if f.OneOf && !yamlnode.IsNull(yamlnode.Deref(val)) {
			alternatives++
		}
		w.value(child, val, childPath, key.Line)
	}
	if f.OneOf && alternatives > 1 {
		w.errorf(line, path, "set exactly one of %s", strings.Join(fieldNames(f), ", "))
	}
	for _, c := range f.Fields {
		if c.Required && !seen[c.Name] {
			w.errorf(line, path+"."+c.Name, "required field is missing")
		}
	}
}

func (w *walker) scalar(f *registry.Field, n *yaml.Node, path string, line int) {
	if n.Kind != yaml.ScalarNode {
		w.errorf(line, path, "must be %s, got %s", article(f.Type), describe(n))
		return
	}
	switch f.Type {
	case registry.TypeString:
		// Kubernetes reads an unquoted date as the string written, not a timestamp.
		if n.Tag != yaml.NodeTagString && n.Tag != timestampTag {
			w.errorf(line, path, "must be a string, got %s %s (quote it)", describe(n), n.Value)
			return
		}
		w.bounds(line, path, "characters", len([]rune(n.Value)), f.MinLength, f.MaxLength)
		if f.Pattern != "" {
			if re := Pattern(f.Pattern); re != nil && !re.MatchString(n.Value) {
				w.errorf(line, path, "value %q does not match pattern %s", n.Value, f.Pattern)
			}
		}
	case registry.TypeInteger:
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if n.Tag != yaml.NodeTagInt || err != nil {
			w.errorf(line, path, "must be an integer, got %s %q", describe(n), n.Value)
			return
		}
		w.numberRange(line, path, float64(v), f)
	case registry.TypeNumber:
		v, err := strconv.ParseFloat(n.Value, 64)
		if (n.Tag != yaml.NodeTagInt && n.Tag != yaml.NodeTagFloat) || err != nil {
			w.errorf(line, path, "must be a number, got %s %q", describe(n), n.Value)
			return
		}
		w.numberRange(line, path, v, f)
	case registry.TypeBoolean:
		if n.Tag != yaml.NodeTagBool {
			w.errorf(line, path, "must be true or false, got %s %q", describe(n), n.Value)
			return
		}
	}
	if len(f.Enum) > 0 && !contains(f.Enum, n.Value) {
		w.errorf(line, path, "value %q is not one of: %s", n.Value, strings.Join(f.Enum, ", "))
	}
}

func (w *walker) numberRange(line int, path string, v float64, f *registry.Field) {
	if f.Minimum != nil && v < *f.Minimum {
		w.errorf(line, path, "value %v is less than the minimum %v", v, *f.Minimum)
	}
	if f.Maximum != nil && v > *f.Maximum {
		w.errorf(line, path, "value %v is greater than the maximum %v", v, *f.Maximum)
	}
}

func (w *walker) bounds(line int, path, unit string, n int, lo, hi *int) {
	if lo != nil && n < *lo {
		w.errorf(line, path, "has %d %s, at least %d required", n, unit, *lo)
	}
	if hi != nil && n > *hi {
		w.errorf(line, path, "has %d %s, at most %d allowed", n, unit, *hi)
	}
}

const timestampTag = "!!timestamp"

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case yaml.NodeTagString:
		return "string"
	case yaml.NodeTagInt:
		return "integer"
	case yaml.NodeTagFloat:
		return "number"
	case yaml.NodeTagBool:
		return "boolean"
	}
	return "value"
}

func article(t registry.Type) string {
	switch t {
	case registry.TypeInteger:
		return "an integer"
	case registry.TypeBoolean:
		return "true or false"
	}
	return "a " + string(t)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func fieldNames(f *registry.Field) []string {
	names := make([]string, len(f.Fields))
	for i, c := range f.Fields {
		names[i] = c.Name
	}
	return names
}

// didYouMean offers the known field nearest to a misspelt one: in case, or
// by a letter or two.
func didYouMean(f *registry.Field, name string) string {
	if near := suggest.Nearest(name, fieldNames(f)); near != "" {
		return fmt.Sprintf(" (did you mean %q?)", near)
	}
	return ""
}

var patterns sync.Map // pattern string -> *regexp.Regexp, or nil when RE2 cannot compile it

// Pattern compiles a CRD pattern, cached. It returns nil for patterns RE2
// cannot express (look-arounds): those are left for Azure to check.
func Pattern(pattern string) *regexp.Regexp {
	if v, ok := patterns.Load(pattern); ok {
		re, _ := v.(*regexp.Regexp)
		return re
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = nil
	}
	patterns.Store(pattern, re)
	return re
}
