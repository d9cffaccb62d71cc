package loader

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/yamlnode"
)

// originAnnotation is where kustomize records the file each resource came from.
const originAnnotation = "config.kubernetes.io/origin"

// kustomize builds dir and adds its output. Each object's Source is the file
// kustomize read it from (Line: the object's line there) when that is known,
// else the kustomization directory; Object.Kustomization names dir.
func (l *load) kustomize(dir string) {
	fsys := &originFS{FileSystem: filesys.MakeFsOnDisk(), allowRemote: l.allowRemote}
	root, _, err := fsys.CleanedAbs(dir)
	if err != nil && isRemote(dir) {
		l.diags.Add(diag.Errorf(diag.Source{File: dir}, "", "", "kustomize: -k takes a local directory; a remote one is not fetched (--allow-remote-bases lets a local kustomization name remote bases)"))
		return
	}
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: dir}, "", "", "kustomize: %s", describeFSError(err)))
		return
	}
	fsys.root = root.String()
	// The absolute path: kustomize would clone a relative one that reads as
	// a git URL (github.com/org/repo) even where such a folder exists.
	resources, err := fsys.build()
	if fsys.refused != nil {
		l.diags = append(l.diags, fsys.refused.diagnostics()...)
		return
	}
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: dir}, "", "", "kustomize build: %v", err))
		return
	}
	originals := &originalFiles{files: map[string][]*Object{}, claimed: map[*Object]bool{}}
	for _, res := range resources.Resources() {
		src := diag.Source{File: dir}
		node := &res.RNode
		origin, err := res.GetOrigin()
		if err != nil {
			l.diags.Add(diag.Errorf(src, "", "", "kustomize origin annotation: %v", err))
		}
		if fsys.injected {
			if err := removeAnnotation(node, originAnnotation); err != nil {
				l.diags.Add(diag.Errorf(src, "", "", "removing kustomize origin annotation: %v", err))
			}
		}
		original := (*Object)(nil)
		switch {
		case origin == nil || origin.Repo != "":
		case origin.Path != "":
			src.File = filepath.Join(dir, origin.Path)
			original = originals.match(src.File, node)
		case origin.ConfiguredIn != "":
			src.File = filepath.Join(dir, origin.ConfiguredIn)
		}
		// Lines in kustomize's output are not the user's: keep only those of
		// fields still equal to what the original file says.
		clearLines(node.YNode())
		if original != nil {
			src.Line = original.Source.Line
			copyLines(node.YNode(), original.Node.YNode())
		}
		l.kustomizeNode(dir, src, node)
	}
}

// build runs kustomize on the root. kustomize panics on some malformed
// kustomizations (a patchesJson6902 entry without a target): that is an
// error in the input, not a crash of azk.
func (f *originFS) build() (resources resmap.ResMap, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kustomize failed on this kustomization (%v): check its fields against kustomize's documentation", r)
		}
	}()
	return krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(f, f.root)
}

func (l *load) kustomizeNode(dir string, src diag.Source, node *yaml.RNode) {
	o := l.identify(src, node)
	o.Kustomization = dir
	l.add(o)
}

// originFS is the disk as kustomize reads it, with azk's rules on what it
// reads: only regular files within the bounds, no kustomization that names
// remote bases unless allowed. The root kustomization asks for origin
// annotations, so that objects can name the file they came from.
type originFS struct {
	filesys.FileSystem
	root        string
	allowRemote bool
	injected    bool // the user's kustomization did not already ask for them
	// refused is the kustomization that named remote bases: kustomize
	// stopped at it, before fetching anything.
	refused *remoteRefusal
}

