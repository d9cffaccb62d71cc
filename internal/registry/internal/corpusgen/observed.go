package corpusgen

import (
	"encoding/json"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/corpus"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// minRecordings is how many recordings must show a rewrite or an added item
// before it is taken for ARM's rule: a value ARM assigns itself (a generated
// account name) differs from run to run, a normalisation does not.
const minRecordings = 2

// observations accumulate what the recordings show about ARM types.
type observations struct {
	// Per lower-cased ARM type + "@" + api-version.
	present, absent, caseFolded map[string]map[string]bool
	// Per lower-cased ARM type: key -> recordings that show it.
	rewrites map[string]map[string]map[string]bool
	added    map[string]map[string]map[string]bool
}

func newObservations() *observations {
	return &observations{
		present: map[string]map[string]bool{}, absent: map[string]map[string]bool{}, caseFolded: map[string]map[string]bool{},
		rewrites: map[string]map[string]map[string]bool{}, added: map[string]map[string]map[string]bool{},
	}
}

func mark(m map[string]map[string]bool, key, path string) {
	if m[key] == nil {
		m[key] = map[string]bool{}
	}
	m[key][path] = true
}

func markIn(m map[string]map[string]map[string]bool, typ, key, file string) {
	if m[typ] == nil {
		m[typ] = map[string]map[string]bool{}
	}
	if m[typ][key] == nil {
		m[typ][key] = map[string]bool{}
	}
	m[typ][key][file] = true
}

// markObserved sets Kind.Observed from the recordings: each successful PUT is
// compared with the last successful GET of the same resource before its next write.
func markObserved(recs []recording, kinds []*registry.Kind) {
	obs := newObservations()
	for _, rec := range recs {
		obs.recording(rec)
	}
	for _, k := range kinds {
		if k.ARMType == "" {
			continue
		}
		typ := strings.ToLower(k.ARMType)
		key := typ + "@" + k.APIVersion
		var o registry.Observed
		for p := range obs.absent[key] {
			if !obs.present[key][p] {
				o.WriteOnly = append(o.WriteOnly, p)
			}
		}
		for p := range obs.caseFolded[key] {
			o.CaseFolded = append(o.CaseFolded, p)
		}
		for rk, seen := range obs.rewrites[typ] {
			if len(seen) >= minRecordings {
				var r registry.Rewrite
				parts := strings.SplitN(rk, "\x00", 3)
				r.Path = parts[0]
				_ = json.Unmarshal([]byte(parts[1]), &r.Sent)
				_ = json.Unmarshal([]byte(parts[2]), &r.Stored)
				o.Rewrites = append(o.Rewrites, r)
			}
		}
		for ak, seen := range obs.added[typ] {
			if len(seen) >= minRecordings {
				path, name, _ := strings.Cut(ak, "\x00")
				o.AddedItems = append(o.AddedItems, registry.AddedItem{Path: path, Name: name})
			}
		}
		if len(o.WriteOnly)+len(o.CaseFolded)+len(o.Rewrites)+len(o.AddedItems) == 0 {
			continue
		}
		sort.Strings(o.WriteOnly)
		sort.Strings(o.CaseFolded)
		sort.Slice(o.Rewrites, func(i, j int) bool {
			a, b := o.Rewrites[i], o.Rewrites[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return jsonText(a.Sent) < jsonText(b.Sent)
		})
		sort.Slice(o.AddedItems, func(i, j int) bool {
			a, b := o.AddedItems[i], o.AddedItems[j]
			return a.Path+"\x00"+a.Name < b.Path+"\x00"+b.Name
		})
		k.Observed = &o
	}
}

func (o *observations) recording(rec recording) {
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
		typ := strings.ToLower(armTypeOfPath(path))
		stored := storedAfter(ins, i, path)
		if typ == "" || stored == nil {
			continue
		}
		w := walker{obs: o, typ: typ, key: typ + "@" + corpus.APIVersion(put.Request.URL), file: rec.name}
		w.value("", sent, stored, true)
	}
}

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

// walker compares one sent body with the stored one, as the planner's diff
// walks them: objects by key, arrays of named objects by name, other arrays
// by position.
type walker struct {
	obs            *observations
	typ, key, file string
}

func (w *walker) value(path string, sent, stored any, storedOK bool) {
	if stored == nil {
		storedOK = false
	}
	switch s := sent.(type) {
	case nil:
		return
	case map[string]any:
		st, _ := stored.(map[string]any)
		if storedOK && st == nil {
			return // another shape: nothing to learn
		}
		for k, v := range s {
			if path == "" && k == "name" {
				continue // the Azure name is part of the ARM ID, not a property
			}
			sv, ok := armjson.LookupFold(st, k)
			w.value(joinARM(path, k), v, sv, ok)
		}
	case []any:
		w.list(path, s, stored, storedOK)
	default:
		if str, ok := sent.(string); ok && str == "" {
			return
		}
		if !storedOK {
			mark(w.obs.absent, w.key, path)
			return
		}
		mark(w.obs.present, w.key, path)
		w.scalar(path, sent, stored)
	}
}

func (w *walker) list(path string, sent []any, stored any, storedOK bool) {
	if len(sent) == 0 {
		return
	}
	st, isList := stored.([]any)
	if storedOK && !isList {
		return
	}
	if !armjson.Named(sent) {
		if scalarItems(sent) {
			if storedOK {
				mark(w.obs.present, w.key, path)
			} else {
				mark(w.obs.absent, w.key, path)
			}
			return
		}
		for i, item := range sent {
			var sv any
			if i < len(st) {
				sv = st[i]
			}
			w.value(path+"[]", item, sv, i < len(st))
		}
		return
	}
	matched := map[int]bool{}
	for _, item := range sent {
		m := item.(map[string]any)
		j := armjson.IndexByName(st, m["name"].(string))
		if j < 0 {
			w.value(path+"[]", m, nil, false)
			continue
		}
		matched[j] = true
		w.value(path+"[]", m, st[j], true)
	}
	for j, item := range st {
		if name, _ := item.(map[string]any)["name"].(string); !matched[j] && name != "" {
			markIn(w.obs.added, w.typ, path+"\x00"+name, w.file)
		}
	}
}

func (w *walker) scalar(path string, sent, stored any) {
	if jsonText(sent) == jsonText(stored) {
		return
	}
	ss, sok := sent.(string)
	ts, tok := stored.(string)
	if sok && tok && (armjson.IsID(ss) || strings.HasSuffix(strings.ToLower(path), "location")) {
		return // the planner compares IDs and locations by their own rules
	}
	if sok && tok && strings.EqualFold(ss, ts) {
		mark(w.obs.caseFolded, w.key, path)
		return
	}
	markIn(w.obs.rewrites, w.typ, path+"\x00"+jsonText(sent)+"\x00"+jsonText(stored), w.file)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func joinARM(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func scalarItems(items []any) bool {
	for _, item := range items {
		switch item.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}
