package loader

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/yamlnode"
)

// FieldSetter is where the value of a field of an object kustomize built is
// set, the place to edit it: the last patch of the object's kustomization
// (its own or a base's, a strategic-merge or a JSON 6902 patch) that sets
// the field or something in it, with its file and line (an inline patch:
// the kustomization's line), and byPatch; or, where no patch sets it, the
// field's line in the file kustomize read the object from. path is the
// field's keys, a named list item written "[name=web]". For an object read
// directly it is the object's own source.
func FieldSetter(o *Object, path []string) (src diag.Source, byPatch bool) {
	src = diag.Source{File: o.Source.File, Line: FieldLine(o, path...)}
	if o.Kustomization == "" {
		return o.Source, false
	}
	a := attribution{object: o, path: path, seen: map[string]bool{}}
	a.kustomization(o.Kustomization)
	if a.found != nil {
		return *a.found, true
	}
	return src, false
}

type attribution struct {
	object *Object
	path   []string
	seen   map[string]bool
	found  *diag.Source
}

// kustomization visits the bases of the kustomization in dir first, then
// its patches in order, so that the last patch found is the one applied last.
func (a *attribution) kustomization(dir string) {
	if a.seen[dir] {
		return
	}
	a.seen[dir] = true
	file, doc := readKustomization(dir)
	if doc == nil {
		return
	}
	for _, key := range []string{"resources", "bases", "components"} {
		for _, r := range sequence(doc, key) {
			sub := filepath.Join(dir, r.Value)
			if info, err := os.Stat(sub); err == nil && info.IsDir() {
				a.kustomization(sub)
			}
		}
	}
	for _, p := range sequence(doc, "patchesStrategicMerge") {
		a.patchText(file, dir, p, nil)
	}
	for _, key := range []string{"patchesJson6902", "patches"} {
		for _, p := range sequence(doc, key) {
			target := yamlnode.Value(p, "target")
			if path := yamlnode.Value(p, "path"); path != nil {
				a.patchFile(filepath.Join(dir, path.Value), target)
			} else if patch := yamlnode.Value(p, "patch"); patch != nil {
				a.patchText(file, dir, patch, target)
			}
		}
	}
}

func readKustomization(dir string) (string, *yaml.Node) {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		file := filepath.Join(dir, name)
		data, err := ReadFile(file, MaxFileBytes)
		if err != nil {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			return file, nil
		}
		return file, doc.Content[0]
	}
	return "", nil
}

func sequence(n *yaml.Node, key string) []*yaml.Node {
	v := yamlnode.Value(n, key)
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil
	}
	return v.Content
}

// patchText reads a patch written in the kustomization (or, in
// patchesStrategicMerge, the name of a patch file).
func (a *attribution) patchText(kustomization, dir string, p, target *yaml.Node) {
	if p.Kind != yaml.ScalarNode {
		return
	}
	if !strings.Contains(p.Value, "\n") {
		if info, err := os.Stat(filepath.Join(dir, p.Value)); err == nil && !info.IsDir() {
			a.patchFile(filepath.Join(dir, p.Value), target)
			return
		}
	}
	// A block scalar's text starts on the line after its header.
	offset := p.Line
	if p.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		offset = p.Line - 1
	}
	a.patch(kustomization, []byte(p.Value), offset, target)
}

func (a *attribution) patchFile(file string, target *yaml.Node) {
	data, err := ReadFile(file, MaxFileBytes)
	if err != nil {
		return
	}
	a.patch(file, data, 0, target)
}

// patch looks in one patch (a JSON 6902 list of operations or
// strategic-merge documents) for what sets the field; lines are those of
// data plus offset.
func (a *attribution) patch(file string, data []byte, offset int, target *yaml.Node) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			return
		}
		if len(doc.Content) == 0 {
			continue
		}
		n := doc.Content[0]
		switch n.Kind {
		case yaml.SequenceNode: // JSON 6902
			if !a.targets(target, "", "") {
				continue
			}
			for _, op := range n.Content {
				if ptr := yamlnode.String(op, "path"); ptr != "" && a.related(strings.Split(strings.TrimPrefix(ptr, "/"), "/")) {
					a.found = &diag.Source{File: file, Line: op.Line + offset}
				}
			}
		case yaml.MappingNode: // strategic merge
			if !a.targets(target, yamlnode.String(n, "kind"), yamlnode.String(n, "metadata", "name")) {
				continue
			}
			if line := a.sets(n); line > 0 {
				a.found = &diag.Source{File: file, Line: line + offset}
			}
		}
	}
}

// targets reports whether a patch with target (and, for a strategic-merge
// patch, the kind and name it names) applies to the object. Names are
// matched as part of the object's name: prefixes and suffixes only add to it.
func (a *attribution) targets(target *yaml.Node, kind, name string) bool {
	o := a.object
	if target != nil {
		if k := yamlnode.String(target, "kind"); k != "" && k != o.Kind {
			return false
		}
		if g := yamlnode.String(target, "group"); g != "" && g != o.Group() {
			return false
		}
		if n := yamlnode.String(target, "name"); n != "" && !matchesName(n, o.Name) {
			return false
		}
	}
	if kind != "" && kind != o.Kind {
		return false
	}
	return name == "" || strings.Contains(o.Name, name)
}

func matchesName(pattern, name string) bool {
	if strings.Contains(name, pattern) {
		return true
	}
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(name)
}

// related reports whether a JSON pointer and the field's path lead one
// into the other: the operation sets the field, or something in it.
func (a *attribution) related(pointer []string) bool {
	for i := range min(len(pointer), len(a.path)) {
		seg := strings.NewReplacer("~1", "/", "~0", "~").Replace(pointer[i])
		step := a.path[i]
		if strings.HasPrefix(step, "[") {
			if _, err := strconv.Atoi(seg); err != nil && seg != "-" {
				return false
			}
			continue
		}
		if seg != step {
			return false
		}
	}
	return true
}

// sets is the line at which strategic-merge patch n sets the field or
// something in it (the deepest key of the field's path it holds), or 0.
func (a *attribution) sets(n *yaml.Node) int {
	line := 0
	for _, step := range a.path {
		if strings.HasPrefix(step, "[") {
			field, key, _ := strings.Cut(strings.Trim(step, "[]"), "=")
			if n.Kind != yaml.SequenceNode {
				return line
			}
			var item *yaml.Node
			for _, e := range n.Content {
				if yamlnode.String(e, field) == key {
					item = e
				}
			}
			if item == nil {
				return 0 // the patch sets other items of the list
			}
			n, line = item, item.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			return line // the patch sets the whole value above the field
		}
		k, v := yamlnode.Entry(n, step)
		if v == nil {
			return 0
		}
		n, line = v, k.Line
	}
	return line
}
