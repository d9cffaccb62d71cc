package armfunc

import (
	"fmt"
	"strings"
)

func init() {
	register("concat", concat)
	register("format", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, -1); err != nil {
			return nil, err
		}
		layout, err := stringArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return composite(name, layout, args[1:])
	})
	register("string", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		return text(args[0]), nil
	})
	register("toLower", stringMap(strings.ToLower))
	register("toUpper", stringMap(strings.ToUpper))
	register("uniqueString", hashOf(UniqueString))
	register("guid", hashOf(GUID))
}

// concat joins arrays into one array, or anything else into one string.
func concat(name string, args []any) (any, error) {
	if err := count(name, args, 1, -1); err != nil {
		return nil, err
	}
	if _, isArray := args[0].([]any); isArray {
		out := []any{}
		for i, a := range args {
			switch t := a.(type) {
			case []any:
				out = append(out, t...)
			case nil:
			default:
				return nil, wrongType(name, args, i, "an array like the first")
			}
		}
		return out, nil
	}
	var b strings.Builder
	for i, a := range args {
		if _, isArray := a.([]any); isArray {
			return nil, fmt.Errorf("The template function '%s' expects its parameters to be either all arrays or all strings; the %s parameter is an array.", name, ordinal(i))
		}
		b.WriteString(text(a))
	}
	return b.String(), nil
}

func stringMap(f func(string) string) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		s, err := stringArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

// hashOf serves uniqueString and guid, which take one or more strings.
func hashOf(f func(...string) string) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 1, -1); err != nil {
			return nil, err
		}
		parts, err := stringsArgs(name, args)
		if err != nil {
			return nil, err
		}
		return f(parts...), nil
	}
}
