package corpusgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/registry"
)

// ARMTypesDir is where the REST specifications' types (Bicep's types.json per
// provider and api-version) are kept by default: beside the ASO corpus.
func ARMTypesDir(corpusDir string) string { return filepath.Join(corpusDir, "..", "arm-types") }

// Property flags of a types.json ObjectType property.
const (
	flagRequired  = 1
	flagReadOnly  = 2
	flagWriteOnly = 4
)

// maxBodyDepth bounds the walk of recursive types (JSON-schema-like objects
// that contain themselves); no ARM body the operator sends is deeper.
const maxBodyDepth = 24

// typeNode is one element of a types.json array; only what the walk needs.
type typeNode struct {
	Type                 string                  `json:"$type"`
	Name                 string                  `json:"name"`
	Body                 *typeRef                `json:"body"`
	Properties           map[string]typeProperty `json:"properties"`
	AdditionalProperties *typeRef                `json:"additionalProperties"`
	BaseProperties       map[string]typeProperty `json:"baseProperties"`
	Elements             json.RawMessage         `json:"elements"` // a list (UnionType) or a map (DiscriminatedObjectType)
	ItemType             *typeRef                `json:"itemType"`
	Value                any                     `json:"value"`
	Discriminator        string                  `json:"discriminator"`
	Sensitive            bool                    `json:"sensitive"`
}

type typeProperty struct {
	Type  typeRef `json:"type"`
	Flags int     `json:"flags"`
	// Description is read only to find create-only wording; never written out.
	Description string `json:"description"`
}

type typeRef struct {
	Ref string `json:"$ref"`
}

func (r typeRef) index() (int, error) {
	return strconv.Atoi(strings.TrimPrefix(r.Ref, "#/"))
}

// markBodyFacts sets Kind.Body from the REST specification of each kind's ARM
// type and api-version, found in dir/<provider>/<namespace>/<api-version>/types.json.
// Kinds whose type is not in dir keep a nil Body.
func markBodyFacts(dir string, kinds []*registry.Kind) error {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*", "types.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no types.json found (the REST specifications' types, see its README)", dir)
	}
	// Only the files of a namespace and api-version some kind sends are read.
	wanted := map[string]bool{}
	for _, k := range kinds {
		if k.IsARM() {
			ns, _, _ := strings.Cut(k.ARMType, "/")
			wanted[strings.ToLower(ns)+"@"+k.APIVersion] = true
		}
	}
	facts := map[string]*factCollector{} // lower-cased ARM type @ api-version
	for _, f := range files {
		version := filepath.Base(filepath.Dir(f))
		ns := filepath.Base(filepath.Dir(filepath.Dir(f)))
		if !wanted[strings.ToLower(ns)+"@"+version] {
			continue
		}
		if err := readBodyFacts(f, facts); err != nil {
			return err
		}
	}
	for _, k := range kinds {
		if c := facts[strings.ToLower(k.ARMType)+"@"+k.APIVersion]; k.IsARM() && c != nil {
			k.Body = c.facts()
			reached := specPaths(k.Spec)
			beyond := func(p string) bool { return !reached[strings.ToLower(p)] }
			k.Body.Unexpressed = slices.DeleteFunc(sortedNames(c.sent), func(p string) bool { return !beyond(p) })
			k.Body.ReturnedOnly = slices.DeleteFunc(slices.Clone(k.Body.ReadOnly), func(p string) bool { return !beyond(p) })
			k.Body.ReadOnly = slices.DeleteFunc(k.Body.ReadOnly, beyond)
			for _, p := range sortedNames(c.createOnly) {
				addCreateOnly(k, p, registry.CreateOnlyFromRESTSpec, "")
			}
		}
	}
	return nil
}

// specReaches reports whether a field of spec lands at the ARM body path
// (list items as "[]", map values as "{}").
func specReaches(spec *registry.Field, path string) bool {
	return bodyPathsOf(spec)[path]
}

// bodyPathsOf are the ARM body paths the fields of spec land at (list items
// "[]", map values "{}"); a reference is one string in ARM, so nothing
// below one.
func bodyPathsOf(spec *registry.Field) map[string]bool {
	out := map[string]bool{}
	var walk func(f *registry.Field, at string)
	walk = func(f *registry.Field, at string) {
		if f == nil {
			return
		}
		if at != "" {
			out[at] = true
		}
		if f.Ref != "" || f.KeyedByRef {
			return
		}
		switch f.Type {
		case registry.TypeObject:
			for _, c := range f.Fields {
				if c.ARM != nil {
					walk(c, armjson.Join(at, strings.Join(c.ARM, ".")))
				}
			}
		case registry.TypeArray:
			walk(f.Items, at+"[]")
		case registry.TypeMap:
			walk(f.Values, at+"{}")
		}
	}
	walk(spec, "")
	return out
}

