package corpusgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/registry"
)

// armTypesFile is the generated table of registry.ARMType, read by the registry's loader.
const armTypesFile = "armtypes.json.gz"

// buildARMTypes derives the per-ARM-type facts the emulator answers by: the
// api-versions each type serves (the kinds', the REST specs' in
// ../arm-types beside the corpus and every version its api-versions.json
// publishes, when present), how ARM answered PUTs,
// what it filled in and how long its operations took (the recordings),
// the POST actions, fixed names and read-only types the REST specs define,
// and which types the operator cannot delete (the kinds).
func buildARMTypes(dir, armTypes string, recs []recording, kinds []*registry.Kind) ([]registry.ARMType, error) {
	t := armTypeTable{}
	for _, k := range kinds {
		if k.ARMType != "" {
			f := t.get(k.ARMType)
			f.versions[k.APIVersion] = true
			f.kinds++
			if k.NoDelete {
				f.noDeleteKinds++
			}
			if k.FixedName != "" {
				f.kindNames = append(f.kindNames, k.FixedName)
			}
		}
	}
	if err := t.restSpecs(armTypes); err != nil {
		return nil, err
	}
	for _, rec := range recs {
		t.putAnswers(rec)
		t.filled(rec)
		t.actionAnswers(rec)
		t.timings(rec)
	}
	// Last, so that a type the other sources name keeps their spelling.
	if err := t.publishedVersions(armTypes); err != nil {
		return nil, err
	}
	return t.facts(), nil
}

// WriteARMTypes writes the table next to the registry's index in dir.
func WriteARMTypes(types []registry.ARMType, dir string) error {
	return writeGzipJSON(filepath.Join(dir, armTypesFile), types)
}

type armTypeTable map[string]*armTypeFacts // lower-cased type

type armTypeFacts struct {
	typ            string
	versions       map[string]bool
	create, update map[registry.PutAnswer]int
	// filled: path -> template text -> recordings showing it.
	filled  map[string]map[string]map[string]bool
	subIDs  map[registry.SubResourceID]bool
	actions map[string]*registry.Shape
	// actionVersion is the api-version each action's shape was read at.
	actionVersion map[string]string
	// ops are the recorded long-running operations, by verb.
	ops [3][]recordedOp
	// kinds counts the served kinds mapping to the type, noDeleteKinds
	// those with Kind.NoDelete; kindNames are their fixed names.
	kinds, noDeleteKinds int
	kindNames            []string
	// specVersion is the newest api-version the REST specs list the type
	// at; specNames and readOnly are what its listings say: the literal
	// names allowed, and that none can be written.
	specVersion string
	specNames   []string
	readOnly    bool
}

func (t armTypeTable) get(typ string) *armTypeFacts {
	k := strings.ToLower(typ)
	f := t[k]
	if f == nil {
		f = &armTypeFacts{typ: typ, versions: map[string]bool{}, create: map[registry.PutAnswer]int{}, update: map[registry.PutAnswer]int{},
			filled: map[string]map[string]map[string]bool{}, subIDs: map[registry.SubResourceID]bool{},
			actions: map[string]*registry.Shape{}, actionVersion: map[string]string{}}
		t[k] = f
	}
	return f
}

// putAnswers counts, per type, the answers to successful PUTs: the first
// PUT of a path creates, later ones update.
func (t armTypeTable) putAnswers(rec recording) {
	seen := map[string]bool{}
	for i := range rec.Interactions {
		in := &rec.Interactions[i]
		if in.Request.Method != "PUT" || in.Response.Code < 200 || in.Response.Code >= 300 {
			continue
		}
		path := strings.ToLower(in.Path())
		typ := armTypeOfRecordedPath(in.Path())
		if typ == "" {
			continue
		}
		a := registry.PutAnswer{Status: in.Response.Code}
		switch {
		case header(in.Response.Headers, "Azure-AsyncOperation") != "":
			a.Async = "Azure-AsyncOperation"
		case header(in.Response.Headers, "Location") != "":
			a.Async = "Location"
		}
		f := t.get(typ)
		if seen[path] {
			f.update[a]++
		} else {
			f.create[a]++
		}
		seen[path] = true
	}
}

