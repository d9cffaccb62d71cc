package loader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Options says what to load. The zero Options loads nothing.
type Options struct {
	// Paths are files, folders (searched recursively, in lexical order, for
	// .yaml, .yml and .json files, skipping names that start with ".") and "-"
	// for Stdin. A file named explicitly is read whatever its extension.
	Paths []string
	// Kustomize are directories to `kustomize build` first, reading the disk.
	Kustomize []string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Namespace is given to objects without metadata.namespace; "" means "default".
	Namespace string
	// AllowRemote lets kustomize fetch the remote bases a kustomization
	// names (http(s) URLs, git repositories); without it such a
	// kustomization is refused before anything is fetched.
	AllowRemote bool
}

// Result holds the objects of the input, each list in input order.
type Result struct {
	// Resources are the ASO objects: apiVersion group ending in
	// ".azure.com", or misspelt so (see looksLikeASOGroup), which the graph
	// then reports as unknown.
	Resources  []*Object
	Secrets    []*Object // core v1 Secret
	ConfigMaps []*Object // core v1 ConfigMap
	// Namespaces are core v1 Namespaces: their reconcile-policy annotation
	// is the policy of the resources in them that set none.
	Namespaces []*Object
	// Others are objects of kinds azk does not read (a Deployment, a CRD of
	// another operator), kept so that a later step can tell what the
	// manifests still declare: a three-way plan must never delete a
	// resource the head still declares in a form azk does not read.
	Others []*Object
}

// Load reads every input of opts. The returned List holds every error and
// warning found; the Result holds the valid objects even when there are errors.
func Load(opts Options) (*Result, diag.List) {
	return loadIn(opts, "")
}

// loadIn is Load following symbolic links only inside the tree within,
// when not "" (see load.within).
func loadIn(opts Options, within string) (*Result, diag.List) {
	l := &load{
		within:      within,
		namespace:   opts.Namespace,
		allowRemote: opts.AllowRemote,
		result:      &Result{},
		seen:        map[string]diag.Source{},
		ignored:     map[string]*ignoredKind{},
	}
	if l.namespace == "" {
		l.namespace = "default"
	}
	for _, p := range opts.Paths {
		l.expect(p, func() { l.path(p, opts.Stdin) })
	}
	for _, dir := range opts.Kustomize {
		l.expect(dir, func() { l.kustomize(dir) })
	}
	for _, key := range l.ignoredOrder {
		ik := l.ignored[key]
		noun := "objects"
		if ik.count == 1 {
			noun = "object"
		}
		l.diags.Add(diag.Warningf(diag.Source{}, "", "", "ignored %d %s of kind %s (first at %s)", ik.count, noun, key, ik.first))
	}
	return l.result, l.diags
}

// load is the state of one Load call.
type load struct {
	// within, when not "", is the tree an earlier version was extracted
	// to or is kept in: links are followed only inside it (resolveIn).
	within       string
	namespace    string
	allowRemote  bool
	result       *Result
	diags        diag.List
	seen         map[string]diag.Source // duplicate detection: namespace/group/kind/name
	ignored      map[string]*ignoredKind
	ignoredOrder []string // keys of ignored in first-seen order
}

type ignoredKind struct {
	count int
	first diag.Source
}

// expect reads one input and reports an error when it yields nothing azk
// reads (an empty folder, a file of other kinds, a path that names no
// manifests): most likely not the input meant. Inputs that failed to read
// have said so already.
func (l *load) expect(input string, read func()) {
	before := len(l.result.Resources) + len(l.result.Secrets) + len(l.result.ConfigMaps)
	errors, ignored := l.diags.Errors(), l.ignoredCount()
	read()
	if len(l.result.Resources)+len(l.result.Secrets)+len(l.result.ConfigMaps) > before || l.diags.Errors() > errors {
		return
	}
	what := "it is empty"
	if info, err := os.Stat(input); err == nil && info.IsDir() && input != stdinName {
		what = "no .yaml, .yml or .json file with a document in it"
	}
	if n := l.ignoredCount() - ignored; n > 0 {
		what = fmt.Sprintf("only objects of other kinds (%d ignored)", n)
	}
	l.diags.Add(diag.Errorf(diag.Source{File: input}, "", "", "holds no ASO resource, Secret or ConfigMap: %s", what))
}

