// Package armjson holds small helpers over ARM bodies decoded from JSON
// (map[string]any, []any and scalars), shared by the code that builds, learns
// from and compares them, so that all of it reads bodies the same way.
package armjson

import "strings"

// IsID reports whether s is an ARM resource ID.
func IsID(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "/subscriptions/") || strings.HasPrefix(l, "/providers/")
}

// Lookup reads the value at path inside m.
func Lookup(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Put sets v at path inside m, creating the objects on the way.
func Put(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// LookupFold finds key in m, falling back to a case-insensitive match: ARM
// answers some property names, and ARM IDs used as keys, in another case.
func LookupFold(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// Named reports whether every item is an object with a non-empty "name":
// ARM matches such lists item by item, by name.
func Named(items []any) bool {
	for _, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		if name, ok := m["name"].(string); !ok || name == "" {
			return false
		}
	}
	return true
}

// IndexByName is the index of the item named name (case-insensitively), or -1.
func IndexByName(items []any, name string) int {
	for i, item := range items {
		if m, ok := item.(map[string]any); ok {
			if n, _ := m["name"].(string); strings.EqualFold(n, name) {
				return i
			}
		}
	}
	return -1
}

// Join joins two dotted paths, either of which may be empty.
func Join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "." + b
}
