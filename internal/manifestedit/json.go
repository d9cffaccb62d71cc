package manifestedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// jsonText is v as one line of JSON, which is also valid YAML flow text.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonIndented is v as indented JSON whose first line continues a line and
// whose other lines start with prefix.
func jsonIndented(v any, prefix, indent string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
