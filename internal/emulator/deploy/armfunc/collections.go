package armfunc

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxRange is the most elements range() makes, as ARM limits it.
const maxRange = 10000

func init() {
	register("array", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		if a, ok := args[0].([]any); ok {
			return a, nil
		}
		return []any{args[0]}, nil
	})
	register("createArray", func(name string, args []any) (any, error) {
		return append([]any{}, args...), nil
	})
	register("createObject", createObject)
	register("null", func(name string, args []any) (any, error) {
		return nil, count(name, args, 0, 0)
	})
	register("contains", contains)
	register("empty", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case nil:
			return true, nil
		case string:
			return t == "", nil
		case []any:
			return len(t) == 0, nil
		case map[string]any:
			return len(t) == 0, nil
		}
		return nil, wrongType(name, args, 0, "Array", "Object", "String")
	})
	register("length", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case string:
			return int64(utf8.RuneCountInString(t)), nil
		case []any:
			return int64(len(t)), nil
		case map[string]any:
			return int64(len(t)), nil
		}
		return nil, wrongType(name, args, 0, "Array", "Object", "String")
	})
	register("first", end(true))
	register("last", end(false))
	register("indexOf", indexOf(false))
	register("lastIndexOf", indexOf(true))
	register("skip", slice(func(n, length int64) (int64, int64) { return clamp(n, length), length }))
	register("take", slice(func(n, length int64) (int64, int64) { return 0, clamp(n, length) }))
	register("range", rangeOf)
	register("union", union)
	register("intersection", intersection)
	register("items", items)
	register("objectKeys", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		obj, err := objectArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, k := range sortedKeys(obj) {
			out = append(out, k)
		}
		return out, nil
	})
	register("shallowMerge", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		objects, err := arrayArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		out := map[string]any{}
		for i, o := range objects {
			obj, ok := o.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("The template language function '%s' expects an array of objects; element %d is of type '%s'.", name, i, typeName(o))
			}
			for k, v := range obj {
				out[propertyKey(out, k)] = v
			}
		}
		return out, nil
	})
	register("tryGet", tryGet)
	register("indexFromEnd", fromEnd(false))
	register("tryIndexFromEnd", fromEnd(true))
}

func createObject(name string, args []any) (any, error) {
	if len(args)%2 != 0 {
		return nil, fmt.Errorf("The template language function '%s' expects an even number of parameters (keys and their values), but %d were provided.", name, len(args))
	}
	out := map[string]any{}
	for i := 0; i < len(args); i += 2 {
		key, err := stringArg(name, args, i)
		if err != nil {
			return nil, err
		}
		out[propertyKey(out, key)] = args[i+1]
	}
	return out, nil
}

// contains finds a substring (case-sensitively), a property name (case-insensitively) or an
// element (by value), as ARM documents.
func contains(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	switch t := args[0].(type) {
	case string:
		switch find := args[1].(type) {
		case string, int64, bool:
			return strings.Contains(t, text(find)), nil
		}
		return nil, wrongType(name, args, 1, "String", "Integer")
	case map[string]any:
		key, err := stringArg(name, args, 1)
		if err != nil {
			return nil, err
		}
		_, found := property(t, key)
		return found, nil
	case []any:
		for _, e := range t {
			if deepEqual(e, args[1]) {
				return true, nil
			}
		}
		return false, nil
	}
	return nil, wrongType(name, args, 0, "Array", "Object", "String")
}

// end serves first and last: the end character of a string, the end element of an array, null
// for an empty array.
func end(first bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case string:
			runes := []rune(t)
			if len(runes) == 0 {
				return "", nil
			}
			if first {
				return string(runes[0]), nil
			}
			return string(runes[len(runes)-1]), nil
		case []any:
			if len(t) == 0 {
				return nil, nil
			}
			if first {
				return t[0], nil
			}
			return t[len(t)-1], nil
		}
		return nil, wrongType(name, args, 0, "Array", "String")
	}
}

// indexOf serves indexOf and lastIndexOf: strings compare case-insensitively, array elements by
// value; -1 when absent.
func indexOf(last bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case string:
			find, err := stringArg(name, args, 1)
			if err != nil {
				return nil, err
			}
			haystack, needle := []rune(strings.ToLower(t)), []rune(strings.ToLower(find))
			at := -1
			for i := 0; i+len(needle) <= len(haystack); i++ {
				if string(haystack[i:i+len(needle)]) == string(needle) {
					at = i
					if !last {
						break
					}
				}
			}
			return int64(at), nil
		case []any:
			at := -1
			for i, e := range t {
				if deepEqual(e, args[1]) {
					at = i
					if !last {
						break
					}
				}
			}
			return int64(at), nil
		}
		return nil, wrongType(name, args, 0, "Array", "String")
	}
}

func clamp(n, length int64) int64 {
	return max(0, min(n, length))
}

// slice serves skip and take on strings (by character) and arrays.
func slice(bounds func(n, length int64) (from, to int64)) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		n, err := intArg(name, args, 1)
		if err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case string:
			runes := []rune(t)
			from, to := bounds(n, int64(len(runes)))
			return string(runes[from:to]), nil
		case []any:
			from, to := bounds(n, int64(len(t)))
			return append([]any{}, t[from:to]...), nil
		}
		return nil, wrongType(name, args, 0, "Array", "String")
	}
}

