package planner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// matchSendSecrets checks Options.SendSecrets against the plan: a pattern
// that names no resource is an error, one that names resources without
// secrets is a warning.
func (m *maker) matchSendSecrets(p *Plan) diag.List {
	var diags diag.List
	for _, pattern := range m.opts.SendSecrets {
		matched, withSecrets := 0, 0
		for _, r := range p.Resources {
			if graph.MatchAddress(r.Address, pattern) {
				matched++
				if len(r.Secrets) > 0 {
					withSecrets++
				}
			}
		}
		switch {
		case matched == 0:
			diags.Add(diag.Errorf(diag.Source{}, "", "", "--send-secrets %s: no resource of the plan has that address (group/Kind/namespace/name, Kind/namespace/name or Kind/name)", pattern))
		case withSecrets == 0:
			diags.Add(diag.Warningf(diag.Source{}, "", "", "--send-secrets %s: it sends no secrets, so there is nothing to send again", pattern))
		}
	}
	return diags
}

// secretPaths lists the paths of body that hold secrets, in the differ's
// path form: those the input holds and those another resource exports,
// known only once it exists.
func secretPaths(body map[string]any) []string {
	changes := secretChanges(body)
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	return out
}

// secretChanges are the secrets of body as changes that send them, sorted
// by path: sensitive, and unknown where another resource exports them.
func secretChanges(body map[string]any) []Change {
	var out []Change
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case convert.Sensitive, bodydiff.SensitiveDigest:
			out = append(out, Change{Path: path, Sensitive: true})
		case convert.Unknown:
			if t.Sensitive {
				out = append(out, Change{Path: path, Sensitive: true, Unknown: true})
			}
		case map[string]any:
			for k, e := range t {
				walk(armjson.JoinKey(path, k), e)
			}
		case []any:
			named := armjson.Named(t)
			for i, e := range t {
				if named {
					walk(fmt.Sprintf("%s[name=%s]", path, e.(map[string]any)["name"]), e)
				} else {
					walk(fmt.Sprintf("%s[%d]", path, i), e)
				}
			}
		}
	}
	walk("", body)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// keepIgnored makes the desired body carry Azure's current value at each
// ignored path (or nothing, where Azure has none), so the PUT leaves those
// values as they are, and returns the differences the paths hide.
func keepIgnored(d *bodydiff.Rules, paths []armjson.Path, desired, current map[string]any) []Change {
	var ignored []Change
	for _, c := range d.Diff(desired, current) {
		for _, p := range paths {
			if underPath(c.Path, p.String()) {
				ignored = append(ignored, c)
				break
			}
		}
	}
	for _, p := range paths {
		if v, ok := p.Get(current); ok && v != nil {
			p.Set(desired, deepCopy(v))
		} else {
			p.Delete(desired)
		}
	}
	return ignored
}

// underPath reports whether path is prefix or inside it.
func underPath(path, prefix string) bool {
	if len(path) < len(prefix) || !strings.EqualFold(path[:len(prefix)], prefix) {
		return false
	}
	rest := path[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
