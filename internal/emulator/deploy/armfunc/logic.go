package armfunc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

func init() {
	register("true", constant(true))
	register("false", constant(false))
	register("and", combine(true))
	register("or", combine(false))
	register("not", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		b, err := boolArg(name, args, 0)
		return !b, err
	})
	register("if", func(name string, args []any) (any, error) {
		if err := count(name, args, 3, 3); err != nil {
			return nil, err
		}
		condition, err := boolArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		if condition {
			return args[1], nil
		}
		return args[2], nil
	})
	register("bool", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case bool:
			return t, nil
		case int64:
			return t != 0, nil
		case string:
			switch strings.ToLower(t) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, fmt.Errorf("The template language function '%s' expects a string of 'true' or 'false', not '%s'.", name, t)
		}
		return nil, wrongType(name, args, 0, "Boolean", "Integer", "String")
	})
	register("coalesce", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, -1); err != nil {
			return nil, err
		}
		for _, a := range args {
			if a != nil {
				return a, nil
			}
		}
		return nil, nil
	})
	register("equals", func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		return deepEqual(args[0], args[1]), nil
	})
	register("greater", compare(func(c int) bool { return c > 0 }))
	register("greaterOrEquals", compare(func(c int) bool { return c >= 0 }))
	register("less", compare(func(c int) bool { return c < 0 }))
	register("lessOrEquals", compare(func(c int) bool { return c <= 0 }))

	register("add", arithmetic(func(a, b int64) (int64, bool) {
		s := a + b
		return s, (s > a) == (b > 0)
	}))
	register("sub", arithmetic(func(a, b int64) (int64, bool) {
		d := a - b
		return d, (d < a) == (b > 0)
	}))
	register("mul", arithmetic(func(a, b int64) (int64, bool) {
		if a == 0 || b == 0 {
			return 0, true
		}
		p := a * b
		return p, p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
	}))
	register("div", division(func(a, b int64) int64 { return a / b }))
	register("mod", division(func(a, b int64) int64 { return a % b }))
	register("int", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case int64:
			return t, nil
		case float64:
			return int64(t), nil
		case string:
			n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("The template language function '%s' expects a string holding an integer, not '%s'.", name, t)
			}
			return n, nil
		}
		return nil, wrongType(name, args, 0, "Integer", "String")
	})
	register("float", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		switch t := args[0].(type) {
		case int64:
			return float64(t), nil
		case float64:
			return t, nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
			if err != nil {
				return nil, fmt.Errorf("The template language function '%s' expects a string holding a number, not '%s'.", name, t)
			}
			return f, nil
		}
		return nil, wrongType(name, args, 0, "Integer", "Float", "String")
	})
	register("max", extreme(func(a, b int64) bool { return a > b }))
	register("min", extreme(func(a, b int64) bool { return a < b }))
}

func constant(v bool) impl {
	return func(name string, args []any) (any, error) {
		return v, count(name, args, 0, 0)
	}
}

// combine serves and (all true) and or (any true) over two or more booleans.
func combine(all bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, -1); err != nil {
			return nil, err
		}
		for i := range args {
			b, err := boolArg(name, args, i)
			if err != nil {
				return nil, err
			}
			if b != all {
				return b, nil
			}
		}
		return all, nil
	}
}

// compare serves the ordering functions over two integers or two strings. Strings order as
// .NET's invariant culture orders them: by letter regardless of case first, and where that ties
// a lower-case letter before its upper case (so greater('A', 'a') is true, as ARM documents).
func compare(holds func(int) bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		switch a := args[0].(type) {
		case int64, float64:
			b, ok := number(args[1])
			if !ok {
				return nil, wrongType(name, args, 1, "Integer", "Float")
			}
			x, _ := number(a)
			switch {
			case x < b:
				return holds(-1), nil
			case x > b:
				return holds(1), nil
			}
			return holds(0), nil
		case string:
			b, err := stringArg(name, args, 1)
			if err != nil {
				return nil, wrongType(name, args, 1, "String")
			}
			return holds(cultureCompare(a, b)), nil
		}
		return nil, wrongType(name, args, 0, "Integer", "String")
	}
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

func cultureCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	ra, rb := []rune(a), []rune(b)
	for i := range ra {
		if ra[i] == rb[i] {
			continue
		}
		if unicode.IsLower(ra[i]) {
			return -1
		}
		return 1
	}
	return 0
}

// arithmetic serves add, sub and mul on two integers; a result outside 64 bits is refused.
func arithmetic(op func(a, b int64) (int64, bool)) impl {
	return func(name string, args []any) (any, error) {
		a, b, err := twoInts(name, args)
		if err != nil {
			return nil, err
		}
		r, ok := op(a, b)
		if !ok {
			return nil, fmt.Errorf("The template language function '%s' overflowed: the result of %d and %d is outside the range of a 64-bit integer.", name, a, b)
		}
		return r, nil
	}
}

// division serves div and mod, which truncate toward zero as .NET's integer operators do.
func division(op func(a, b int64) int64) impl {
	return func(name string, args []any) (any, error) {
		a, b, err := twoInts(name, args)
		if err != nil {
			return nil, err
		}
		if b == 0 {
			return nil, fmt.Errorf("The template language function '%s' expects a non-zero divisor.", name)
		}
		if a == math.MinInt64 && b == -1 {
			return nil, fmt.Errorf("The template language function '%s' overflowed: %d divided by -1 is outside the range of a 64-bit integer.", name, a)
		}
		return op(a, b), nil
	}
}

func twoInts(name string, args []any) (int64, int64, error) {
	if err := count(name, args, 2, 2); err != nil {
		return 0, 0, err
	}
	a, err := intArg(name, args, 0)
	if err != nil {
		return 0, 0, err
	}
	b, err := intArg(name, args, 1)
	return a, b, err
}

// extreme serves max and min over integers given one by one, in arrays, or both.
func extreme(better func(a, b int64) bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 1, -1); err != nil {
			return nil, err
		}
		var values []int64
		for i, a := range args {
			switch t := a.(type) {
			case int64:
				values = append(values, t)
			case []any:
				for _, e := range t {
					n, ok := e.(int64)
					if !ok {
						return nil, fmt.Errorf("The template language function '%s' expects integers; an array element is of type '%s'.", name, typeName(e))
					}
					values = append(values, n)
				}
			default:
				return nil, wrongType(name, args, i, "Integer", "Array")
			}
		}
		if len(values) == 0 {
			return nil, fmt.Errorf("The template language function '%s' expects at least one integer, but the arrays given are empty.", name)
		}
		best := values[0]
		for _, v := range values[1:] {
			if better(v, best) {
				best = v
			}
		}
		return best, nil
	}
}
