// Package armfunc is the pure part of ARM's template function library: the functions whose
// result depends only on their arguments. The deployment engine's runner owns the rest (context
// functions such as parameters or resourceGroup, lambdas, utcNow, newGuid) and asks Lookup for
// everything else.
//
// Values are JSON-like: nil, bool, int64, string, []any and map[string]any. Inputs may also carry
// int, float64 (integral) or json.Number for integers; results use int64.
package armfunc

import (
	"fmt"
	"strings"
)

// Func evaluates one template function on already evaluated arguments.
type Func func(args []any) (any, error)

// impl is a function body; it receives the function's canonical name for its error messages.
type impl func(name string, args []any) (any, error)

// library maps a lower-cased function name to its canonical name and body.
var library = map[string]struct {
	name string
	body impl
}{}

// register adds a body under a canonical name; called from the init of each category's file.
func register(name string, body impl) {
	key := strings.ToLower(name)
	if _, dup := library[key]; dup {
		panic("armfunc: " + name + " registered twice")
	}
	library[key] = struct {
		name string
		body impl
	}{name, body}
}

// Lookup finds a pure function by name, case-insensitively as ARM does. The returned function
// normalises its arguments' numbers to int64 before evaluating.
func Lookup(name string) (Func, bool) {
	entry, ok := library[strings.ToLower(name)]
	if !ok {
		return nil, false
	}
	return func(args []any) (any, error) {
		normal := make([]any, len(args))
		for i, a := range args {
			v, err := normalize(a)
			if err != nil {
				return nil, fmt.Errorf("The template language function '%s' cannot use its parameter %d: %w", entry.name, i+1, err)
			}
			normal[i] = v
		}
		return entry.body(entry.name, normal)
	}, true
}
