// Package refresh writes Azure's values into the manifests where a plan
// says the manifests are to follow Azure: the differences drift policy
// reflect keeps, and the paths of the ignore-changes annotation where Azure
// differs (planner.Resource.Follow). Each ARM body path is mapped back to
// the spec field it is sent from by the registry's facts (each spec field's
// ARM path), never by guessing from names, and the manifest files are edited
// in place with kyaml, keeping comments and layout, so the change goes
// through review as a normal diff. A value the manifest takes from a Secret,
// a reference (armId or name) or a config map is never written back, nor one
// in a file azk did not read as a plain file (standard input, kustomize
// output); each says why.
package refresh

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
)

// Entry is one value to write into a manifest, or one that is not written.
type Entry struct {
	// Address and Source (file:line) are the resource's.
	Address string `json:"address"`
	Source  string `json:"source"`
	// Why is what makes the manifest follow Azure there: "reflect" (drift
	// policy reflect) or "ignore-changes".
	Why string `json:"why"`
	// Path is the ARM body path, as the plan prints it.
	Path string `json:"path"`
	// Field is the manifest's field written, as "spec.dhcpOptions.dnsServers".
	Field string `json:"field,omitempty"`
	// Value is written at Field (the spec's form of Azure's value); absent
	// with Remove, where Azure holds none and the field is taken out.
	Value  any  `json:"value,omitempty"`
	Remove bool `json:"remove,omitempty"`
	// Skipped says why it is not written; nothing is written then.
	Skipped string `json:"skipped,omitempty"`

	obj *loader.Object
	at  []step
}

// File is a manifest file as it is and as refreshed.
type File struct {
	Path          string `json:"path"`
	Before, After []byte `json:"-"`
}

// Result is what refreshing the manifests of a plan writes.
type Result struct {
	Entries []Entry `json:"entries"`
	Files   []File  `json:"files"`
}

// Written counts the entries written.
func (r *Result) Written() int {
	n := 0
	for _, e := range r.Entries {
		if e.Skipped == "" {
			n++
		}
	}
	return n
}

// Prepare maps each difference of p at which the manifests are to follow
// Azure to its manifest field and computes the files as refreshed; nothing
// is written (see Write). p must have been made from the inputs (its
// resources link to their nodes).
func Prepare(p *planner.Plan) (*Result, error) {
	res := &Result{}
	for _, r := range p.Resources {
		if r.Node == nil {
			continue
		}
		reflected := len(r.Reflected) // Follow lists them first, then the ignore-changes paths
		for i, c := range r.Follow() {
			why := "reflect"
			if i >= reflected {
				why = "ignore-changes"
			}
			res.Entries = append(res.Entries, entries(r, why, c)...)
		}
	}
	files, err := edit(res.Entries)
	if err != nil {
		return nil, err
	}
	res.Files = files
	return res, nil
}

// entries maps one difference of r to the manifest fields to write.
func entries(r *planner.Resource, why string, c planner.Change) []Entry {
	o := r.Node.Object
	base := Entry{Address: r.Address, Source: r.Source, Why: why, Path: c.Path, obj: o}
	p, err := armjson.ParsePath(c.Path)
	if err != nil {
		base.Skipped = err.Error()
		return []Entry{base}
	}
	if scrubbed(c.Before) {
		base.Skipped = "Azure's value holds a secret of this run, read as " + redact.Text + ": azk never writes a secret into a manifest"
		return []Entry{base}
	}
	if secretIn(r.Node.Kind, p, c.Before) {
		base.Skipped = "a secret (the REST specification calls it sensitive, or Azure masks it): azk never writes a secret into a manifest"
		return []Entry{base}
	}
	if !o.InPlainFile() {
		base.Skipped = "read from standard input or kustomize output, not from a file azk can edit: write it into the source yourself"
		return []Entry{base}
	}
	var out []Entry
	for _, t := range (mapper{obj: o.Node.YNode()}).targets(r.Node.Kind.Spec, p, c.Before, c.Before != nil) {
		e := base
		e.Field, e.at = fieldPath(t.steps), t.steps
		e.Value, e.Remove, e.Skipped = t.value, t.remove, t.skipped
		out = append(out, e)
	}
	return out
}

// edit computes the refreshed content of each file the entries write into.
func edit(entries []Entry) ([]File, error) {
	byFile := map[string][]int{}
	var paths []string
	for i, e := range entries {
		if e.Skipped != "" {
			continue
		}
		f := e.obj.Source.File
		if byFile[f] == nil {
			paths = append(paths, f)
		}
		byFile[f] = append(byFile[f], i)
	}
	sort.Strings(paths)
	var files []File
	for _, path := range paths {
		before, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(before), Writer: &out, PreserveSeqIndent: true}
		docs, err := rw.Read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, i := range byFile[path] {
			e := &entries[i]
			doc := find(docs, e.obj)
			if doc == nil {
				return nil, fmt.Errorf("%s: %s is no longer in the file", path, e.obj.Address())
			}
			if why := write(doc, e.at, e.Value, e.Remove); why != "" {
				e.Skipped = why
			}
		}
		if err := rw.Write(docs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !bytes.Equal(before, out.Bytes()) {
			files = append(files, File{Path: path, Before: before, After: out.Bytes()})
		}
	}
	return files, nil
}

