package arm

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// locationARM plays ARM for one write followed through its Location header
// alone: the PUT answers 201 with provisioningState Creating (a DELETE 202),
// the Location URL answers 202 twice and then end; a GET of the resource
// answers resource.
type locationARM struct {
	end      func(w http.ResponseWriter)
	resource string
	polls    atomic.Int32
}

func (a *locationARM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(headerCorrelationID, "corr-1")
	switch {
	case r.Method == http.MethodPut:
		w.Header().Set("Location", "http://"+r.Host+"/operationResults/1")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"properties": {"provisioningState": "Creating"}}`))
	case r.Method == http.MethodDelete:
		w.Header().Set("Location", "http://"+r.Host+"/operationResults/1")
		w.WriteHeader(http.StatusAccepted)
	case strings.HasPrefix(r.URL.Path, "/operationResults/"):
		if a.polls.Add(1) <= 2 {
			w.Header().Set("Location", "http://"+r.Host+r.URL.Path)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		a.end(w)
	default:
		w.Write([]byte(a.resource))
	}
}

func respond(status int, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

// TestFailedOperationFollowedByLocationIsAnError: a create ARM answers 201
// with a Location header, or a delete answered 202, whose operation fails is
// a *ResponseError with StatusCode 0 and ARM's code, in each form ARM ends
// such an operation: the operation's status with 200, an error status (4xx,
// or 5xx once retries are spent), or 200/204 with no body after which the
// resource shows provisioningState Failed. A real success still succeeds,
// with the resource as ARM describes it.
func TestFailedOperationFollowedByLocationIsAnError(t *testing.T) {
	const failedWithError = `{"properties": {"provisioningState": "Failed", "error": {"code": "SomeCode", "message": "the disk is full"}}}`
	const failedBare = `{"properties": {"provisioningState": "Failed"}}`
	const succeeded = `{"name": "v1", "properties": {"provisioningState": "Succeeded"}}`
	for _, tt := range []struct {
		name     string
		method   string
		end      func(http.ResponseWriter)
		resource string
		code     string // "" for success
		message  string
	}{
		{"status Failed with 200", http.MethodPut, respond(200, `{"status": "Failed", "error": {"code": "SomeCode", "message": "the disk is full"}}`), succeeded, "SomeCode", "the disk is full"},
		{"status Canceled without error", http.MethodPut, respond(200, `{"status": "Canceled"}`), succeeded, "OperationFailed", "the operation ended with status Canceled"},
		{"4xx error", http.MethodPut, respond(409, `{"error": {"code": "SomeCode", "message": "the disk is full"}}`), succeeded, "SomeCode", "the disk is full"},
		{"5xx error", http.MethodPut, respond(500, `{"error": {"code": "SomeCode", "message": "the disk is full"}}`), succeeded, "SomeCode", "the disk is full"},
		{"204, resource failed with its error", http.MethodPut, respond(204, ""), failedWithError, "SomeCode", "the disk is full"},
		{"200 without body, resource failed", http.MethodPut, respond(200, ""), failedBare, "ProvisioningFailed", "the resource's provisioningState is Failed"},
		{"204, resource succeeded", http.MethodPut, respond(204, ""), succeeded, "", ""},
		{"delete: status Failed with 200", http.MethodDelete, respond(200, `{"status": "Failed", "error": {"code": "SomeCode", "message": "the disk is full"}}`), "", "SomeCode", "the disk is full"},
		{"delete: 4xx error", http.MethodDelete, respond(400, `{"error": {"code": "SomeCode", "message": "the disk is full"}}`), "", "SomeCode", "the disk is full"},
		{"delete: 5xx error", http.MethodDelete, respond(503, `{"error": {"code": "SomeCode", "message": "the disk is full"}}`), "", "SomeCode", "the disk is full"},
		{"delete: 204", http.MethodDelete, respond(204, ""), "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			arm := &locationARM{end: tt.end, resource: tt.resource}
			srv := httptest.NewServer(arm)
			defer srv.Close()
			c, err := New(Options{Credential: EmulatorCredential, Endpoint: srv.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testContext(t)
			id := vnetID("rg", "v1")
			var op *Operation
			if tt.method == http.MethodPut {
				op, err = c.Put(ctx, id, networkAPI, vnetBody)
			} else {
				op, err = c.Delete(ctx, id, networkAPI)
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := op.Wait(ctx)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("a successful operation: %v", err)
				}
				if tt.method == http.MethodPut && string(res.Body) != succeeded {
					t.Errorf("result %s, want the resource %s", res.Body, succeeded)
				}
				return
			}
			var re *ResponseError
			if !errors.As(err, &re) || re.StatusCode != 0 || re.Code != tt.code || re.Message != tt.message || re.CorrelationID != "corr-1" {
				t.Fatalf("got %#v (%v), want the operation's %s: %s", err, err, tt.code, tt.message)
			}
			if !strings.Contains(err.Error(), "operation failed "+tt.code) {
				t.Errorf("error %q does not say the operation failed with %s", err, tt.code)
			}
		})
	}
}
