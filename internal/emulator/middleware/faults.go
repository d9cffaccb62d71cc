// Package middleware holds the emulator's HTTP middleware (http.Handler
// wrappers that armcore.Core.Handler slots in): the request-level faults,
// latency, throttling by token buckets, and random throttling and transient
// errors. A new rule that acts on requests rather than on a resource's
// semantics (another throttle, an authorization check) belongs here.
package middleware

import (
	"net/http"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/faults"
)

// Latency delays every request by the faults' Latency; a request whose
// client gives up meanwhile gets no answer.
func Latency(fs *faults.State) armcore.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if d := fs.Get().Latency; d > 0 {
				select {
				case <-time.After(d):
				case <-r.Context().Done():
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// RequestFaults answers a valid request with a throttling or transient
// error when a fault says so: the subscription's token buckets first, then
// the random throttling and transient rates. compression is the emulator's
// time compression, for the Retry-After it gives.
func RequestFaults(fs *faults.State, compression float64) armcore.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t, _ := armcore.TargetOf(r)
			if injectRequestFaults(fs, compression, w, r, t.Sub) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// injectRequestFaults answers the request with a throttling or transient
// error when a fault says so, and reports whether it did.
func injectRequestFaults(fs *faults.State, compression float64, w http.ResponseWriter, r *http.Request, sub string) bool {
	f := fs.Get()
	subject := r.Method + " " + r.URL.Path
	if throttle(fs, compression, w, r, sub, f) {
		return true
	}
	if fs.Hit(f.ThrottleRate, "throttle", subject) {
		writeThrottled(w, classOf(r.Method), sub, time.Second, 1)
		return true
	}
	if fs.Hit(f.TransientRate, "transient", subject) {
		if fs.Chance("transient-kind", subject) < 0.5 {
			armcore.WriteError(w, http.StatusInternalServerError, "InternalServerError", "Encountered an internal server error.")
		} else {
			w.Header().Set("Retry-After", "1")
			armcore.WriteError(w, http.StatusServiceUnavailable, "ServiceUnavailable", "The server is currently unable to handle the request.")
		}
		return true
	}
	return false
}