func rangeOf(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	start, err := intArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	n, err := intArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > maxRange {
		return nil, fmt.Errorf("The template language function '%s' expects its count parameter to be between 0 and %d, but it is %d.", name, maxRange, n)
	}
	if start+n > 1<<31-1 {
		return nil, fmt.Errorf("The template language function '%s' expects the sum of its start index and count to be at most 2147483647.", name)
	}
	out := make([]any, n)
	for i := range out {
		out[i] = start + int64(i)
	}
	return out, nil
}

// union joins arrays without repeating an element, or merges objects, later values winning and
// nested objects merged in turn (nested arrays are replaced, not merged).
func union(name string, args []any) (any, error) {
	if err := count(name, args, 2, -1); err != nil {
		return nil, err
	}
	switch args[0].(type) {
	case []any:
		out := []any{}
		for i, a := range args {
			items, ok := a.([]any)
			if !ok {
				if a == nil {
					continue
				}
				return nil, wrongType(name, args, i, "Array")
			}
			for _, e := range items {
				if !containsValue(out, e) {
					out = append(out, e)
				}
			}
		}
		return out, nil
	case map[string]any:
		out := map[string]any{}
		for i, a := range args {
			obj, ok := a.(map[string]any)
			if !ok {
				if a == nil {
					continue
				}
				return nil, wrongType(name, args, i, "Object")
			}
			out = deepMerge(out, obj)
		}
		return out, nil
	}
	return nil, wrongType(name, args, 0, "Array", "Object")
}

func containsValue(list []any, v any) bool {
	for _, e := range list {
		if deepEqual(e, v) {
			return true
		}
	}
	return false
}

// deepMerge copies over's properties onto base; objects under the same name merge recursively.
func deepMerge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		key := propertyKey(out, k)
		if mine, ok := out[key].(map[string]any); ok {
			if theirs, ok := v.(map[string]any); ok {
				out[key] = deepMerge(mine, theirs)
				continue
			}
		}
		out[key] = v
	}
	return out
}

// intersection keeps the elements (or properties with equal values) every argument has.
func intersection(name string, args []any) (any, error) {
	if err := count(name, args, 2, -1); err != nil {
		return nil, err
	}
	switch first := args[0].(type) {
	case []any:
		rest := make([][]any, len(args)-1)
		for i := range rest {
			a, ok := args[i+1].([]any)
			if !ok {
				return nil, wrongType(name, args, i+1, "Array")
			}
			rest[i] = a
		}
		out := []any{}
		for _, e := range first {
			inAll := !containsValue(out, e)
			for _, other := range rest {
				inAll = inAll && containsValue(other, e)
			}
			if inAll {
				out = append(out, e)
			}
		}
		return out, nil
	case map[string]any:
		rest := make([]map[string]any, len(args)-1)
		for i := range rest {
			o, ok := args[i+1].(map[string]any)
			if !ok {
				return nil, wrongType(name, args, i+1, "Object")
			}
			rest[i] = o
		}
		out := map[string]any{}
		for k, v := range first {
			inAll := true
			for _, other := range rest {
				w, found := property(other, k)
				inAll = inAll && found && deepEqual(v, w)
			}
			if inAll {
				out[k] = v
			}
		}
		return out, nil
	}
	return nil, wrongType(name, args, 0, "Array", "Object")
}

// sortedKeys orders property names as ARM's items() does: ordinally, ignoring case.
func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := strings.ToUpper(keys[i]), strings.ToUpper(keys[j])
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}

// items turns an object into an array of {key, value}, sorted by key.
func items(name string, args []any) (any, error) {
	if err := count(name, args, 1, 1); err != nil {
		return nil, err
	}
	obj, err := objectArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, k := range sortedKeys(obj) {
		out = append(out, map[string]any{"key": k, "value": obj[k]})
	}
	return out, nil
}

// tryGet reads a property or an element, and further ones from it in turn; null where any is
// missing.
func tryGet(name string, args []any) (any, error) {
	if err := count(name, args, 2, -1); err != nil {
		return nil, err
	}
	current := args[0]
	for i, key := range args[1:] {
		switch t := current.(type) {
		case nil:
			return nil, nil
		case map[string]any:
			k, ok := key.(string)
			if !ok {
				return nil, wrongType(name, args, i+1, "String")
			}
			current, _ = property(t, k)
		case []any:
			index, ok := key.(int64)
			if !ok {
				return nil, wrongType(name, args, i+1, "Integer")
			}
			if index < 0 || index >= int64(len(t)) {
				return nil, nil
			}
			current = t[index]
		default:
			return nil, fmt.Errorf("The template language function '%s' expects to read an object or an array, not a value of type '%s'.", name, typeName(current))
		}
	}
	return current, nil
}

// fromEnd serves indexFromEnd and tryIndexFromEnd: the element a 1-based position from the end
// names; out of range is an error, or null for the try form.
func fromEnd(try bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		list, err := arrayArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		back, err := intArg(name, args, 1)
		if err != nil {
			return nil, err
		}
		if back < 1 || back > int64(len(list)) {
			if try {
				return nil, nil
			}
			return nil, fmt.Errorf("The template language function '%s' expects its second parameter to be between 1 and the length of the array (%d), but it is %d.", name, len(list), back)
		}
		return list[int64(len(list))-back], nil
	}
}