// specPaths are the lower-cased ARM body paths the fields of spec land at,
// and the objects on the way to them (a field landing at "properties.x"
// reaches "properties").
func specPaths(spec *registry.Field) map[string]bool {
	out := map[string]bool{"": true}
	for p := range bodyPathsOf(spec) {
		p = strings.ToLower(p)
		out[p] = true
		for i := range len(p) {
			if p[i] == '.' || p[i] == '[' || p[i] == '{' {
				out[p[:i]] = true
			}
		}
	}
	return out
}

// oneWay matches the REST specifications' wording for a setting that, once
// on, stays on: "Once set to true, it cannot be reverted to false",
// "Enabling this functionality is irreversible", "It cannot be disabled
// once it is enabled", "enabled by default and cannot be disabled".
var oneWay = regexp.MustCompile(`(?i)once set to true, it cannot be reverted|enabling this functionality is irreversible|cannot be disabled (once|after) (it is )?enabled|this change is irreversible|enabled by default( today)? and cannot be disabled|enabled by default for all [a-z ]+ and is immutable`)

// ordered matches a list's description that speaks of its order ("cipher
// suites to be enabled in the specified order").
var ordered = regexp.MustCompile(`(?i)\border\b`)

// typesFiles reads types.json files once each: the body facts and the
// operator facts both walk them.
var typesFiles sync.Map // path -> func() ([]typeNode, error)

// readTypes parses one types.json file.
func readTypes(file string) ([]typeNode, error) {
	read, _ := typesFiles.LoadOrStore(file, sync.OnceValues(func() ([]typeNode, error) {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var nodes []typeNode
		if err := json.Unmarshal(data, &nodes); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		return nodes, nil
	}))
	return read.(func() ([]typeNode, error))()
}

// readBodyFacts adds the facts of every resource type in one types.json
// file. A type listed more than once (once per scope, or in two files) gets
// the facts of every listing.
func readBodyFacts(file string, out map[string]*factCollector) error {
	nodes, err := readTypes(file)
	if err != nil {
		return err
	}
	w := &bodyWalker{file: file, nodes: nodes}
	for _, n := range nodes {
		if n.Type != "ResourceType" || n.Body == nil {
			continue
		}
		key := strings.ToLower(n.Name)
		w.armType, _, _ = strings.Cut(n.Name, "@")
		if out[key] == nil {
			out[key] = newFactCollector()
		}
		if err := w.walk(out[key], *n.Body, "", 0, map[int]bool{}); err != nil {
			return err
		}
	}
	return nil
}

type bodyWalker struct {
	file  string
	nodes []typeNode
	// armType is the resource type whose body is walked (createOnlyText's subject).
	armType string
}

// factCollector gathers the facts of one resource body.
type factCollector struct {
	writeOnly, required, sensitive, maps map[string]bool
	// readOnly are the read-only properties met, sent are the others: a
	// path read-only in one listing or alternative and sendable in another
	// is sendable.
	readOnly, sent map[string]bool
	enums          map[string][]string
	selectors      map[string]registry.Selector
	// oneWay are settings the specification says stay on once on.
	oneWay map[string]bool
	// enumLists are lists of enum values; orderedLists those whose
	// description speaks of their order.
	enumLists, orderedLists map[string]bool
	// createOnly are the properties whose description says they are set
	// only at creation (createOnlyText).
	createOnly map[string]bool
}

func newFactCollector() *factCollector {
	return &factCollector{writeOnly: map[string]bool{}, required: map[string]bool{}, sensitive: map[string]bool{},
		maps: map[string]bool{}, readOnly: map[string]bool{}, sent: map[string]bool{}, enums: map[string][]string{}, selectors: map[string]registry.Selector{}, oneWay: map[string]bool{},
		enumLists: map[string]bool{}, orderedLists: map[string]bool{}, createOnly: map[string]bool{}}
}

