// Package manifestedit edits manifest files in place: each edit (set a value
// at a path of an object, insert a key or a list item, take one out) is
// spliced into the file's original bytes at the positions the YAML parser
// reports, so that every byte outside the changed values stays as it was:
// comments, indentation, quoting, line endings, document markers, key order,
// a byte-order mark, flow and block styles, other documents. New text is
// written in the file's own indentation and line ending, and a JSON file is
// edited as JSON. Files are replaced atomically (see WriteFile).
package manifestedit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Step is one step of a path in an object: a mapping key, or the item of a
// list whose field ItemField is Key (a named item, "[name=web]").
type Step struct {
	Key       string
	ItemField string
}

// Object names the object an edit is made in: a document of the file, or an
// item of a `kind: List` document. A document without a namespace matches
// any Namespace.
type Object struct {
	Group, Kind, Namespace, Name string
}

// Edit sets Value at Path in Object (making the mappings and named items on
// the way), or with Remove takes the key or item at Path out.
type Edit struct {
	Object Object
	Path   []Step
	Value  any
	Remove bool
}

// Apply makes the edits, in order, in data. skipped[i] says why edit i was
// not made ("" when it was): a path through a YAML alias or anchor (written
// once and used elsewhere), a value that is not the mapping or list the path
// needs, a value azk cannot write in place. Every edit is read back from
// the edited text before it is kept. An object no longer in data, or data
// that does not parse, is an error.
func Apply(data []byte, edits []Edit) (out []byte, skipped []string, err error) {
	skipped = make([]string, len(edits))
	s, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	// Edits of different objects cannot overlap: they are made in one pass
	// and read back with one parse; a run stops at a second edit of an
	// object, which must see the first.
	for start := 0; start < len(edits); {
		var run []int
		seen := map[*yaml.Node]bool{}
		for i := start; i < len(edits); i++ {
			doc := s.find(edits[i].Object)
			if doc == nil {
				o := edits[i].Object
				return nil, nil, fmt.Errorf("%s/%s %s is no longer in the file", o.Group, o.Kind, o.Name)
			}
			if seen[doc] {
				break
			}
			seen[doc] = true
			run = append(run, i)
		}
		if next, ok := s.edit(edits, run, skipped); ok {
			s = next
		} else {
			for _, i := range run { // one by one, to tell which cannot be made
				if next, ok := s.edit(edits, []int{i}, skipped); ok {
					s = next
				}
			}
		}
		start += len(run)
	}
	return s.content(), skipped, nil
}

// edit makes the edits at indices, each of a different object, and reads
// them back; false when the text they make does not read back (then
// nothing is made, and with a single edit it is skipped with why).
func (s *source) edit(edits []Edit, indices []int, skipped []string) (*source, bool) {
	ed := &editor{source: s}
	made := indices[:0:0]
	for _, i := range indices {
		e := edits[i]
		before := len(ed.splices)
		why, err := ed.set(s.find(e.Object), e.Path, e.Value, e.Remove)
		if err != nil {
			why = "azk cannot edit it in place (" + err.Error() + "): edit it yourself"
		}
		if why != "" {
			skipped[i] = why
			ed.splices = ed.splices[:before]
			continue
		}
		made = append(made, i)
	}
	if len(made) == 0 {
		return s, true
	}
	next, err := ed.result()
	var edited *source
	if err == nil {
		if edited, err = parse(next); err != nil {
			err = fmt.Errorf("the edit would not parse: %v", err)
		}
	}
	for _, i := range made {
		if err == nil {
			err = readBack(edited, edits[i])
		}
	}
	if err != nil {
		if len(indices) == 1 {
			skipped[indices[0]] = "azk cannot edit it in place (" + err.Error() + "): edit it yourself"
			return s, true
		}
		return s, false
	}
	return edited, true
}

// readBack reads the value an edit wrote from the edited file.
func readBack(s *source, e Edit) error {
	doc := s.find(e.Object)
	if doc == nil {
		return fmt.Errorf("the edit lost the object")
	}
	n := doc
	for _, st := range e.Path {
		if _, n = child(n, st); n == nil {
			break
		}
	}
	if e.Remove {
		if n != nil {
			return fmt.Errorf("the value is still there after the edit")
		}
		return nil
	}
	if n == nil || !equal(n, e.Value) {
		return fmt.Errorf("the edit does not read back as the value")
	}
	return nil
}

// find is the document (or List item) that is o.
func (s *source) find(o Object) *yaml.Node {
	var match func(n *yaml.Node) *yaml.Node
	match = func(n *yaml.Node) *yaml.Node {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		apiVersion, kind := scalarAt(n, "apiVersion"), scalarAt(n, "kind")
		if kind == "List" {
			if _, items := child(n, Step{Key: "items"}); items != nil && items.Kind == yaml.SequenceNode {
				for _, item := range items.Content {
					if m := match(item); m != nil {
						return m
					}
				}
			}
			return nil
		}
		_, meta := child(n, Step{Key: "metadata"})
		group, _, found := strings.Cut(apiVersion, "/")
		if !found {
			group = ""
		}
		if kind != o.Kind || group != o.Group || scalarAt(meta, "name") != o.Name {
			return nil
		}
		if ns := scalarAt(meta, "namespace"); ns != "" && ns != o.Namespace {
			return nil
		}
		return n
	}
	for _, d := range s.docs {
		if m := match(d); m != nil {
			return m
		}
	}
	return nil
}

