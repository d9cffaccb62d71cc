package armfunc

import (
	"fmt"
	"strings"
)

// count checks the number of arguments, wording the refusal as ARM does.
func count(name string, args []any, min, max int) error {
	n := len(args)
	if n >= min && (max < 0 || n <= max) {
		return nil
	}
	switch {
	case min == max:
		return fmt.Errorf("The template language function '%s' expects exactly %s, but %d were provided.", name, parameters(min), n)
	case max < 0:
		return fmt.Errorf("The template language function '%s' expects at least %s, but %d were provided.", name, parameters(min), n)
	}
	return fmt.Errorf("The template language function '%s' expects between %d and %s, but %d were provided.", name, min, parameters(max), n)
}

func parameters(n int) string {
	if n == 1 {
		return "one parameter"
	}
	return fmt.Sprintf("%d parameters", n)
}

// ordinal names a parameter by position in messages.
func ordinal(i int) string {
	names := []string{"first", "second", "third", "fourth", "fifth", "sixth"}
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("parameter %d's", i+1)
}

// wrongType refuses a parameter of the wrong type, naming the types it may have as ARM does.
func wrongType(name string, args []any, i int, types ...string) error {
	want := fmt.Sprintf("of type '%s'", types[0])
	if len(types) > 1 {
		want = fmt.Sprintf("one of the following types '%s'", strings.Join(types, ", "))
	}
	return fmt.Errorf("The template language function '%s' expects its %s parameter to be %s. The provided value is of type '%s'.",
		name, ordinal(i), want, typeName(args[i]))
}

func stringArg(name string, args []any, i int) (string, error) {
	s, ok := args[i].(string)
	if !ok {
		return "", wrongType(name, args, i, "String")
	}
	return s, nil
}

func intArg(name string, args []any, i int) (int64, error) {
	n, ok := args[i].(int64)
	if !ok {
		return 0, wrongType(name, args, i, "Integer")
	}
	return n, nil
}

func boolArg(name string, args []any, i int) (bool, error) {
	b, ok := args[i].(bool)
	if !ok {
		return false, wrongType(name, args, i, "Boolean")
	}
	return b, nil
}

func arrayArg(name string, args []any, i int) ([]any, error) {
	a, ok := args[i].([]any)
	if !ok {
		return nil, wrongType(name, args, i, "Array")
	}
	return a, nil
}

func objectArg(name string, args []any, i int) (map[string]any, error) {
	o, ok := args[i].(map[string]any)
	if !ok {
		return nil, wrongType(name, args, i, "Object")
	}
	return o, nil
}

// stringsArgs reads every argument as a string.
func stringsArgs(name string, args []any) ([]string, error) {
	out := make([]string, len(args))
	for i := range args {
		s, err := stringArg(name, args, i)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}