func (c *factCollector) facts() *registry.BodyFacts {
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	readOnly := map[string]bool{}
	for p := range c.readOnly {
		if !c.sent[p] {
			readOnly[p] = true
		}
	}
	f := &registry.BodyFacts{WriteOnly: keys(c.writeOnly), Required: keys(c.required),
		Sensitive: keys(c.sensitive), Maps: keys(c.maps), ReadOnly: keys(readOnly), OneWay: keys(c.oneWay)}
	for p := range c.enumLists {
		if !c.orderedLists[p] {
			f.EnumSets = append(f.EnumSets, p)
		}
	}
	sort.Strings(f.EnumSets)
	for p, vs := range c.enums {
		f.Enums = append(f.Enums, registry.Enum{Path: p, Values: vs})
	}
	sort.Slice(f.Enums, func(i, j int) bool { return f.Enums[i].Path < f.Enums[j].Path })
	for _, s := range c.selectors {
		f.Selectors = append(f.Selectors, s)
	}
	sort.Slice(f.Selectors, func(i, j int) bool { return f.Selectors[i].Path < f.Selectors[j].Path })
	return f
}

// walk records the facts of the type ref points at, standing at path (keys
// joined by ".", list items as "[]", map values as "{}"). Types on the way
// down (onPath) are not entered again: recursive types end there.
func (w *bodyWalker) walk(c *factCollector, ref typeRef, path string, depth int, onPath map[int]bool) error {
	i, err := ref.index()
	if err != nil || i < 0 || i >= len(w.nodes) {
		return fmt.Errorf("%s: bad type reference %q", w.file, ref.Ref)
	}
	if onPath[i] || depth > maxBodyDepth {
		return nil
	}
	onPath[i] = true
	defer delete(onPath, i)
	n := &w.nodes[i]
	switch n.Type {
	case "ObjectType", "DiscriminatedObjectType":
		props, err := w.properties(n)
		if err != nil {
			return err
		}
		if n.Type == "DiscriminatedObjectType" && w.createOnly(n) {
			// Every alternative exists only in the PUT model: so does the
			// discriminator that picks one.
			c.writeOnly[armjson.Join(path, n.Discriminator)] = true
		}
		w.selector(c, path, props)
		for _, name := range sortedNames(props) {
			for _, p := range props[name] {
				child := armjson.Join(path, name)
				if p.Flags&flagWriteOnly != 0 {
					c.writeOnly[child] = true
				}
				if p.Flags&flagRequired != 0 {
					c.required[child] = true
				}
				if w.onOff(p.Type) && oneWay.MatchString(p.Description) {
					c.oneWay[child] = true
				}
				if items := w.itemType(p.Type); items != nil && len(w.literals(*items)) > 0 {
					c.enumLists[child] = true
					if ordered.MatchString(p.Description) {
						c.orderedLists[child] = true
					}
				}
				if p.Flags&flagReadOnly != 0 && p.Flags&flagWriteOnly == 0 {
					c.readOnly[child] = true
					continue // never sent: nothing below it is compared
				}
				c.sent[child] = true
				if createOnlyText(p.Description, w.armType+" "+child) {
					c.createOnly[child] = true
				}
				if err := w.walk(c, p.Type, child, depth+1, onPath); err != nil {
					return err
				}
			}
		}
		if n.AdditionalProperties != nil {
			c.maps[path] = true
			return w.walk(c, *n.AdditionalProperties, path+"{}", depth+1, onPath)
		}
	case "ArrayType":
		if n.ItemType != nil {
			return w.walk(c, *n.ItemType, path+"[]", depth+1, onPath)
		}
	case "StringType":
		if n.Sensitive {
			c.sensitive[path] = true
		}
	case "StringLiteralType":
		c.addEnum(path, n.Value)
	case "UnionType":
		var elems []typeRef
		if err := json.Unmarshal(n.Elements, &elems); err != nil {
			return fmt.Errorf("%s: union %d: %v", w.file, i, err)
		}
		for _, e := range elems {
			if err := w.walk(c, e, path, depth, onPath); err != nil {
				return err
			}
		}
	}
	return nil
}

