package arm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// ARM error codes the client treats specially.
const (
	// CodeAnotherOperationInProgress: a sibling or parent is being changed
	// (subnets of one virtual network, for example); retried with backoff.
	CodeAnotherOperationInProgress = "AnotherOperationInProgress"
	// CodeRetryableError: the resource provider asks for the request to be sent again.
	CodeRetryableError = "RetryableError"
	// CodeParentResourceNotFound and CodeResourceGroupNotFound are retried only
	// shortly after azk created the parent (replication lag), else they fail fast.
	CodeParentResourceNotFound = "ParentResourceNotFound"
	CodeResourceGroupNotFound  = "ResourceGroupNotFound"
)

const headerCorrelationID = "x-ms-correlation-request-id"

// ResponseError is ARM's answer to a request that failed, or the failure of a
// long-running operation.
type ResponseError struct {
	// Method and ID say what was asked: "PUT" and the resource's ARM ID (or the listed path).
	Method, ID string
	// StatusCode is the HTTP status of the failing response; 0 when a
	// long-running operation ARM had accepted failed later.
	StatusCode int
	// Code and Message are ARM's error.code and error.message.
	Code, Message string
	// CorrelationID is x-ms-correlation-request-id; RequestID is x-ms-request-id.
	CorrelationID, RequestID string
	// Attempts is how many times the request was sent when transient-error
	// backoff gave up (0 when it was not retried).
	Attempts int
	// Details are the inner errors ARM's error carries (a deployment
	// validation's refusals, one per resource), each with its target.
	Details []ErrorDetail

	// precondition is set on a 412 answering a conditional write.
	precondition *preconditionFailure
}

// ErrorDetail is one inner error of ARM's error body.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Target  string `json:"target,omitempty"`
}

func (e *ResponseError) Error() string {
	if e.precondition != nil {
		return e.preconditionError()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s:", e.Method, e.ID)
	if e.StatusCode == 0 {
		b.WriteString(" operation failed")
	} else {
		fmt.Fprintf(&b, " %d", e.StatusCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Attempts > 0 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	switch {
	case e.CorrelationID != "":
		fmt.Fprintf(&b, " (correlation ID %s)", e.CorrelationID)
	case e.RequestID != "":
		fmt.Fprintf(&b, " (request ID %s)", e.RequestID)
	}
	return b.String()
}

// preconditionError says plainly what a 412 to a conditional write means.
func (e *ResponseError) preconditionError() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s: make a new plan (412", e.Method, e.ID, e.Conflict())
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	switch {
	case e.CorrelationID != "":
		fmt.Fprintf(&b, ", correlation ID %s", e.CorrelationID)
	case e.RequestID != "":
		fmt.Fprintf(&b, ", request ID %s", e.RequestID)
	}
	b.WriteString(")")
	return b.String()
}

// Conflict says what a 412 to a conditional write means: the resource
// changed, or appeared, since it was read; "" for any other error.
func (e *ResponseError) Conflict() string {
	p := e.precondition
	if p == nil {
		return ""
	}
	var b strings.Builder
	if p.ifMatch != "" {
		etag := p.ifMatch
		if !strings.Contains(etag, `"`) {
			etag = strconv.Quote(etag)
		}
		fmt.Fprintf(&b, "the resource changed in Azure since it was read (ETag %s no longer matches)", etag)
	} else {
		b.WriteString("the resource was created in Azure since it was found absent")
	}
	if p.resent {
		// An earlier try may have been carried out: its own change is then what no longer matches.
		b.WriteString(", or this may be this run's own earlier attempt, sent again after no clear answer")
	}
	return b.String()
}

// IsNotFound reports whether err is ARM's 404 for a resource.
func IsNotFound(err error) bool {
	var e *ResponseError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// newResponseError reads ARM's error body, which is {"error":{"code","message"}}
// for requests, {"status":"Failed","error":{...}} for operations, and bare
// {"code","message"} from a few resource providers. redact (nil for none)
// scrubs the message, which may quote the request body.
func newResponseError(method, id string, resp *http.Response, redact func(string) string) *ResponseError {
	e := &ResponseError{
		Method:        method,
		ID:            id,
		StatusCode:    resp.StatusCode,
		CorrelationID: resp.Header.Get(headerCorrelationID),
		RequestID:     resp.Header.Get("x-ms-request-id"),
	}
	var body struct {
		armError
		Error *armError `json:"error"`
	}
	if payload, err := runtime.Payload(resp); err == nil && json.Unmarshal(payload, &body) == nil {
		if body.Error != nil {
			e.Code, e.Message, e.Details = body.Error.Code, body.Error.Message, body.Error.Details
		} else {
			e.Code, e.Message = body.Code, body.Message
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	if redact != nil {
		e.Message = redact(e.Message)
	}
	return e
}

// armError is ARM's error object.
type armError struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Details []ErrorDetail `json:"details"`
}

// resourceFailure is the failure a resource's body reports with
// provisioningState Failed or Canceled: the error it carries ("error" or
// properties.error), else ProvisioningFailed. Nil when the body reports none.
func resourceFailure(method, id string, resp *http.Response, redact func(string) string) *ResponseError {
	var body struct {
		Error      *armError `json:"error"`
		Properties struct {
			ProvisioningState string    `json:"provisioningState"`
			Error             *armError `json:"error"`
		} `json:"properties"`
	}
	payload, err := runtime.Payload(resp)
	if err != nil || json.Unmarshal(payload, &body) != nil || !failedState(body.Properties.ProvisioningState) {
		return nil
	}
	e := &ResponseError{Method: method, ID: id, CorrelationID: resp.Header.Get(headerCorrelationID), RequestID: resp.Header.Get("x-ms-request-id")}
	for _, a := range []*armError{body.Error, body.Properties.Error} {
		if a != nil && a.Code != "" {
			e.Code, e.Message, e.Details = a.Code, a.Message, a.Details
			break
		}
	}
	if e.Code == "" {
		e.Code = "ProvisioningFailed"
	}
	if e.Message == "" {
		e.Message = "the resource's provisioningState is " + body.Properties.ProvisioningState
	}
	if redact != nil {
		e.Message = redact(e.Message)
	}
	return e
}

// fromAzcore turns the *azcore.ResponseError a poller returns for a failed
// operation into a *ResponseError about the operation's resource, its
// message scrubbed by redact (nil for none).
func fromAzcore(method, id string, err error, redact func(string) string) error {
	var ae *azcore.ResponseError
	if !errors.As(err, &ae) || ae.RawResponse == nil {
		return fmt.Errorf("%s %s: %w", method, id, err)
	}
	e := newResponseError(method, id, ae.RawResponse, redact)
	if ae.RawResponse.StatusCode < 300 {
		e.StatusCode = 0
	}
	if e.Code == "" {
		e.Code = ae.ErrorCode
	}
	return e
}
