package arm

import (
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// WriteOption adds a precondition to a write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	ifMatch     string
	ifNoneMatch bool
	// restarted says the operation was started before (Operation.Wait
	// starting it again): that try may have changed the resource's ETag.
	restarted bool
}

// IfMatch makes the write happen only while the resource's ETag is etag (HTTP
// If-Match); ARM answers 412 where the provider honours ETags. An empty etag
// adds no precondition.
func IfMatch(etag string) WriteOption {
	return func(o *writeOptions) { o.ifMatch = etag }
}

// IfNoneMatch makes a PUT create only: it fails with 412 when the resource
// exists (If-None-Match: *).
func IfNoneMatch() WriteOption {
	return func(o *writeOptions) { o.ifNoneMatch = true }
}

func newWriteOptions(opts []WriteOption) writeOptions {
	var w writeOptions
	for _, o := range opts {
		o(&w)
	}
	return w
}

// setHeaders puts the preconditions on the request that starts a write.
func (w writeOptions) setHeaders(h http.Header) {
	if w.ifMatch != "" {
		h.Set("If-Match", w.ifMatch)
	}
	if w.ifNoneMatch {
		h.Set("If-None-Match", "*")
	}
}

func (w writeOptions) conditional() bool { return w.ifMatch != "" || w.ifNoneMatch }

// IsPreconditionFailed reports a write refused because the resource changed
// (If-Match) or appeared (If-None-Match) since it was read.
func IsPreconditionFailed(err error) bool {
	var e *ResponseError
	return errors.As(err, &e) && e.StatusCode == http.StatusPreconditionFailed
}

// preconditionFailure is what a 412 means for the write that carried the
// preconditions.
type preconditionFailure struct {
	writeOptions
	// resent: an earlier try of the same write may have been carried out
	// (it went unanswered, or was answered 408 or 5xx, and was sent again),
	// so the 412 may answer that try.
	resent bool
}

// tries is kept on a request (as an azcore operation value) by tryCounter,
// which sits inside azcore's retry loop: it tells send whether the answer it
// gets is to a resend of a try that may have been carried out.
type tries struct{ unclear bool }

// tryCounter notes, for each try of a request carrying *tries, whether Azure
// may have carried it out without saying so: a transport error, 408 or 5xx,
// after which azcore's retry policy sends the request again.
type tryCounter struct{}

func (tryCounter) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	var t *tries
	if req.OperationValue(&t) && t != nil && (err != nil || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500) {
		t.unclear = true
	}
	return resp, err
}
