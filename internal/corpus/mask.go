package corpus

import (
	"encoding/json"
	"fmt"
	"github.com/azkcli/azk/internal/armjson"
	"sort"
	"strings"
)

// MaskID replaces the names inside an ARM ID (or URL path) with "*" and
// lower-cases the rest, leaving the resource types: the operator's test
// harness renamed resources, so only types can be compared.
func MaskID(id string) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	for i := 0; i < len(segs); {
		segs[i] = strings.ToLower(segs[i])
		if segs[i] == "providers" && i+1 < len(segs) {
			segs[i+1] = strings.ToLower(segs[i+1]) // the namespace; type/name pairs follow
			i += 2
			continue
		}
		if i+1 < len(segs) {
			segs[i+1] = "*"
		}
		i += 2
	}
	return "/" + strings.Join(segs, "/")
}

// MaskBody copies a decoded JSON body with every "name" value masked and the
// names inside ARM IDs (values and map keys) masked.
func MaskBody(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key := k
			if armjson.IsID(k) {
				key = MaskID(k)
			}
			if _, ok := e.(string); ok && k == "name" {
				out[key] = "*"
				continue
			}
			out[key] = MaskBody(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = MaskBody(e)
		}
		return out
	case string:
		if armjson.IsID(t) {
			return MaskID(t)
		}
	}
	return v
}

// Difference is one JSON path at which two values differ; A or B is "" where
// the path is absent on that side.
type Difference struct {
	Path string
	A, B string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s (%s vs %s)", d.Path, orAbsent(d.A), orAbsent(d.B))
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// Diff lists the JSON paths at which two decoded JSON values differ, sorted.
func Diff(a, b any) []Difference {
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", a, fa)
	flatten("", b, fb)
	var diffs []Difference
	for p, va := range fa {
		if vb := fb[p]; va != vb {
			diffs = append(diffs, Difference{Path: p, A: va, B: vb})
		}
	}
	for p, vb := range fb {
		if _, ok := fa[p]; !ok {
			diffs = append(diffs, Difference{Path: p, B: vb})
		}
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].Path < diffs[j].Path })
	return diffs
}

func flatten(path string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			out[path] = "{}"
		}
		for k, e := range t {
			flatten(path+"."+k, e, out)
		}
	case []any:
		if len(t) == 0 {
			out[path] = "[]"
		}
		for i, e := range t {
			flatten(fmt.Sprintf("%s[%d]", path, i), e, out)
		}
	default:
		b, _ := json.Marshal(t)
		out[path] = string(b)
	}
}