// armTypeOfRecordedPath is armTypeOfPath, with resource groups themselves.
func armTypeOfRecordedPath(path string) string {
	if typ := armTypeOfPath(path); typ != "" {
		return typ
	}
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) == 4 && strings.EqualFold(segs[2], "resourceGroups") {
		return "Microsoft.Resources/resourceGroups"
	}
	return ""
}

func header(h map[string][]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// filled compares each successful PUT with the settled GET after it, and
// notes the values under "properties" that ARM added and the sub-resource IDs it gave.
func (t armTypeTable) filled(rec recording) {
	ins := rec.Interactions
	for i := range ins {
		put := &ins[i]
		if put.Request.Method != "PUT" || put.Response.Code >= 300 {
			continue
		}
		var sent map[string]any
		if json.Unmarshal([]byte(put.Request.Body), &sent) != nil {
			continue
		}
		path := put.Path()
		typ := armTypeOfRecordedPath(path)
		stored := storedAfter(ins, i, path)
		if typ == "" || stored == nil {
			continue
		}
		id, _ := stored["id"].(string)
		if id == "" {
			continue
		}
		name := id[strings.LastIndexByte(id, '/')+1:]
		location, _ := stored["location"].(string)
		m := masker{id: id, name: name, location: location}
		f := t.get(typ)
		sentProps, _ := sent["properties"].(map[string]any)
		storedProps, _ := stored["properties"].(map[string]any)
		f.addedValues("properties", sentProps, storedProps, m, rec.name)
		f.subResourceIDs("", sent, stored, id)
	}
}

func (f *armTypeFacts) addedValues(path string, sent, stored map[string]any, m masker, file string) {
	for k, v := range stored {
		p := path + "." + k
		sv, wasSent := armjson.LookupFold(sent, k)
		if vm, ok := v.(map[string]any); ok && len(vm) > 0 {
			// Objects are learnt leaf by leaf: one value that varies (a
			// zone in an endpoint) does not hide the others.
			sm, _ := sv.(map[string]any)
			f.addedValues(p, sm, vm, m, file)
			continue
		}
		if !wasSent || sv == nil {
			text := jsonText(m.mask(v))
			if f.filled[p] == nil {
				f.filled[p] = map[string]map[string]bool{}
			}
			if f.filled[p][text] == nil {
				f.filled[p][text] = map[string]bool{}
			}
			f.filled[p][text][file] = true
		}
	}
}

// subResourceIDs finds arrays of named objects sent without IDs whose stored
// items carry {id}/{segment}/{name}.
func (f *armTypeFacts) subResourceIDs(path string, sent, stored any, id string) {
	switch s := sent.(type) {
	case map[string]any:
		st, _ := stored.(map[string]any)
		for k, v := range s {
			sv, ok := armjson.LookupFold(st, k)
			if ok {
				f.subResourceIDs(armjson.Join(path, k), v, sv, id)
			}
		}
	case []any:
		st, _ := stored.([]any)
		if !armjson.Named(s) {
			return
		}
		seg := path[strings.LastIndexByte(path, '.')+1:]
		for _, item := range s {
			m := item.(map[string]any)
			if _, has := m["id"]; has {
				continue
			}
			name := m["name"].(string)
			j := armjson.IndexByName(st, name)
			if j < 0 {
				continue
			}
			got, _ := st[j].(map[string]any)["id"].(string)
			if strings.EqualFold(got, id+"/"+seg+"/"+name) {
				f.subIDs[registry.SubResourceID{Path: path, Segment: seg}] = true
			}
		}
	}
}

var (
	guidPattern = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$`)
	etagPattern = regexp.MustCompile(`^(W/)?"[^"]*"$`)
)

// masker writes a resource's own values and generated values as placeholders.
type masker struct{ id, name, location string }

func (m masker) mask(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = m.mask(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = m.mask(e)
		}
		return out
	case string:
		switch {
		case m.location != "" && strings.EqualFold(t, m.location):
			return "{location}"
		case timePattern.MatchString(t):
			return "{time}"
		case etagPattern.MatchString(t):
			return "{etag}"
		}
		s := replaceFold(t, m.id, "{id}")
		if len(m.name) >= 3 {
			s = replaceFold(s, m.name, "{name}")
		}
		return guidPattern.ReplaceAllString(s, "{guid}")
	}
	return v
}

