package armcore

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/emulator/identity"
)

// Tenant is the Microsoft Entra tenant the emulator reports identities in.
const Tenant = identity.Tenant

// Principal is who a request acts as (identity.Principal).
type Principal = identity.Principal

// principalKey is the context key of a request's Principal.
type principalKey struct{}

// PrincipalOf is who an authenticated request acts as: the principal of the
// token the emulator's token service issued, or identity.Default for any
// other bearer token. Middleware inside the core's authentication (the
// inner middleware, routes, hooks given the request) can read it; ok is
// false before authentication.
func PrincipalOf(r *http.Request) (p Principal, ok bool) {
	p, ok = r.Context().Value(principalKey{}).(Principal)
	return p, ok
}

// Issuer is the token issuer whose tokens the core verifies; the emulator's
// token service issues with it.
func (c *Core) Issuer() *identity.Issuer { return c.issuer }

// authenticate refuses a request without a bearer token, as ARM does. A
// JWT-shaped token must be one the emulator's token service issued, still
// valid, for ARM's audience (or the emulator's own URL); any other token is
// accepted unchecked as the default principal, as azk's own emulator
// credential and tests rely on.
func (c *Core) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer authorization_uri="`+BaseURL(r)+`/`+Tenant+`", error="invalid_token", error_description="The authentication failed because of missing 'Authorization' header."`)
			WriteError(w, http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
			return
		}
		p := identity.Default
		if identity.IsJWT(token) {
			base := BaseURL(r)
			var err error
			if p, err = c.issuer.Verify(token, base, base+"/"); err != nil {
				var ie *identity.Error
				if !errors.As(err, &ie) {
					WriteARMError(w, err)
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer authorization_uri="`+base+`/`+Tenant+`", error="invalid_token", error_description="`+ie.Message+`"`)
				WriteError(w, http.StatusUnauthorized, ie.Code, "%s", ie.Message)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}