func scalarAt(n *yaml.Node, key string) string {
	if n == nil {
		return ""
	}
	if _, v := child(n, Step{Key: key}); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// child is the index and value of key s in mapping n, or of its named item
// in sequence n.
func child(n *yaml.Node, s Step) (int, *yaml.Node) {
	if s.ItemField != "" {
		if n.Kind != yaml.SequenceNode {
			return -1, nil
		}
		for i, e := range n.Content {
			if _, v := child(e, Step{Key: s.ItemField}); v != nil && v.Value == s.Key {
				return i, e
			}
		}
		return -1, nil
	}
	if n.Kind != yaml.MappingNode {
		return -1, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == s.Key {
			return i, n.Content[i+1]
		}
	}
	return -1, nil
}

// slot is where a node sits: the value of a mapping key, or a list item.
type slot struct {
	key  *yaml.Node // the key whose value it is; nil for a list item
	flow bool       // inside a flow collection
}

func childSlot(parent *yaml.Node, parentSlot slot, i int) slot {
	sl := slot{flow: parentSlot.flow || parent.Style&yaml.FlowStyle != 0}
	if parent.Kind == yaml.MappingNode {
		sl.key = parent.Content[i]
	}
	return sl
}

// splice replaces text[start:end] with text.
type splice struct {
	start, end int
	text       string
}

type editor struct {
	*source
	splices []splice
}

func (e *editor) add(start, end int, text string) {
	e.splices = append(e.splices, splice{start, end, text})
}

// result is the file with the splices made.
func (e *editor) result() ([]byte, error) {
	sort.SliceStable(e.splices, func(i, j int) bool { return e.splices[i].start < e.splices[j].start })
	var b strings.Builder
	if e.bom {
		b.Write(bom)
	}
	pos := 0
	for _, sp := range e.splices {
		if sp.start < pos {
			return nil, fmt.Errorf("two edits overlap")
		}
		b.Write(e.text[pos:sp.start])
		b.WriteString(sp.text)
		pos = sp.end
	}
	b.Write(e.text[pos:])
	return []byte(b.String()), nil
}

func isAlias(n *yaml.Node) bool { return n.Kind == yaml.AliasNode || n.Anchor != "" }

func aliasWhy(path []Step) string {
	return fmt.Sprintf("%s is a YAML alias or anchor, used elsewhere too: edit it yourself", printPath(path))
}

func printPath(path []Step) string {
	var b strings.Builder
	for _, s := range path {
		if s.ItemField != "" {
			fmt.Fprintf(&b, "[%s=%s]", s.ItemField, s.Key)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	return b.String()
}

// set makes one edit in doc.
func (e *editor) set(doc *yaml.Node, path []Step, value any, remove bool) (string, error) {
	if len(path) == 0 {
		return "", fmt.Errorf("an edit of the whole object")
	}
	node, sl := doc, slot{}
	for i, st := range path {
		if isAlias(node) {
			return aliasWhy(path[:i]), nil
		}
		idx, next := child(node, st)
		if next == nil {
			if remove {
				return "", nil // nothing there to take out
			}
			return e.insert(node, sl, path[:i+1], build(path[i+1:], value))
		}
		if i == len(path)-1 {
			if remove {
				return "", e.removeElements(node, sl, []int{elementIndex(node, idx)})
			}
			if isAlias(next) {
				return aliasWhy(path), nil
			}
			return "", e.replace(next, childSlot(node, sl, idx), value)
		}
		node, sl = next, childSlot(node, sl, idx)
	}
	return "", nil
}

// elementIndex turns a Content index into the index of the entry or item.
func elementIndex(n *yaml.Node, i int) int {
	if n.Kind == yaml.MappingNode {
		return i / 2
	}
	return i
}

// build is the value that makes the rest of a path lead to value.
func build(rest []Step, value any) any {
	if len(rest) == 0 {
		return value
	}
	inner := build(rest[1:], value)
	if rest[0].ItemField == "" {
		return map[string]any{rest[0].Key: inner}
	}
	named := map[string]any{rest[0].ItemField: rest[0].Key}
	if m, ok := inner.(map[string]any); ok {
		for k, v := range m {
			named[k] = v
		}
	}
	return []any{named}
}

// insert adds the last step of path, leading to value, under node.
func (e *editor) insert(node *yaml.Node, sl slot, path []Step, value any) (string, error) {
	st := path[len(path)-1]
	if st.ItemField != "" {
		item, ok := value.(map[string]any)
		if !ok {
			return "a list item that is no object", nil
		}
		named := map[string]any{st.ItemField: st.Key}
		for k, v := range item {
			named[k] = v
		}
		switch {
		case isNull(node):
			return "", e.replaceWhole(node, sl, []any{named})
		case node.Kind != yaml.SequenceNode:
			return fmt.Sprintf("%s is not a list in the manifest", printPath(path[:len(path)-1])), nil
		case len(node.Content) == 0:
			return "", e.replaceWhole(node, sl, []any{named})
		}
		return "", e.insertItems(node, len(node.Content)-1, []any{named})
	}
	switch {
	case isNull(node):
		return "", e.replaceWhole(node, sl, map[string]any{st.Key: value})
	case node.Kind != yaml.MappingNode:
		return fmt.Sprintf("%s is not a mapping in the manifest", printPath(path[:len(path)-1])), nil
	case len(node.Content) == 0:
		return "", e.replaceWhole(node, sl, map[string]any{st.Key: value})
	}
	return "", e.insertEntry(node, st.Key, value)
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// replace writes value over node n, changing only what differs: the entries
// of a mapping and the items of a list are compared one by one, so that
// what stays keeps its text and comments.
func (e *editor) replace(n *yaml.Node, sl slot, value any) error {
	if equal(n, value) {
		return nil
	}
	if isAlias(n) {
		return fmt.Errorf("a YAML alias or anchor inside the value")
	}
	switch v := value.(type) {
	case map[string]any:
		if n.Kind == yaml.MappingNode && len(n.Content) > 0 && len(v) > 0 {
			return e.replaceMapping(n, sl, v)
		}
	case []any:
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 && len(v) > 0 {
			return e.replaceList(n, sl, v)
		}
	default:
		if n.Kind == yaml.ScalarNode && !isNull(n) {
			start := e.offset(n)
			end, err := e.end(n, sl.flow)
			if err != nil {
				return err
			}
			text, err := e.scalarOver(n, value, sl.flow)
			if err != nil {
				return err
			}
			e.add(start, end, text)
			return nil
		}
	}
	return e.replaceWhole(n, sl, value)
}

func (e *editor) replaceMapping(n *yaml.Node, sl slot, v map[string]any) error {
	var removed []int
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		seen[key] = true
		nv, ok := v[key]
		if !ok {
			removed = append(removed, i/2)
			continue
		}
		if err := e.replace(n.Content[i+1], childSlot(n, sl, i), nv); err != nil {
			return err
		}
	}
	if len(removed) == len(n.Content)/2 {
		return e.replaceWhole(n, sl, v) // nothing of it stays
	}
	if err := e.removeElements(n, sl, removed); err != nil {
		return err
	}
	for _, k := range keysOf(v) {
		if !seen[k] {
			if err := e.insertEntry(n, k, v[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// replaceList keeps the items that stay (the longest common subsequence),
// writes the new values over the items in their place, takes out the rest
// and inserts what is new after the item before it.
func (e *editor) replaceList(n *yaml.Node, sl slot, v []any) error {
	items := n.Content
	pairs := lcs(items, v)
	pairs = append(pairs, [2]int{len(items), len(v)})
	var removed []int
	i, j := 0, 0
	for _, p := range pairs {
		dels, ins := p[0]-i, p[1]-j
		k := min(dels, ins)
		for t := range k {
			if err := e.replace(items[i+t], childSlot(n, sl, i+t), v[j+t]); err != nil {
				return err
			}
		}
		for t := k; t < dels; t++ {
			removed = append(removed, i+t)
		}
		if ins > k {
			if err := e.insertItems(n, i+k-1, v[j+k:p[1]]); err != nil {
				return err
			}
		}
		i, j = p[0]+1, p[1]+1
	}
	return e.removeElements(n, sl, removed)
}

// lcs pairs the indices of items and values that are equal, in order.
func lcs(items []*yaml.Node, values []any) [][2]int {
	eq := make([][]bool, len(items))
	for i, n := range items {
		eq[i] = make([]bool, len(values))
		for j, v := range values {
			eq[i][j] = equal(n, v)
		}
	}
	dp := make([][]int, len(items)+1)
	for i := range dp {
		dp[i] = make([]int, len(values)+1)
	}
	for i := len(items) - 1; i >= 0; i-- {
		for j := len(values) - 1; j >= 0; j-- {
			if eq[i][j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var pairs [][2]int
	for i, j := 0, 0; i < len(items) && j < len(values); {
		switch {
		case eq[i][j]:
			pairs = append(pairs, [2]int{i, j})
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

// equal reports whether node n reads as value v.
func equal(n *yaml.Node, v any) bool {
	var decoded any
	if err := n.Decode(&decoded); err != nil {
		return false
	}
	return reflect.DeepEqual(normal(decoded), normal(v))
}

// normal is v as JSON reads it back, so that YAML's and Go's forms of one
// value compare equal.
func normal(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

// keysOf are m's keys, "name" first (as objects are written) then sorted.
func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if i := slices.Index(keys, "name"); i > 0 {
		keys = append([]string{"name"}, slices.Delete(keys, i, i+1)...)
	}
	return keys
}
