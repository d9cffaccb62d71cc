package providers

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// DefaultPrincipal is the caller a bearer token stands for when it names no
// principal (the emulator accepts any token): the object ID the emulator
// reports for azk's own emulator credential.
const DefaultPrincipal = "e1a70000-0000-4000-8000-000000000001"

// principalOf is the object ID of the request's caller: the "oid" claim of
// a JWT bearer token, else DefaultPrincipal. The signature is not checked:
// the emulator trusts its callers, and only reads who they say they are.
func principalOf(r *http.Request) string {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return DefaultPrincipal
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return DefaultPrincipal
	}
	var claims struct {
		OID string `json:"oid"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.OID == "" {
		return DefaultPrincipal
	}
	return claims.OID
}