func replaceFold(s, old, repl string) string {
	lower, lold := strings.ToLower(s), strings.ToLower(old)
	var b strings.Builder
	for {
		i := strings.Index(lower, lold)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lower = s[i+len(old):], lower[i+len(old):]
	}
}

// actionAnswers marks, in the REST specs' outline of each recorded POST
// action's answer, the strings the recording shows as times (the Bicep
// types do not carry the specs' date-time format).
func (t armTypeTable) actionAnswers(rec recording) {
	for i := range rec.Interactions {
		in := &rec.Interactions[i]
		if in.Request.Method != "POST" || in.Response.Code != 200 {
			continue
		}
		path := in.Path()
		j := strings.LastIndexByte(path, '/')
		typ := armTypeOfRecordedPath(path[:j])
		f := t[strings.ToLower(typ)]
		if f == nil {
			continue
		}
		var answer any
		if json.Unmarshal([]byte(in.Response.Body), &answer) != nil {
			continue
		}
		for name, shape := range f.actions {
			if strings.EqualFold(name, path[j+1:]) {
				markTimes(shape, answer)
			}
		}
	}
}

func markTimes(s *registry.Shape, v any) {
	if s == nil {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			markTimes(s.Fields[k], e)
		}
	case []any:
		for _, e := range t {
			markTimes(s.Items, e)
		}
	case string:
		if s.Type == registry.TypeString && timePattern.MatchString(t) {
			s.Format = "date-time"
		}
	}
}

// apiVersionsFile lists, beside the REST specs' types, every api-version
// ARM publishes for each resource type (lower-cased type -> versions).
const apiVersionsFile = "api-versions.json"

// publishedVersions adds the api-versions ARM publishes for every type
// (api-versions.json), so that the emulator serves what real clients send.
// A type only that file knows keeps its lower-cased name: ARM compares types
// case-insensitively.
func (t armTypeTable) publishedVersions(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, apiVersionsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil // an older snapshot: the kinds' and types.json's versions only
	}
	if err != nil {
		return err
	}
	var published map[string][]string
	if err := json.Unmarshal(data, &published); err != nil {
		return fmt.Errorf("%s: %w", apiVersionsFile, err)
	}
	for typ, versions := range published {
		if strings.Count(typ, "/") < 1 {
			continue
		}
		f := t.get(typ)
		for _, v := range versions {
			f.versions[v] = true
		}
	}
	t.locationScopedVersions()
	return nil
}

// locationScopedVersions gives the location-scoped types of a provider
// (Microsoft.X/locations/..., such as a key vault's deletedVaults) every
// api-version of the provider: they are the provider's own APIs, which ARM
// serves at each version of it, while the REST specs' types list them only
// at the versions that model them as resources.
func (t armTypeTable) locationScopedVersions() {
	byNamespace := map[string]map[string]bool{}
	for k, f := range t {
		ns, _, _ := strings.Cut(k, "/")
		if byNamespace[ns] == nil {
			byNamespace[ns] = map[string]bool{}
		}
		for v := range f.versions {
			byNamespace[ns][v] = true
		}
	}
	for k, f := range t {
		ns, rest, _ := strings.Cut(k, "/")
		if !strings.HasPrefix(rest, "locations/") {
			continue
		}
		for v := range byNamespace[ns] {
			f.versions[v] = true
		}
	}
}

// restSpecs reads the REST specs' types.json files: which types exist at
// which api-version, their fixed names, whether they can be written, and
// the POST actions defined on them.
func (t armTypeTable) restSpecs(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*", "types.json"))
	if err != nil || len(files) == 0 {
		if _, statErr := os.Stat(dir); errors.Is(statErr, os.ErrNotExist) {
			return nil // no REST specs beside the corpus: the kinds' versions only
		}
		return err
	}
	sort.Strings(files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var types []map[string]any
		if err := json.Unmarshal(data, &types); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		// Actions answering the same type share one outline, so that what a
		// recording shows of one (its times) holds for the others.
		outputs := map[string]*registry.Shape{}
		for _, ty := range types {
			switch ty["$type"] {
			case "ResourceType":
				name, _ := ty["name"].(string)
				typ, version, ok := strings.Cut(name, "@")
				if ok && strings.Count(typ, "/") >= 1 {
					f := t.get(typ)
					f.versions[version] = true
					writable, _ := ty["writableScopes"].(float64)
					f.specListing(version, writable == 0, nameLiterals(types, typeAt(types, ty["body"])))
				}
			case "ResourceFunctionType":
				typ, _ := ty["resourceType"].(string)
				name, _ := ty["name"].(string)
				version, _ := ty["apiVersion"].(string)
				if typ == "" || name == "" {
					continue
				}
				f := t.get(typ)
				if version < f.actionVersion[name] {
					continue // keep the newest api-version's shape
				}
				f.actionVersion[name] = version
				ref := jsonText(ty["output"])
				if outputs[ref] == nil {
					outputs[ref] = bicepShape(types, ty["output"], 0)
				}
				f.actions[name] = outputs[ref]
			}
		}
	}
	return nil
}

