package armcore

import (
	"net/http"
	"strings"
)

// Tenant is the Microsoft Entra tenant the emulator reports identities in.
const Tenant = "72f988bf-0000-4000-8000-000000000000"

// authenticate refuses a request without a bearer token, as ARM does; the
// token itself is not checked.
func authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			w.Header().Set("WWW-Authenticate", `Bearer authorization_uri="https://login.microsoftonline.com/common", error="invalid_token", error_description="The authentication failed because of missing 'Authorization' header."`)
			WriteError(w, http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
			return
		}
		next.ServeHTTP(w, r)
	})
}