func (f *originFS) ReadFile(path string) ([]byte, error) {
	data, err := ReadFile(path, MaxFileBytes)
	var refused *InputError
	if errors.As(err, &refused) {
		return nil, fmt.Errorf("%s: %s", path, refused.Reason)
	}
	if err != nil {
		return nil, err
	}
	// kustomize would expand an alias bomb itself: refuse it before.
	if d := outOfBounds(path, data); d != nil {
		return nil, d
	}
	isKustomization := slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path))
	if isKustomization && !f.allowRemote {
		if remote := remoteEntries(data); len(remote) > 0 {
			f.refused = &remoteRefusal{file: path, data: data, entries: remote}
			return nil, f.refused
		}
	}
	if !isKustomization || filepath.Dir(path) != f.root {
		return data, nil
	}
	kust, err := yaml.Parse(string(data))
	if err != nil {
		return data, nil // kustomize reports it
	}
	list, err := kust.Pipe(yaml.LookupCreate(yaml.SequenceNode, "buildMetadata"))
	if err != nil || list == nil || list.YNode().Kind != yaml.SequenceNode {
		return data, nil
	}
	for _, v := range list.YNode().Content {
		if v.Value == types.OriginAnnotations {
			return data, nil
		}
	}
	list.YNode().Content = append(list.YNode().Content, yaml.NewStringRNode(types.OriginAnnotations).YNode())
	out, err := kust.String()
	if err != nil {
		return data, nil
	}
	f.injected = true
	return []byte(out), nil
}

func removeAnnotation(node *yaml.RNode, key string) error {
	annotations, err := node.Pipe(yaml.Lookup(yaml.MetadataField, yaml.AnnotationsField))
	if err != nil || annotations == nil {
		return err
	}
	if err := annotations.PipeE(yaml.Clear(key)); err != nil {
		return err
	}
	if len(annotations.YNode().Content) == 0 {
		return node.PipeE(yaml.Lookup(yaml.MetadataField), yaml.Clear(yaml.AnnotationsField))
	}
	return nil
}

// originalFiles reads the files kustomize took objects from, to find each
// object's line there.
type originalFiles struct {
	files   map[string][]*Object
	claimed map[*Object]bool
}

// match finds the object of file that became out: the first unclaimed one of
// the same kind whose name is part of out's name (prefixes and suffixes
// only add to it). Objects kustomize renamed otherwise are not matched.
func (of *originalFiles) match(file string, out *yaml.RNode) *Object {
	objs, ok := of.files[file]
	if !ok {
		objs = readObjects(file)
		of.files[file] = objs
	}
	kind := out.GetKind()
	name := out.GetName()
	for _, o := range objs {
		if !of.claimed[o] && o.Kind == kind && o.Name != "" && strings.Contains(name, o.Name) {
			of.claimed[o] = true
			return o
		}
	}
	return nil
}

// readObjects parses file for its objects, ignoring problems: kustomize
// already read it successfully.
func readObjects(file string) []*Object {
	l := &load{result: &Result{}, seen: map[string]diag.Source{}, ignored: map[string]*ignoredKind{}}
	var objs []*Object
	l.file(file)
	objs = append(objs, l.result.Resources...)
	objs = append(objs, l.result.Secrets...)
	objs = append(objs, l.result.ConfigMaps...)
	objs = append(objs, l.result.Namespaces...)
	return objs
}

func clearLines(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		clearLines(c)
	}
}

// copyLines gives the nodes of out the lines of the same fields in orig,
// where orig has the field and, for scalars, the same value. It reports
// whether out itself got orig's line.
func copyLines(out, orig *yaml.Node) bool {
	if out.Kind != orig.Kind || out.Kind == yaml.ScalarNode && out.Value != orig.Value {
		return false
	}
	out.Line = orig.Line
	switch out.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(out.Content); i += 2 {
			if k, v := yamlnode.Entry(orig, out.Content[i].Value); v != nil && copyLines(out.Content[i+1], v) {
				out.Content[i].Line = k.Line
			}
		}
	case yaml.SequenceNode:
		for i := range min(len(out.Content), len(orig.Content)) {
			copyLines(out.Content[i], orig.Content[i])
		}
	}
	return true
}