// specListing takes one REST spec listing of the type at version: the
// newest version's listings decide, several there (one per scope) add up.
func (f *armTypeFacts) specListing(version string, readOnly bool, names []string) {
	switch {
	case version < f.specVersion:
		return
	case version > f.specVersion:
		f.specVersion, f.specNames, f.readOnly = version, nil, readOnly
	default:
		f.readOnly = f.readOnly && readOnly
	}
	for _, n := range names {
		f.specNames = addName(f.specNames, n)
	}
}

// addName appends name unless names hold it in any case (ARM compares
// names case-insensitively) or it is empty.
func addName(names []string, name string) []string {
	if name == "" || slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
		return names
	}
	return append(names, name)
}

// typeAt is the element of types that ref ({"$ref": "#/N"}) points at, or nil.
func typeAt(types []map[string]any, ref any) map[string]any {
	r, _ := ref.(map[string]any)
	s, _ := r["$ref"].(string)
	i, err := typeRef{Ref: s}.index()
	if err != nil || i < 0 || i >= len(types) {
		return nil
	}
	return types[i]
}

// nameLiterals are the literal names a resource body's name property
// allows: of an object, or of the base and every alternative of a
// discriminated one (a web site's config: appsettings, web, ...).
func nameLiterals(types []map[string]any, body map[string]any) []string {
	props := []any{body["properties"], body["baseProperties"]}
	if elems, ok := body["elements"].(map[string]any); ok {
		for _, key := range sortedNames(elems) {
			props = append(props, typeAt(types, elems[key])["properties"])
		}
	}
	var out []string
	for _, p := range props {
		pm, _ := p.(map[string]any)
		name, _ := pm["name"].(map[string]any)
		out = append(out, stringLiterals(types, typeAt(types, name["type"]))...)
	}
	return out
}

// stringLiterals are the string literals of a literal type or a union
// (whose plain string alternative adds none).
func stringLiterals(types []map[string]any, n map[string]any) []string {
	switch n["$type"] {
	case "StringLiteralType":
		if s, ok := n["value"].(string); ok {
			return []string{s}
		}
	case "UnionType":
		elems, _ := n["elements"].([]any)
		var out []string
		for _, e := range elems {
			out = append(out, stringLiterals(types, typeAt(types, e))...)
		}
		return out
	}
	return nil
}

// maxShapeDepth bounds the outline of recursive types.
const maxShapeDepth = 8

// bicepShape outlines the Bicep type that ref ({"$ref": "#/N"}) points at.
func bicepShape(types []map[string]any, ref any, depth int) *registry.Shape {
	r, _ := ref.(map[string]any)
	s, _ := r["$ref"].(string)
	var n int
	if _, err := fmt.Sscanf(s, "#/%d", &n); err != nil || n < 0 || n >= len(types) || depth > maxShapeDepth {
		return &registry.Shape{Type: registry.TypeAny}
	}
	ty := types[n]
	switch ty["$type"] {
	case "ObjectType", "DiscriminatedObjectType":
		props, _ := ty["properties"].(map[string]any)
		if props == nil {
			props, _ = ty["baseProperties"].(map[string]any)
		}
		out := &registry.Shape{Type: registry.TypeObject, Fields: map[string]*registry.Shape{}}
		for k, p := range props {
			pm, _ := p.(map[string]any)
			out.Fields[k] = bicepShape(types, pm["type"], depth+1)
		}
		return out
	case "ArrayType":
		return &registry.Shape{Type: registry.TypeArray, Items: bicepShape(types, ty["itemType"], depth+1)}
	case "StringLiteralType":
		v, _ := ty["value"].(string)
		return &registry.Shape{Type: registry.TypeString, Enum: []string{v}}
	case "UnionType":
		out := &registry.Shape{Type: registry.TypeString}
		elems, _ := ty["elements"].([]any)
		for _, e := range elems {
			if lit := bicepShape(types, e, depth+1); len(lit.Enum) == 1 {
				out.Enum = append(out.Enum, lit.Enum[0])
			}
		}
		return out
	case "StringType":
		return &registry.Shape{Type: registry.TypeString}
	case "IntegerType":
		return &registry.Shape{Type: registry.TypeInteger}
	case "BooleanType":
		return &registry.Shape{Type: registry.TypeBoolean}
	}
	return &registry.Shape{Type: registry.TypeAny}
}

