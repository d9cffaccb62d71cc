package armjson

import (
	"fmt"
	"strconv"
	"strings"
)

// Step is one step of a Path: a property (Key), a map key written as
// ["key"] (Key too), or a list item chosen by name ([name=web]).
type Step struct {
	Key string
	// Item is set for [name=...]: the list item whose name is Key.
	Item bool
}

// Path is a property path in an ARM body, as plans print them:
// "properties.subnets[name=web].properties.addressPrefix", "tags.owner",
// `tags["cost.center"]` for a key holding dots.
type Path []Step

// ParsePath reads a path in the form plans print.
func ParsePath(s string) (Path, error) {
	var p Path
	rest := strings.TrimSpace(s)
	if rest == "" {
		return nil, fmt.Errorf("empty path")
	}
	expectKey := true
	for rest != "" {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: [ without ]", s)
			}
			inner := rest[1:end]
			switch {
			case strings.HasPrefix(inner, "name="):
				name := strings.TrimPrefix(inner, "name=")
				if name == "" {
					return nil, fmt.Errorf("%q: [name=] needs a name", s)
				}
				p = append(p, Step{Key: name, Item: true})
			case strings.HasPrefix(inner, `"`):
				end = strings.Index(rest, `"]`)
				if end < 0 {
					return nil, fmt.Errorf(`%q: ["key"] not closed`, s)
				}
				key, err := strconv.Unquote(rest[1 : end+1])
				if err != nil || key == "" {
					return nil, fmt.Errorf(`%q: bad ["key"]`, s)
				}
				p = append(p, Step{Key: key})
				end++
			default:
				return nil, fmt.Errorf("%q: use [name=NAME] for a list item or [\"key\"] for a map key", s)
			}
			rest = rest[end+1:]
			expectKey = false
		case rest[0] == '.':
			if expectKey {
				return nil, fmt.Errorf("%q: empty property name", s)
			}
			rest = rest[1:]
			expectKey = true
			if rest == "" {
				return nil, fmt.Errorf("%q: ends with .", s)
			}
		default:
			if !expectKey {
				return nil, fmt.Errorf("%q: . or [ expected before %q", s, rest)
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			key := rest[:end]
			if strings.ContainsAny(key, " \t\"]") {
				return nil, fmt.Errorf("%q: bad property name %q", s, key)
			}
			p = append(p, Step{Key: key})
			rest = rest[end:]
			expectKey = false
		}
	}
	return p, nil
}

// String prints p as ParsePath reads it.
func (p Path) String() string {
	s := ""
	for _, st := range p {
		if st.Item {
			s += "[name=" + st.Key + "]"
		} else {
			s = JoinKey(s, st.Key)
		}
	}
	return s
}

// JoinKey appends one property or map key to a path as String writes it:
// .key, or ["key"] for a key holding characters a path uses, so that every
// path shown reads back with ParsePath as the same path.
func JoinKey(path, key string) string {
	switch {
	case strings.ContainsAny(key, ".[]\" "):
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}

// Get reads the value at p in body, matching property names and item names
// in any case, as ARM answers them.
func (p Path) Get(body map[string]any) (any, bool) {
	var cur any = body
	for _, st := range p {
		if st.Item {
			list, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			i := IndexByName(list, st.Key)
			if i < 0 {
				return nil, false
			}
			cur = list[i]
			continue
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = LookupFold(obj, st.Key); !ok {
			return nil, false
		}
	}
	return cur, true
}

// Set puts v at p in body, creating objects on the way; a list item that
// is not there is added with its name. It reports false when the body has
// another shape on the way (a scalar where an object is needed).
func (p Path) Set(body map[string]any, v any) bool {
	return p.set(body, v, false)
}

// Delete removes the value at p from body, if it is there.
func (p Path) Delete(body map[string]any) {
	p.set(body, nil, true)
}

func (p Path) set(body map[string]any, v any, remove bool) bool {
	if len(p) == 0 {
		return false
	}
	var parent any = body
	for i, st := range p {
		last := i == len(p)-1
		if st.Item {
			list, ok := parent.([]any)
			if !ok {
				return false
			}
			j := IndexByName(list, st.Key)
			if last {
				switch {
				case remove && j >= 0:
					p[:i].assign(body, append(list[:j:j], list[j+1:]...))
				case !remove && j >= 0:
					list[j] = v
				case !remove:
					p[:i].assign(body, append(list, v))
				}
				return true
			}
			if j < 0 {
				if remove {
					return true
				}
				item := map[string]any{"name": st.Key}
				p[:i].assign(body, append(list, item))
				parent = item
				continue
			}
			parent = list[j]
			continue
		}
		obj, ok := parent.(map[string]any)
		if !ok {
			return false
		}
		key := st.Key
		for k := range obj {
			if strings.EqualFold(k, key) {
				key = k
				break
			}
		}
		if last {
			if remove {
				delete(obj, key)
			} else {
				obj[key] = v
			}
			return true
		}
		next, found := obj[key]
		if !found || next == nil {
			if remove {
				return true
			}
			if p[i+1].Item {
				next = []any{}
			} else {
				next = map[string]any{}
			}
			obj[key] = next
		}
		parent = next
	}
	return true
}

// assign replaces the value at p (a list being grown or shrunk) in body.
func (p Path) assign(body map[string]any, v any) {
	if len(p) == 0 {
		return
	}
	p.set(body, v, false)
}
