package armcore

import (
	"bytes"
	"encoding/json"
)

// ARM reads request bodies with a lenient JSON reader (Newtonsoft's): it
// takes // and /* */ comments (templates may carry them), property names
// without quotes and a comma before a closing bracket. The Azure CLI relies
// on it: it splices a deployment's template into the request body after an
// unquoted "template:" key. strictJSON turns such a body into standard
// JSON, so that every handler behind the front reads it as ARM would.

// strictJSON returns body as standard JSON: unchanged when it already is,
// else with comments dropped, bare property names quoted and trailing
// commas removed. A body that is still not JSON is returned as it was, for
// the handler to refuse.
func strictJSON(body []byte) []byte {
	if len(bytes.TrimSpace(body)) == 0 || json.Valid(body) {
		return body
	}
	var out bytes.Buffer
	out.Grow(len(body) + 16)
	// expectKey is true where an object member name may start: after '{' or
	// a ',' inside an object.
	var stack []byte // open brackets
	expectKey := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for ; j < len(body) && body[j] != c; j++ {
				if body[j] == '\\' {
					j++
				}
			}
			if j >= len(body) {
				return body
			}
			if c == '"' {
				out.Write(body[i : j+1])
			} else {
				s, err := json.Marshal(string(body[i+1 : j]))
				if err != nil {
					return body
				}
				out.Write(s)
			}
			i, expectKey = j, false
		case c == '/' && i+1 < len(body) && body[i+1] == '/':
			for i < len(body) && body[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(body) && body[i+1] == '*':
			end := bytes.Index(body[i+2:], []byte("*/"))
			if end < 0 {
				return body
			}
			i += end + 3
			out.WriteByte(' ')
		case c == '{' || c == '[':
			stack = append(stack, c)
			expectKey = c == '{'
			out.WriteByte(c)
		case c == '}' || c == ']':
			trimTrailingComma(&out)
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
			out.WriteByte(c)
		case c == ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
			out.WriteByte(c)
		case expectKey && isNameStart(c):
			j := i
			for j < len(body) && isNameChar(body[j]) {
				j++
			}
			out.WriteByte('"')
			out.Write(body[i:j])
			out.WriteByte('"')
			i, expectKey = j-1, false
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				expectKey = false
			}
			out.WriteByte(c)
		}
	}
	if !json.Valid(out.Bytes()) {
		return body
	}
	return out.Bytes()
}

// trimTrailingComma drops a ',' (and the blanks after it) at the end of out.
func trimTrailingComma(out *bytes.Buffer) {
	b := out.Bytes()
	i := len(b)
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t' || b[i-1] == '\n' || b[i-1] == '\r') {
		i--
	}
	if i > 0 && b[i-1] == ',' {
		out.Truncate(i - 1)
	}
}

func isNameStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }
