package armfunc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
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
	register("trim", stringMap(func(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }))
	register("uniqueString", hashOf(UniqueString))
	register("guid", hashOf(GUID))
	register("base64", stringMap(func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }))
	register("base64ToString", stringTo(func(name, s string) (any, error) {
		b, err := decodeBase64(name, s)
		return string(b), err
	}))
	register("base64ToJson", stringTo(func(name, s string) (any, error) {
		b, err := decodeBase64(name, s)
		if err != nil {
			return nil, err
		}
		return parseJSON(name, string(b))
	}))
	register("json", stringTo(parseJSON))
	register("dataUri", stringMap(func(s string) string {
		return "data:text/plain;charset=utf8;base64," + base64.StdEncoding.EncodeToString([]byte(s))
	}))
	register("dataUriToString", stringTo(dataURIToString))
	register("uriComponent", stringMap(escapeDataString))
	register("uriComponentToString", stringMap(unescapeDataString))
	register("uri", uri)
	register("startsWith", stringTest(func(s, find string) bool { return strings.HasPrefix(strings.ToLower(s), strings.ToLower(find)) }))
	register("endsWith", stringTest(func(s, find string) bool { return strings.HasSuffix(strings.ToLower(s), strings.ToLower(find)) }))
	register("padLeft", padLeft)
	register("replace", func(name string, args []any) (any, error) {
		if err := count(name, args, 3, 3); err != nil {
			return nil, err
		}
		parts, err := stringsArgs(name, args)
		if err != nil {
			return nil, err
		}
		if parts[1] == "" {
			return nil, fmt.Errorf("The template language function '%s' expects its second parameter to be a non-empty string.", name)
		}
		return strings.ReplaceAll(parts[0], parts[1], parts[2]), nil
	})
	register("split", split)
	register("substring", substring)
	register("join", join)
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
				return nil, wrongType(name, args, i, "Array")
			}
		}
		return out, nil
	}
	var b strings.Builder
	for i, a := range args {
		if _, isArray := a.([]any); isArray {
			return nil, fmt.Errorf("The template language function '%s' expects its parameters to be either all arrays or all strings; the %s parameter is an array.", name, ordinal(i))
		}
		b.WriteString(text(a))
	}
	return b.String(), nil
}

func stringMap(f func(string) string) impl {
	return stringTo(func(_, s string) (any, error) { return f(s), nil })
}

// stringTo serves the functions of one string parameter.
func stringTo(f func(name, s string) (any, error)) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		s, err := stringArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return f(name, s)
	}
}

func stringTest(f func(s, find string) bool) impl {
	return func(name string, args []any) (any, error) {
		if err := count(name, args, 2, 2); err != nil {
			return nil, err
		}
		parts, err := stringsArgs(name, args)
		if err != nil {
			return nil, err
		}
		return f(parts[0], parts[1]), nil
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

func decodeBase64(name, s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("The template language function '%s' expects a valid base64 string: %v.", name, err)
	}
	return b, nil
}

// parseJSON is json(): the value a JSON text holds, numbers as int64 where integral.
func parseJSON(name, s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("The template language function '%s' expects a valid JSON string: %v.", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("The template language function '%s' expects a valid JSON string: text follows the value.", name)
	}
	return normalize(v)
}

// dataURIToString decodes a data URI: base64 when marked so, percent-encoded otherwise.
func dataURIToString(name, s string) (any, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	header, data, found := strings.Cut(rest, ",")
	if !ok || !found {
		return nil, fmt.Errorf("The template language function '%s' expects a data URI: '%s' is not one.", name, s)
	}
	if strings.HasSuffix(strings.ToLower(header), ";base64") {
		b, err := decodeBase64(name, data)
		return string(b), err
	}
	return unescapeDataString(data), nil
}

// escapeDataString is .NET's Uri.EscapeDataString: every byte but RFC 3986's unreserved
// characters is percent-encoded, in upper-case hex.
func escapeDataString(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// unescapeDataString is .NET's Uri.UnescapeDataString: %XX sequences become their bytes, and a
// '%' that starts no such sequence is kept as it is.
func unescapeDataString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// uri resolves a relative URI against a base as RFC 3986 section 5 specifies.
func uri(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	parts, err := stringsArgs(name, args)
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(parts[0])
	if err != nil || !base.IsAbs() {
		return nil, fmt.Errorf("The template language function '%s' expects its first parameter to be an absolute URI: '%s' is not one.", name, parts[0])
	}
	ref, err := url.Parse(parts[1])
	if err != nil {
		return nil, fmt.Errorf("The template language function '%s' expects its second parameter to be a URI: '%s' is not one.", name, parts[1])
	}
	return base.ResolveReference(ref).String(), nil
}

func padLeft(name string, args []any) (any, error) {
	if err := count(name, args, 2, 3); err != nil {
		return nil, err
	}
	var value string
	switch t := args[0].(type) {
	case string:
		value = t
	case int64:
		value = text(t)
	default:
		return nil, wrongType(name, args, 0, "String", "Integer")
	}
	total, err := intArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	pad := " "
	if len(args) == 3 {
		if pad, err = stringArg(name, args, 2); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(pad) != 1 {
			return nil, fmt.Errorf("The template language function '%s' expects its third parameter to be a single character.", name)
		}
	}
	if missing := int(total) - utf8.RuneCountInString(value); missing > 0 {
		value = strings.Repeat(pad, missing) + value
	}
	return value, nil
}

func split(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	s, err := stringArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	var delimiters []string
	switch t := args[1].(type) {
	case string:
		delimiters = []string{t}
	case []any:
		if delimiters, err = stringsArgs(name, t); err != nil {
			return nil, wrongType(name, args, 1, "String", "Array")
		}
	default:
		return nil, wrongType(name, args, 1, "String", "Array")
	}
	pieces := splitAny(s, delimiters)
	out := make([]any, len(pieces))
	for i, p := range pieces {
		out[i] = p
	}
	return out, nil
}

// splitAny splits as .NET's String.Split(string[]) does: scanning left to right, the first
// delimiter (in the order given) that matches at a position ends a piece; empty delimiters are
// ignored.
func splitAny(s string, delimiters []string) []string {
	var pieces []string
	start := 0
	for i := 0; i < len(s); {
		matched := ""
		for _, d := range delimiters {
			if d != "" && strings.HasPrefix(s[i:], d) {
				matched = d
				break
			}
		}
		if matched == "" {
			i++
			continue
		}
		pieces = append(pieces, s[start:i])
		i += len(matched)
		start = i
	}
	return append(pieces, s[start:])
}

func substring(name string, args []any) (any, error) {
	if err := count(name, args, 1, 3); err != nil {
		return nil, err
	}
	s, err := stringArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	runes := []rune(s)
	var start int64
	if len(args) > 1 {
		if start, err = intArg(name, args, 1); err != nil {
			return nil, err
		}
	}
	length := int64(len(runes)) - start
	if len(args) > 2 {
		if length, err = intArg(name, args, 2); err != nil {
			return nil, err
		}
	}
	if start < 0 || length < 0 || start+length > int64(len(runes)) {
		return nil, fmt.Errorf("The index and length parameters must refer to a location within the string. The index parameter: '%d', the length parameter: '%d', the length of the string parameter: '%d'.",
			start, length, len(runes))
	}
	return string(runes[start : start+length]), nil
}

func join(name string, args []any) (any, error) {
	if err := count(name, args, 2, 2); err != nil {
		return nil, err
	}
	items, err := arrayArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	delimiter, err := stringArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(items))
	for i, item := range items {
		switch item.(type) {
		case string, int64, bool:
			parts[i] = text(item)
		default:
			return nil, fmt.Errorf("The template language function '%s' expects an array of strings, integers or booleans; element %d is of type '%s'.", name, i, typeName(item))
		}
	}
	return strings.Join(parts, delimiter), nil
}