// Write writes the refreshed files, each whole, keeping its permissions.
func (r *Result) Write() error {
	for _, f := range r.Files {
		info, err := os.Stat(f.Path)
		if err != nil {
			return err
		}
		if current, err := os.ReadFile(f.Path); err != nil || !bytes.Equal(current, f.Before) {
			return fmt.Errorf("%s changed since it was read: nothing more was written; run azk refresh again", f.Path)
		}
		if err := os.WriteFile(f.Path, f.After, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// find picks the document that is o: same group, kind, name and namespace
// (an absent namespace is the one o was given).
func find(docs []*yaml.RNode, o *loader.Object) *yaml.RNode {
	for _, d := range docs {
		group, _, _ := strings.Cut(d.GetApiVersion(), "/")
		if d.GetKind() != o.Kind || d.GetName() != o.Name || group != o.Group() {
			continue
		}
		if ns := d.GetNamespace(); ns != "" && ns != o.Namespace {
			continue
		}
		return d
	}
	return nil
}

// write sets value at the path of steps in doc (or takes it out), making
// the mappings and named items on the way; it says why not where the path
// goes through a YAML alias or anchor (a value written once and used
// elsewhere: writing it would change the other uses too).
func write(doc *yaml.RNode, steps []step, value any, remove bool) string {
	node := doc.YNode()
	for i, s := range steps[:len(steps)-1] {
		if node.Kind == yaml.AliasNode || node.Anchor != "" {
			return fmt.Sprintf("%s is a YAML alias or anchor, used elsewhere too: edit it yourself", fieldPath(steps[:i]))
		}
		next := child(node, s)
		if next == nil {
			if remove {
				return "" // nothing there to take out
			}
			next = newChild(node, s, steps[i+1])
			if next == nil {
				return fmt.Sprintf("%s is not a %s in the manifest", fieldPath(steps[:i+1]), kindOf(s))
			}
		}
		node = next
	}
	last := steps[len(steps)-1]
	if node.Kind == yaml.AliasNode || node.Anchor != "" {
		return fmt.Sprintf("%s is a YAML alias or anchor, used elsewhere too: edit it yourself", fieldPath(steps[:len(steps)-1]))
	}
	if remove {
		removeChild(node, last)
		return ""
	}
	v, err := valueNode(value)
	if err != nil {
		return err.Error()
	}
	if last.ItemField != "" {
		return setItem(node, last, v)
	}
	if node.Kind != yaml.MappingNode {
		return fmt.Sprintf("%s is not a mapping in the manifest", fieldPath(steps[:len(steps)-1]))
	}
	if old := child(node, last); old != nil {
		if old.Kind == yaml.AliasNode || old.Anchor != "" {
			return fmt.Sprintf("%s is a YAML alias or anchor, used elsewhere too: edit it yourself", fieldPath(steps))
		}
		keepLayout(old, v)
	}
	if err := yaml.NewRNode(node).PipeE(yaml.SetField(last.Key, yaml.NewRNode(v))); err != nil {
		return err.Error()
	}
	return ""
}

func kindOf(s step) string {
	if s.ItemField != "" {
		return "list"
	}
	return "mapping"
}

// child is the value of key s in mapping n, or its named item in sequence n.
func child(n *yaml.Node, s step) *yaml.Node {
	if s.ItemField != "" {
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for _, e := range n.Content {
			if v := fieldValue(e, s.ItemField); v != nil && v.Value == s.Key {
				return e
			}
		}
		return nil
	}
	return fieldValue(n, s.Key)
}

func fieldValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// newChild adds, under n, the empty mapping or sequence step s leads to
// (the kind next needs); nil when n is not the mapping or sequence s needs.
func newChild(n *yaml.Node, s, next step) *yaml.Node {
	kind := yaml.MappingNode
	if next.ItemField != "" {
		kind = yaml.SequenceNode
	}
	if s.ItemField != "" {
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		item := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s.ItemField},
			{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s.Key},
		}}
		n.Content = append(n.Content, item)
		return item
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	v := &yaml.Node{Kind: kind}
	if kind == yaml.MappingNode {
		v.Tag = yaml.NodeTagMap
	} else {
		v.Tag = yaml.NodeTagSeq
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: s.Key}, v)
	return v
}

// removeChild takes key s out of mapping n, or its named item out of sequence n.
func removeChild(n *yaml.Node, s step) {
	if s.ItemField == "" {
		_ = yaml.NewRNode(n).PipeE(yaml.Clear(s.Key))
		return
	}
	if n.Kind != yaml.SequenceNode {
		return
	}
	for i, e := range n.Content {
		if v := fieldValue(e, s.ItemField); v != nil && v.Value == s.Key {
			n.Content = append(n.Content[:i], n.Content[i+1:]...)
			return
		}
	}
}

// setItem puts v, a mapping, as the named item s of sequence n.
func setItem(n *yaml.Node, s step, v *yaml.Node) string {
	if n.Kind != yaml.SequenceNode {
		return "not a list in the manifest"
	}
	if v.Kind != yaml.MappingNode {
		return "a list item that is no object"
	}
	for i, e := range n.Content {
		if f := fieldValue(e, s.ItemField); f != nil && f.Value == s.Key {
			n.Content[i] = v
			return ""
		}
	}
	n.Content = append(n.Content, v)
	return ""
}

// keepLayout gives the node replacing old old's comments, and its style
// (flow or block, quoting) where both are of one kind.
func keepLayout(old, v *yaml.Node) {
	v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
	if old.Kind == v.Kind && (v.Kind != yaml.ScalarNode || v.Tag == old.Tag) {
		v.Style = old.Style
	}
}

// valueNode is v as a YAML node, as kubectl would read it back.
func valueNode(v any) (*yaml.Node, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}