// facts turns the table into sorted ARMType values. A filled value is kept
// when at least minRecordings recordings show the same template and none
// shows another; an answer is the one most PUTs got.
func (t armTypeTable) facts() []registry.ARMType {
	out := make([]registry.ARMType, 0, len(t))
	for _, f := range t {
		a := registry.ARMType{Type: f.typ, Create: majority(f.create), Update: majority(f.update),
			CreateTiming: timing(f.ops[verbCreate]), UpdateTiming: timing(f.ops[verbUpdate]), DeleteTiming: timing(f.ops[verbDelete]),
			NoDelete: f.kinds > 0 && f.noDeleteKinds == f.kinds, FixedNames: slices.Clone(f.specNames), ReadOnlyType: f.readOnly}
		for _, n := range f.kindNames {
			a.FixedNames = addName(a.FixedNames, n)
		}
		for v := range f.versions {
			a.APIVersions = append(a.APIVersions, v)
		}
		sort.Strings(a.APIVersions)
		for path, templates := range f.filled {
			if len(templates) != 1 {
				continue
			}
			for text, files := range templates {
				if len(files) < minRecordings {
					continue
				}
				var v any
				_ = json.Unmarshal([]byte(text), &v)
				a.Filled = append(a.Filled, registry.FilledValue{Path: path, Value: v})
			}
		}
		sort.Slice(a.Filled, func(i, j int) bool { return a.Filled[i].Path < a.Filled[j].Path })
		for s := range f.subIDs {
			a.SubResourceIDs = append(a.SubResourceIDs, s)
		}
		sort.Slice(a.SubResourceIDs, func(i, j int) bool { return a.SubResourceIDs[i].Path < a.SubResourceIDs[j].Path })
		for name, shape := range f.actions {
			a.Actions = append(a.Actions, registry.Action{Name: name, Output: shape})
		}
		sort.Slice(a.Actions, func(i, j int) bool { return a.Actions[i].Name < a.Actions[j].Name })
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Type) < strings.ToLower(out[j].Type) })
	return out
}

func majority(counts map[registry.PutAnswer]int) *registry.PutAnswer {
	var best *registry.PutAnswer
	bestN := 0
	for a, n := range counts {
		if n > bestN || (n == bestN && (a.Status < best.Status || a.Status == best.Status && a.Async < best.Async)) {
			a := a
			best, bestN = &a, n
		}
	}
	return best
}

// minRecordings is how many recordings must show a value ARM fills in
// before it is taken for the type's: a value ARM assigns at random differs
// from run to run, one it fills in does not.
const minRecordings = 2

// storedAfter is the body of the last successful GET of path after
// interaction i and before the next write of it, once provisioning finished.
func storedAfter(ins []corpus.Interaction, i int, path string) map[string]any {
	var found map[string]any
	for j := i + 1; j < len(ins); j++ {
		in := &ins[j]
		if !strings.EqualFold(in.Path(), path) {
			continue
		}
		switch in.Request.Method {
		case "PUT", "PATCH", "DELETE":
			return found
		case "GET":
		default:
			continue
		}
		var body map[string]any
		if in.Response.Code != 200 || json.Unmarshal([]byte(in.Response.Body), &body) != nil {
			continue
		}
		props, _ := body["properties"].(map[string]any)
		if state, _ := props["provisioningState"].(string); state == "" || strings.EqualFold(state, "Succeeded") {
			found = body
		}
	}
	return found
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