func (l *load) ignoredCount() int {
	n := 0
	for _, ik := range l.ignored {
		n += ik.count
	}
	return n
}

// stdinName is the file name of objects read from standard input.
const stdinName = "-"

func (l *load) path(p string, stdin io.Reader) {
	if p == stdinName {
		if stdin == nil {
			l.diags.Add(diag.Errorf(diag.Source{File: stdinName}, "", "", "standard input requested but none available"))
			return
		}
		data, err := readBounded(stdin, MaxFileBytes, 0)
		var refused *InputError
		if errors.As(err, &refused) {
			l.diags.Add(diag.Errorf(diag.Source{File: stdinName}, "", "", "%s", refused.Reason))
			return
		}
		if err != nil {
			l.diags.Add(diag.Errorf(diag.Source{File: stdinName}, "", "", "reading standard input: %v", err))
			return
		}
		l.stream(stdinName, data, false)
		return
	}
	info, err := os.Stat(p)
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: p}, "", "", "%s", describeFSError(err)))
		return
	}
	if !info.IsDir() {
		l.file(p)
		return
	}
	l.folder(p, map[string]bool{})
}

// folder reads the manifests under dir in lexical order, following
// symbolic links to folders (dir itself may be one) as to files, each real
// folder once; names starting with "." are skipped. Files keep their path
// under dir.
func (l *load) folder(dir string, seen map[string]bool) {
	real, err := l.evalSymlinks(dir)
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: dir}, "", "", "%s", describeFSError(err)))
		return
	}
	if seen[real] {
		return // a link back up: read once
	}
	seen[real] = true
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(real, path)
		shown := filepath.Join(dir, rel)
		if err != nil {
			l.diags.Add(diag.Errorf(diag.Source{File: shown}, "", "", "%s", describeFSError(err)))
			return nil
		}
		if path != real && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if l.within != "" && !l.linkWithin(shown, path, d.Name()) {
				return nil
			}
			if info, err := os.Stat(path); err == nil && info.IsDir() {
				l.folder(shown, seen)
				return nil
			}
		}
		if !d.IsDir() && isManifestFile(d.Name()) {
			l.file(shown)
		}
		return nil
	})
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: dir}, "", "", "%s", describeFSError(err)))
	}
}

// evalSymlinks is filepath.EvalSymlinks, inside l.within when it is set.
func (l *load) evalSymlinks(path string) (string, error) {
	if l.within != "" {
		return resolveIn(l.within, path)
	}
	return filepath.EvalSymlinks(path)
}

// linkWithin reports whether the link at path, shown as shown, is to be
// followed as the loader follows links without l.within. A link that
// dangles or loops is treated as then: an error under a manifest's name,
// else skipped; one leading out of the tree is an error whatever its name,
// since what it led to then is not known.
func (l *load) linkWithin(shown, path, name string) bool {
	_, err := resolveIn(l.within, path)
	if err == nil {
		return true
	}
	var le *linkError
	if !errors.As(err, &le) || le.outside || isManifestFile(name) {
		l.diags.Add(diag.Errorf(diag.Source{File: shown}, "", "", "%s", describeFSError(err)))
	}
	return false
}

