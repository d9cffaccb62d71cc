package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/graph"
)

// SensitiveText is how secret values print everywhere except in the request sent to ARM.
const SensitiveText = "(sensitive)"

// UnknownText is how values that exist only after another resource is applied print.
const UnknownText = "(known after apply)"

// SensitiveUnknownText is how a secret that another resource exports, known
// only once that resource exists, prints.
const SensitiveUnknownText = "(sensitive, known after apply)"

// Sensitive is a secret value inside a body. It marshals as SensitiveText, so a
// body printed, logged or saved by ordinary means never shows the secret;
// only MarshalRequest reveals it.
type Sensitive struct {
	value string
	// fetched marks a secret another resource exports, fetched from Azure
	// during the run: never to be stored, not even as a digest.
	fetched bool
}

// Fetched reports a secret fetched from Azure during the run (see
// Sources.Secrets), as opposed to one the input holds.
func (s Sensitive) Fetched() bool { return s.fetched }

// MarshalJSON hides the value.
func (Sensitive) MarshalJSON() ([]byte, error) { return json.Marshal(SensitiveText) }

// String hides the value from fmt as well.
func (Sensitive) String() string { return SensitiveText }

// Unknown is a value that becomes known only after a resource it depends on
// exists (a config map exported from another resource's status, a role name
// resolved against Azure). Reason says what it waits for.
type Unknown struct {
	Reason string
	// Sensitive marks a secret: once known, it is not shown either.
	Sensitive bool
	// Export is set for a config-map value exported by another input
	// resource: which one, and the config map name and key it is read from,
	// so that a deployment template can read it there itself.
	Export *ExportRef
	// ExportedBy is the input resource whose export (a config map or a
	// Secret) the value waits for; nil for a value no resource exports.
	ExportedBy *graph.Node
}

// ExportRef names a config-map value another resource exports.
type ExportRef struct {
	From           *graph.Node
	ConfigMap, Key string
}

// Text is how the value prints: UnknownText, or SensitiveUnknownText for a secret.
func (u Unknown) Text() string {
	if u.Sensitive {
		return SensitiveUnknownText
	}
	return UnknownText
}

// MarshalJSON prints the placeholder.
func (u Unknown) MarshalJSON() ([]byte, error) { return json.Marshal(u.Text()) }

// MarshalRequest encodes a body as sent to ARM: secret values revealed. It fails
// when any value is still unknown, so a partial body is never sent.
func MarshalRequest(body map[string]any) ([]byte, error) {
	if unknown := unknownPaths(body, ""); len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("values not known yet: %s", strings.Join(unknown, ", "))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(RevealSecrets(body)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// RevealSecrets copies v with every Sensitive value replaced by its text, for
// the request itself and for an explicit --show-sensitive. Unknown values stay.
func RevealSecrets(v any) any {
	switch t := v.(type) {
	case Sensitive:
		return t.value
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = RevealSecrets(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = RevealSecrets(e)
		}
		return out
	}
	return v
}

// HasUnknown reports whether any value in v is still unknown.
func HasUnknown(v any) bool { return len(unknownPaths(v, "")) > 0 }

func unknownPaths(v any, path string) []string {
	switch t := v.(type) {
	case Unknown:
		return []string{strings.TrimPrefix(path, ".")}
	case map[string]any:
		var out []string
		for k, e := range t {
			out = append(out, unknownPaths(e, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range t {
			out = append(out, unknownPaths(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return nil
}
