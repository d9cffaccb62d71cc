package armfunc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// normalize turns every number of a value into int64 (or float64 where it has a fraction, which
// only float and parameter values carry) so the functions meet one integer type.
func normalize(v any) (any, error) {
	switch t := v.(type) {
	case nil, bool, string, int64:
		return t, nil
	case int:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) <= 1<<53 {
			return int64(t), nil
		}
		return t, nil
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("the number '%s' is not valid", t)
		}
		return normalize(f)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("a value of Go type %T is not a template value", v)
}

// typeName is the name ARM gives a value's type in its messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "Null"
	case bool:
		return "Boolean"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case string:
		return "String"
	case []any:
		return "Array"
	case map[string]any:
		return "Object"
	}
	return fmt.Sprintf("%T", v)
}

// compactJSON writes a value as ARM serialises it: no indentation and no HTML escaping.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// text is a value as string() and concat() render it: strings as they are, booleans as .NET
// writes them (True, False), null as the empty string, arrays and objects as compact JSON.
func text(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return compactJSON(v)
}

// deepEqual compares two template values as ARM's equals does: strings case-sensitively,
// object property names case-insensitively.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, found := property(y, k)
			if !found || !deepEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// property reads an object's property by name, case-insensitively as ARM reads JSON objects;
// an exact match wins over a match differing in case.
func property(obj map[string]any, name string) (any, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// propertyKey is the spelling under which obj holds name, or name itself when obj lacks it.
func propertyKey(obj map[string]any, name string) string {
	if _, ok := obj[name]; ok {
		return name
	}
	for k := range obj {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return name
}