// properties are an object's properties; for a discriminated object, the
// base properties and those of every alternative (they share the path).
func (w *bodyWalker) properties(n *typeNode) (map[string][]typeProperty, error) {
	out := map[string][]typeProperty{}
	for name, p := range n.Properties {
		out[name] = append(out[name], p)
	}
	for name, p := range n.BaseProperties {
		out[name] = append(out[name], p)
	}
	if n.Type != "DiscriminatedObjectType" {
		return out, nil
	}
	var elems map[string]typeRef
	if err := json.Unmarshal(n.Elements, &elems); err != nil {
		return nil, fmt.Errorf("%s: discriminated object %s: %v", w.file, n.Name, err)
	}
	for _, key := range sortedNames(elems) {
		i, err := elems[key].index()
		if err != nil || i < 0 || i >= len(w.nodes) {
			return nil, fmt.Errorf("%s: bad type reference %q", w.file, elems[key].Ref)
		}
		for name, p := range w.nodes[i].Properties {
			out[name] = append(out[name], p)
		}
	}
	return out, nil
}

// createOnly reports a discriminated object whose alternatives carry only
// write-only properties besides the discriminator (a PUT model of
// create modes merged with a GET model that has none of them).
func (w *bodyWalker) createOnly(n *typeNode) bool {
	var elems map[string]typeRef
	if json.Unmarshal(n.Elements, &elems) != nil || len(elems) == 0 {
		return false
	}
	own := 0
	for _, ref := range elems {
		i, err := ref.index()
		if err != nil || i < 0 || i >= len(w.nodes) {
			return false
		}
		for name, p := range w.nodes[i].Properties {
			if name == n.Discriminator {
				continue
			}
			if p.Flags&flagWriteOnly == 0 {
				return false
			}
			own++
		}
	}
	return own > 0
}

// selector records an enum property whose values name sibling object
// properties (filterType SqlFilter or CorrelationFilter beside sqlFilter and
// correlationFilter): its value says which sibling applies.
func (w *bodyWalker) selector(c *factCollector, path string, props map[string][]typeProperty) {
	siblings := map[string]string{}
	for name, ps := range props {
		for _, p := range ps {
			if i, err := p.Type.index(); err == nil && i >= 0 && i < len(w.nodes) && w.nodes[i].Type == "ObjectType" {
				siblings[strings.ToLower(name)] = name
			}
		}
	}
	for _, name := range sortedNames(props) {
		for _, p := range props[name] {
			var alternatives []string
			for _, v := range w.literals(p.Type) {
				if sib, ok := siblings[strings.ToLower(v)]; ok && !slices.Contains(alternatives, sib) {
					alternatives = append(alternatives, sib)
				}
			}
			if len(alternatives) >= 2 {
				sort.Strings(alternatives)
				c.selectors[armjson.Join(path, name)] = registry.Selector{Path: armjson.Join(path, name), Alternatives: alternatives}
			}
		}
	}
}

// itemType is the item type of an array type, else nil.
func (w *bodyWalker) itemType(ref typeRef) *typeRef {
	i, err := ref.index()
	if err != nil || i < 0 || i >= len(w.nodes) || w.nodes[i].Type != "ArrayType" {
		return nil
	}
	return w.nodes[i].ItemType
}

// onOff reports a boolean, or an enum of the two values Enabled and
// Disabled: a setting that is on or off.
func (w *bodyWalker) onOff(ref typeRef) bool {
	i, err := ref.index()
	if err != nil || i < 0 || i >= len(w.nodes) {
		return false
	}
	if w.nodes[i].Type == "BooleanType" {
		return true
	}
	values := w.literals(ref)
	slices.Sort(values)
	return slices.Equal(values, []string{"Disabled", "Enabled"})
}

// literals are the string literals a type allows (a literal or a union of them).
func (w *bodyWalker) literals(ref typeRef) []string {
	i, err := ref.index()
	if err != nil || i < 0 || i >= len(w.nodes) {
		return nil
	}
	n := &w.nodes[i]
	switch n.Type {
	case "StringLiteralType":
		if s, ok := n.Value.(string); ok {
			return []string{s}
		}
	case "UnionType":
		var elems []typeRef
		if json.Unmarshal(n.Elements, &elems) != nil {
			return nil
		}
		var out []string
		for _, e := range elems {
			out = append(out, w.literals(e)...)
		}
		return out
	}
	return nil
}

// addEnum appends a string literal to the enum values at path, in the REST
// specification's order (ARM may return a value as its index in that order).
func (c *factCollector) addEnum(path string, v any) {
	s, ok := v.(string)
	if !ok || slices.Contains(c.enums[path], s) {
		return
	}
	c.enums[path] = append(c.enums[path], s)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
