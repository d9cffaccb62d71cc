package armfunc

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// composite formats as .NET's String.Format with the invariant culture, which ARM's format()
// uses: {index[,alignment][:formatString]}, with {{ and }} for literal braces.
func composite(name, layout string, values []any) (string, error) {
	bad := func() error {
		return fmt.Errorf("The template language function '%s' expects a valid composite format string: '%s' is not one.", name, layout)
	}
	var b strings.Builder
	for i := 0; i < len(layout); i++ {
		c := layout[i]
		if c == '}' {
			if i+1 < len(layout) && layout[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", bad()
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(layout) && layout[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(layout[i:], '}')
		if end < 0 {
			return "", bad()
		}
		item := layout[i+1 : i+end]
		i += end
		spec := ""
		if colon := strings.IndexByte(item, ':'); colon >= 0 {
			item, spec = item[:colon], item[colon+1:]
		}
		align := 0
		if comma := strings.IndexByte(item, ','); comma >= 0 {
			a, err := strconv.Atoi(strings.TrimSpace(item[comma+1:]))
			if err != nil {
				return "", bad()
			}
			item, align = item[:comma], a
		}
		index, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || index < 0 {
			return "", bad()
		}
		if index >= len(values) {
			return "", fmt.Errorf("The template language function '%s' expects an argument for the format item {%d}, but %d were provided.", name, index, len(values))
		}
		s, err := formatValue(name, values[index], spec)
		if err != nil {
			return "", err
		}
		if pad := abs(align) - len([]rune(s)); pad > 0 {
			if align > 0 {
				s = strings.Repeat(" ", pad) + s
			} else {
				s += strings.Repeat(" ", pad)
			}
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// formatValue renders one argument under a .NET format string; only numbers take one.
func formatValue(name string, v any, spec string) (string, error) {
	switch t := v.(type) {
	case int64:
		if spec == "" {
			return strconv.FormatInt(t, 10), nil
		}
		return formatInteger(name, t, spec)
	case float64:
		if spec == "" {
			return strconv.FormatFloat(t, 'f', -1, 64), nil
		}
		return formatFloat(name, t, spec)
	}
	return text(v), nil
}

// formatInteger applies a .NET standard (D, N, F, X, G, P, E) or custom (0, #, ',', '.') numeric
// format string to an integer.
func formatInteger(name string, n int64, spec string) (string, error) {
	letter, precision, standard := standardSpec(spec)
	if !standard {
		return customNumber(name, float64(n), spec)
	}
	switch letter {
	case 'D', 'd':
		digits := strconv.FormatUint(absUint(n), 10)
		if p := precision; p > len(digits) {
			digits = strings.Repeat("0", p-len(digits)) + digits
		}
		if n < 0 {
			digits = "-" + digits
		}
		return digits, nil
	case 'X', 'x':
		// ARM's integers are 64-bit, so a negative one is written in 16 hex digits.
		digits := strconv.FormatUint(uint64(n), 16)
		if letter == 'X' {
			digits = strings.ToUpper(digits)
		}
		if precision > len(digits) {
			digits = strings.Repeat("0", precision-len(digits)) + digits
		}
		return digits, nil
	case 'G', 'g', 'R', 'r':
		return strconv.FormatInt(n, 10), nil
	}
	return formatFloat(name, float64(n), spec)
}

func absUint(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

func formatFloat(name string, f float64, spec string) (string, error) {
	letter, precision, standard := standardSpec(spec)
	if !standard {
		return customNumber(name, f, spec)
	}
	if precision < 0 {
		precision = 2
	}
	switch letter {
	case 'N', 'n':
		return groupThousands(strconv.FormatFloat(f, 'f', precision, 64)), nil
	case 'F', 'f':
		return strconv.FormatFloat(f, 'f', precision, 64), nil
	case 'C', 'c':
		// The invariant culture's currency sign is ¤, and it brackets negative amounts.
		amount := groupThousands(strconv.FormatFloat(math.Abs(f), 'f', precision, 64))
		if f < 0 {
			return "(¤" + amount + ")", nil
		}
		return "¤" + amount, nil
	case 'P', 'p':
		return groupThousands(strconv.FormatFloat(f*100, 'f', precision, 64)) + " %", nil
	case 'E', 'e':
		if _, p, _ := standardSpec(spec); p < 0 {
			precision = 6
		}
		s := strconv.FormatFloat(f, 'e', precision, 64)
		// .NET writes the exponent with at least three digits: 1.5E+003.
		mantissa, exp, _ := strings.Cut(s, "e")
		sign, digits := exp[:1], exp[1:]
		for len(digits) < 3 {
			digits = "0" + digits
		}
		e := "e"
		if letter == 'E' {
			e = "E"
		}
		return mantissa + e + sign + digits, nil
	case 'G', 'g', 'R', 'r':
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("The template language function '%s' expects a valid numeric format string: '%s' is not one.", name, spec)
}

// standardSpec splits a .NET standard numeric format string (a letter and an optional precision);
// standard is false for custom format strings.
func standardSpec(spec string) (letter byte, precision int, standard bool) {
	if spec == "" || !strings.ContainsRune("CcDdEeFfGgNnPpRrXx", rune(spec[0])) {
		return 0, 0, false
	}
	if len(spec) == 1 {
		return spec[0], -1, true
	}
	p, err := strconv.Atoi(spec[1:])
	if err != nil || p < 0 || p > 99 {
		return 0, 0, false
	}
	return spec[0], p, true
}

// groupThousands puts invariant-culture thousands separators into a decimal number.
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// customNumber applies a .NET custom numeric format of digit placeholders: '0' (a digit, zero if
// none), '#' (a digit if any), one '.' and ',' between placeholders for grouping; any other
// character is copied as a literal around the number.
func customNumber(name string, f float64, spec string) (string, error) {
	// .NET refuses a letter (with optional digits) that names no standard format.
	if lettered.MatchString(spec) {
		return "", fmt.Errorf("The template language function '%s' expects a valid numeric format string: '%s' is not one.", name, spec)
	}
	start := strings.IndexAny(spec, "0#.,")
	if start < 0 {
		return spec, nil
	}
	end := start
	for end < len(spec) && strings.IndexByte("0#.,", spec[end]) >= 0 {
		end++
	}
	prefix, pattern, suffix := spec[:start], spec[start:end], spec[end:]
	wholePattern, fracPattern, _ := strings.Cut(pattern, ".")
	grouping := strings.Contains(strings.Trim(wholePattern, ","), ",")
	minWhole := strings.Count(wholePattern, "0")
	minFrac := strings.Count(fracPattern, "0")
	maxFrac := minFrac + strings.Count(fracPattern, "#")

	s := strconv.FormatFloat(f, 'f', maxFrac, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) > minFrac && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	whole = strings.TrimLeft(whole, "0")
	for len(whole) < minWhole {
		whole = "0" + whole
	}
	if grouping {
		whole = groupThousands(whole)
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if out == "" {
		out = "0"
		if minWhole == 0 && minFrac == 0 {
			out = ""
		}
	}
	return prefix + sign + out + suffix, nil
}

var lettered = regexp.MustCompile(`^[A-Za-z][0-9]*$`)
