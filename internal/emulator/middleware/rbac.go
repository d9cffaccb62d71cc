package middleware

import (
	"net/http"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Authorizer decides whether the caller of a request may make it.
type Authorizer interface {
	Authorize(r *http.Request, t armpath.Target) error
}

// EnforceRBAC refuses the requests a refuses (403 AuthorizationFailed for
// a write the caller's role assignments do not allow), as ARM does; it is
// inner middleware, so it sees only authenticated, valid requests.
func EnforceRBAC(a Authorizer) armcore.Middleware { return refuseWhen(a.Authorize) }

// refuseWhen answers with ARM's error the requests on a resource that
// check refuses, and passes the rest on.
func refuseWhen(check func(*http.Request, armpath.Target) error) armcore.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if t, ok := armcore.TargetOf(r); ok {
				if err := check(r, t); err != nil {
					armcore.WriteARMError(w, err)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
