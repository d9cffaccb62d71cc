package registry

import (
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:generate go run ./gen --corpus ../../../shared/aso --out data

// data is written by ./gen: data/index.json.gz lists every Kind without its
// schemas; data/groups/<group>.json.gz holds the schemas of one group.
//
//go:embed data
var data embed.FS

// Registry answers questions about ASO kinds. The index (types, scopes,
// owners) is decoded up front; the spec and status schemas of a group are
// decoded the first time a kind of that group is looked up. A Registry is
// safe for concurrent use.
type Registry struct {
	fsys     fs.FS
	kinds    map[GVK]*Kind
	all      []GVK
	versions map[GroupKind][]string
	groups   map[string]*lazyGroup
}

// lazyGroup decodes one group file on first use.
type lazyGroup struct {
	once sync.Once
	err  error
}

// groupFile mirrors the generator's layout of a group file: a table of
// schema nodes, children by index, shared between kinds where equal.
type groupFile struct {
	Nodes []wireNode `json:"nodes"`
	Kinds []struct {
		Version string `json:"version"`
		Kind    string `json:"kind"`
		Spec    *int   `json:"spec"`
		Status  *int   `json:"status"`
		Body    *int   `json:"body"`
		// CreateOnly are the kind's Kind.CreateOnly.
		CreateOnly []CreateOnly `json:"createOnly"`
	} `json:"kinds"`
	Bodies []*BodyFacts `json:"bodies"`
}

type wireNode struct {
	*Field
	Fields []int `json:"fields"`
	Items  *int  `json:"items"`
	Values *int  `json:"values"`
	Inline bool  `json:"inline"` // ARM is empty but non-nil (a one-of alternative)
}

var defaultRegistry = sync.OnceValue(func() *Registry {
	dir, err := fs.Sub(data, "data")
	if err == nil {
		var r *Registry
		if r, err = load(dir); err == nil {
			return r
		}
	}
	// The data is embedded at build time; failing to read it is a build defect.
	panic(fmt.Sprintf("registry: embedded data: %v", err))
})

// Default returns the registry embedded in the binary.
func Default() *Registry { return defaultRegistry() }

// load reads the index from fsys; group files are read lazily.
func load(fsys fs.FS) (*Registry, error) {
	var index []*Kind
	if err := readGzipJSON(fsys, "index.json.gz", &index); err != nil {
		return nil, err
	}
	r := &Registry{
		fsys:     fsys,
		kinds:    make(map[GVK]*Kind, len(index)),
		all:      make([]GVK, 0, len(index)),
		versions: map[GroupKind][]string{},
		groups:   map[string]*lazyGroup{},
	}
	for _, k := range index {
		r.kinds[k.GVK] = k
		r.all = append(r.all, k.GVK)
		gk := GroupKind{Group: k.Group, Kind: k.Kind}
		r.versions[gk] = append(r.versions[gk], k.Version)
		if r.groups[k.Group] == nil {
			r.groups[k.Group] = &lazyGroup{}
		}
	}
	sort.Slice(r.all, func(i, j int) bool { return lessGVK(r.all[i], r.all[j]) })
	for _, vs := range r.versions {
		sort.Slice(vs, func(i, j int) bool { return versionLess(vs[i], vs[j]) })
	}
	return r, nil
}

// Lookup returns the kind served as group/version/kind, with its schemas and body facts.
// The Kind and its Fields are shared (equal subtrees are one value): callers
// must not modify them.
func (r *Registry) Lookup(group, version, kind string) (*Kind, bool) {
	k, ok := r.kinds[GVK{Group: group, Version: version, Kind: kind}]
	if !ok {
		return nil, false
	}
	if err := r.loadGroup(group); err != nil {
		panic(fmt.Sprintf("registry: embedded data: %v", err))
	}
	return k, true
}

// Versions returns the served versions of a kind, oldest first, or nil.
func (r *Registry) Versions(group, kind string) []string {
	return append([]string(nil), r.versions[GroupKind{Group: group, Kind: kind}]...)
}

// All returns every served group/version/kind, sorted by group, version and kind.
func (r *Registry) All() []GVK { return append([]GVK(nil), r.all...) }

// loadGroup fills in the schemas of every kind in group, once.
func (r *Registry) loadGroup(group string) error {
	g := r.groups[group]
	g.once.Do(func() {
		name := path.Join("groups", group+".json.gz")
		var file groupFile
		if g.err = readGzipJSON(r.fsys, name, &file); g.err != nil {
			return
		}
		nodes := make([]*Field, len(file.Nodes))
		at := func(i *int) (*Field, error) {
			switch {
			case i == nil:
				return nil, nil
			case *i < 0 || *i >= len(nodes) || nodes[*i] == nil:
				return nil, fmt.Errorf("%s: node index %d out of order", name, *i)
			}
			return nodes[*i], nil
		}
		// Children precede their parents in the table.
		for i, n := range file.Nodes {
			f := n.Field
			if n.Inline {
				f.ARM = []string{}
			}
			if len(n.Fields) > 0 {
				f.Fields = make([]*Field, len(n.Fields))
			}
			for j := range n.Fields {
				if f.Fields[j], g.err = at(&n.Fields[j]); g.err != nil {
					return
				}
			}
			if f.Items, g.err = at(n.Items); g.err != nil {
				return
			}
			if f.Values, g.err = at(n.Values); g.err != nil {
				return
			}
			nodes[i] = f
		}
		for _, e := range file.Kinds {
			k := r.kinds[GVK{Group: group, Version: e.Version, Kind: e.Kind}]
			if k == nil {
				g.err = fmt.Errorf("%s: %s/%s is not in the index", name, e.Version, e.Kind)
				return
			}
			if k.Spec, g.err = at(e.Spec); g.err != nil {
				return
			}
			if k.Status, g.err = at(e.Status); g.err != nil {
				return
			}
			k.CreateOnly = e.CreateOnly
			if e.Body != nil {
				if *e.Body < 0 || *e.Body >= len(file.Bodies) {
					g.err = fmt.Errorf("%s: body facts index %d out of range", name, *e.Body)
					return
				}
				k.Body = file.Bodies[*e.Body]
			}
		}
	})
	return g.err
}

func readGzipJSON(fsys fs.FS, name string, v any) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func lessGVK(a, b GVK) bool {
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	if a.Version != b.Version {
		return a.Version < b.Version
	}
	return a.Kind < b.Kind
}

// versionLess orders ASO versions by the ARM api-version date they carry
// (v1api20201101, v20250301, v1api20200801preview); on the same date a
// preview comes before the stable version and the older v1api naming before
// the newer vYYYYMMDD one. Versions without a date (v1) come first.
func versionLess(a, b string) bool {
	ka, kb := versionKey(a), versionKey(b)
	if ka != kb {
		return ka < kb
	}
	return a < b
}

func versionKey(v string) string {
	rest := strings.TrimPrefix(v, "v1api")
	style := "0"
	if rest == v {
		rest, style = strings.TrimPrefix(v, "v"), "1"
	}
	if len(rest) < 8 || strings.Trim(rest[:8], "0123456789") != "" {
		return "" // no date: before every dated version
	}
	stable := "1"
	if strings.HasSuffix(rest, "preview") {
		stable = "0"
	}
	return rest[:8] + stable + style
}