func describeFSError(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

func isManifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func (l *load) file(path string) {
	data, err := ReadFile(path, MaxFileBytes)
	if err != nil {
		l.diags.Add(diag.Errorf(diag.Source{File: path}, "", "", "%s", describeFSError(err)))
		return
	}
	l.stream(path, data, slices.Contains(konfig.RecognizedKustomizationFileNames(), filepath.Base(path)))
}

// stream adds the objects of one file. In a kustomization file, documents
// without apiVersion and kind are Kustomizations, as kustomize itself reads them.
func (l *load) stream(file string, data []byte, isKustomization bool) {
	decodeStream(file, data, &l.diags, func(n *yaml.Node) {
		if !l.checkStructure(file, n) {
			return
		}
		if isKustomization && yamlnode.Value(n, "apiVersion") == nil && yamlnode.Value(n, "kind") == nil {
			l.ignore("kustomize.config.k8s.io/v1beta1 Kustomization", diag.Source{File: file, Line: n.Line})
			return
		}
		l.node(file, n)
	})
}

// checkStructure reports what breaks the document bounds or sets a key twice;
// it returns false when the document cannot be used at all.
func (l *load) checkStructure(file string, n *yaml.Node) bool {
	problems, ok := structure(file, n)
	if len(problems) == 0 {
		return ok
	}
	o := l.identify(diag.Source{}, yaml.NewRNode(n))
	for _, d := range problems {
		if o.Kind != "" && o.Name != "" {
			d.Resource = o.Address()
		}
		l.diags.Add(d)
	}
	return ok
}

// node checks one top-level node and routes the object it describes;
// `kind: List` is expanded so that each item keeps its own line.
func (l *load) node(file string, n *yaml.Node) {
	src := diag.Source{File: file, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		l.diags.Add(diag.Errorf(src, "", "", "expected a Kubernetes object (a mapping), found a %s", nodeKindName(n)))
		return
	}
	o := l.identify(src, yaml.NewRNode(n))
	if o.Kind == "List" && o.APIVersion != "" {
		items := yamlnode.Value(n, "items")
		if items == nil || items.Kind != yaml.SequenceNode {
			if items != nil && !yamlnode.IsNull(items) {
				l.diags.Add(diag.Errorf(src, "", "items", "List items must be a sequence"))
			}
			return
		}
		for _, item := range items.Content {
			if !yamlnode.IsNull(item) {
				l.node(file, item)
			}
		}
		return
	}
	l.add(o)
}

// identify is the object node describes, read from src: its apiVersion,
// kind, name and namespace (the default namespace when it sets none).
func (l *load) identify(src diag.Source, node *yaml.RNode) *Object {
	n := node.YNode()
	meta := yamlnode.Value(n, "metadata")
	o := &Object{
		Source:     src,
		APIVersion: yamlnode.String(n, "apiVersion"),
		Kind:       yamlnode.String(n, "kind"),
		Name:       yamlnode.String(meta, "name"),
		Namespace:  yamlnode.String(meta, "namespace"),
		Node:       node,
	}
	if o.Namespace == "" {
		o.Namespace = l.namespace
	}
	return o
}

// add validates the identity of o and routes it into the result.
func (l *load) add(o *Object) {
	missing := false
	for _, f := range []struct{ field, value string }{
		{"apiVersion", o.APIVersion},
		{"kind", o.Kind},
		{"metadata.name", o.Name},
	} {
		if f.value == "" {
			l.diags.Add(diag.Errorf(o.Source, describe(o), f.field, "missing %s", f.field))
			missing = true
		}
	}
	if missing {
		return
	}

	var into *[]*Object
	switch {
	case looksLikeASOGroup(o.Group()):
		into = &l.result.Resources
	case o.IsSecret():
		into = &l.result.Secrets
	case o.IsConfigMap():
		into = &l.result.ConfigMaps
	case o.IsNamespace():
		into = &l.result.Namespaces
	default:
		l.ignore(o.APIVersion+" "+o.Kind, o.Source)
		l.result.Others = append(l.result.Others, o)
		return
	}

	key := o.Namespace + "/" + o.Group() + "/" + o.Kind + "/" + o.Name
	if first, dup := l.seen[key]; dup {
		l.diags.Add(diag.Errorf(o.Source, o.Address(), "", "duplicate object, first defined at %s", first))
		return
	}
	l.seen[key] = o.Source
	if o.IsSecret() || o.IsConfigMap() {
		l.diags = append(l.diags, checkData(o)...)
	}
	*into = append(*into, o)
}

func (l *load) ignore(key string, src diag.Source) {
	ik := l.ignored[key]
	if ik == nil {
		ik = &ignoredKind{first: src}
		l.ignored[key] = ik
		l.ignoredOrder = append(l.ignoredOrder, key)
	}
	ik.count++
}

// describe names an object that may lack parts of its identity, for messages.
func describe(o *Object) string {
	kind := o.Kind
	if kind == "" {
		kind = "(no kind)"
	}
	if o.Name == "" {
		return kind
	}
	return fmt.Sprintf("%s %s", kind, o.Name)
}

func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}
