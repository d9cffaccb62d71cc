package middleware

import (
	"net/http"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// LockChecker decides whether a management lock forbids a request.
type LockChecker interface {
	CheckLocks(r *http.Request, t armpath.Target) error
}

// EnforceLocks refuses the requests a management lock forbids (409
// ScopeLocked), as ARM does for every caller: inner middleware, after
// authorization, as ARM checks locks only for a request it lets through.
func EnforceLocks(l LockChecker) armcore.Middleware { return refuseWhen(l.CheckLocks) }
