package bodydiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/convert"
)

// Origin says, in a three-way plan (azk plan --base), where a difference
// comes from, as Terraform tells changes to the configuration from changes
// outside it.
type Origin string

const (
	// OriginChange: the manifests changed there between the base and these
	// (the change under review), or the resource is new in this change.
	OriginChange Origin = "change"
	// OriginDrift: the manifests did not change there; Azure differs from
	// them, and applying reverts it.
	OriginDrift Origin = "drift"
)

// Change is one property-level difference between Azure and the desired body.
// Before is absent for an added property, After for a removed one.
type Change struct {
	// Path is the property's location in the ARM body, e.g. "properties.addressSpace.addressPrefixes[0]".
	Path   string `json:"path"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
	// Sensitive values are never compared or shown: Before and After are empty.
	Sensitive bool `json:"sensitive,omitempty"`
	// Unknown means After is known only after a dependency is applied.
	Unknown bool `json:"unknown,omitempty"`
	// Origin is set in a three-way plan (azk plan --base) only.
	Origin Origin `json:"origin,omitempty"`
}

// PathValue is a value at a body path: Azure's in Resource.AzureOnly, the
// manifests' in Resource.NotReturned.
type PathValue struct {
	// Path is written as Change.Path is.
	Path string `json:"path"`
	// Value is absent when Sensitive.
	Value any `json:"value,omitempty"`
	// Sensitive marks a secret: never shown.
	Sensitive bool `json:"sensitive,omitempty"`
	// Reason says why a value Azure holds is listed though the kind's
	// schema has no field for it (ReasonUnexpressed, ReasonUnknownToAPI).
	Reason string `json:"reason,omitempty"`
}

// SensitiveDigest stands for a secret in a plan read from a file: the
// argon2id key of the value under the plan's SecretSalt.
// It prints as convert.SensitiveText.
type SensitiveDigest string

// MarshalJSON hides the digest as well: only saved plans carry it.
func (SensitiveDigest) MarshalJSON() ([]byte, error) { return json.Marshal(convert.SensitiveText) }

// Shown is a desired value as it may be printed or saved: secrets as
// SensitiveText, never their values.
func Shown(v any) any {
	switch t := v.(type) {
	case convert.Sensitive, SensitiveDigest:
		return convert.SensitiveText
	case convert.Unknown:
		return t.Text()
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = Shown(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Shown(e)
		}
		return out
	}
	return v
}

// Format prints a value as JSON, secrets and unknowns as their texts.
func Format(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Shown(v)); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
