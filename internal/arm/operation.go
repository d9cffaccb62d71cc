package arm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/azkcli/azk/internal/armid"
)

// Operation is a write (PUT, PATCH, DELETE) that ARM accepted. It may have
// finished already or run on as a long-running operation; Wait follows it to
// the end with azcore's poller.
type Operation struct {
	// Method and ID say what was asked.
	Method, ID string

	client *Client
	target string
	body   any
	pre    writeOptions
	poller *runtime.Poller[json.RawMessage]

	started       time.Time
	startStatus   int
	correlationID string
	monitor       string        // the URL ARM gave for following the operation, query removed
	asyncURL      string        // the Azure-AsyncOperation URL, to read a failure's error from
	byLocation    bool          // followed through a Location header alone
	state         string        // the last status or provisioningState seen
	delay         time.Duration // the last Retry-After seen
	hinted        bool          // whether the last answer carried a Retry-After at all
}

// start sends the request that begins an operation: the api-version and
// query on the URL, body as JSON, the preconditions pre as headers.
func (c *Client) start(ctx context.Context, method, id, apiVersion string, query url.Values, body any, pre writeOptions) (*Operation, error) {
	// Only a POST names an action (".../purge") after the resource's ID.
	target, err := c.url(id, method == http.MethodPost, apiVersion, query)
	if err != nil {
		return nil, err
	}
	o := &Operation{Method: method, ID: id, client: c, target: target, body: body, pre: pre}
	if err := o.begin(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// begin sends the request that starts the operation, with its preconditions
// (never the polls).
func (o *Operation) begin(ctx context.Context) error {
	resp, err := o.client.send(ctx, o.Method, o.ID, o.target, o.body, o.pre)
	if err != nil {
		return err
	}
	o.started = time.Now()
	o.startStatus = resp.StatusCode
	o.correlationID = resp.Header.Get(headerCorrelationID)
	o.monitor = ""
	o.asyncURL = resp.Header.Get("Azure-AsyncOperation")
	o.byLocation = o.asyncURL == "" && resp.Header.Get("Operation-Location") == "" && resp.Header.Get("Location") != ""
	for _, h := range []string{"Azure-AsyncOperation", "Operation-Location", "Location"} {
		if v := resp.Header.Get(h); v != "" {
			o.monitor = withoutQuery(v)
			break
		}
	}
	o.observe(resp)
	p, err := runtime.NewPoller[json.RawMessage](resp, o.client.pipeline, nil)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.Method, o.ID, err)
	}
	o.poller = p
	return nil
}

// Wait follows the operation until it ends and returns the resource as ARM
// finally describes it (no Body after a delete). A failed operation is a
// *ResponseError with StatusCode 0; one that failed with a transient code
// (AnotherOperationInProgress, RetryableError) is started again with bounded
// backoff. When ctx ends first, the error says what was still in flight and
// wraps ctx.Err().
func (o *Operation) Wait(ctx context.Context) (*Response, error) {
	retry := o.client.opts.Retry
	for attempt := 1; ; attempt++ {
		body, err := o.follow(ctx)
		if err == nil {
			return o.finish(body), nil
		}
		var re *ResponseError
		if !errors.As(err, &re) || re.StatusCode != 0 || !isRetryableFailure(re.Code) {
			return nil, err
		}
		if attempt >= retry.MaxAttempts {
			re.Attempts = attempt
			return nil, re
		}
		if serr := sleep(ctx, retry.backoff(attempt)); serr != nil {
			return nil, fmt.Errorf("%s %s: cancelled while waiting to retry %s: %w", o.Method, o.ID, re.Code, serr)
		}
		o.pre.restarted = true
		if err := o.begin(ctx); err != nil {
			return nil, err
		}
	}
}

func isRetryableFailure(code string) bool {
	return strings.EqualFold(code, CodeAnotherOperationInProgress) || strings.EqualFold(code, CodeRetryableError)
}

// follow polls until the poller is done and returns its result. ARM has
// accepted the operation, so a transport failure while following it (a
// refused connection, a reset) is transient: it is tried again with backoff,
// up to the retry bounds.
func (o *Operation) follow(ctx context.Context) (json.RawMessage, error) {
	opts := o.client.opts
	failures := 0
	retry := func(err error) (bool, error) {
		if ctx.Err() != nil {
			return false, o.interrupted(ctx.Err())
		}
		var ae *azcore.ResponseError
		if errors.As(err, &ae) {
			return false, o.failure(ctx, err)
		}
		if isLeftEndpoint(err) {
			return false, fmt.Errorf("%s %s: following the operation: %w", o.Method, o.ID, err)
		}
		if failures++; failures >= opts.Retry.MaxAttempts {
			return false, fmt.Errorf("%s %s: following the operation: %w (gave up after %d attempts)", o.Method, o.ID, err, failures)
		}
		if serr := sleep(ctx, opts.Retry.backoff(failures)); serr != nil {
			return false, o.interrupted(serr)
		}
		return true, nil
	}
	for !o.poller.Done() {
		d := o.delay
		if d <= 0 && !o.hinted {
			d = o.unhintedWait() // ARM said nothing: poll at the type's pace
		}
		if err := sleep(ctx, min(d, opts.Retry.MaxDelay)); err != nil {
			return nil, o.interrupted(err)
		}
		resp, err := o.poller.Poll(ctx)
		if err != nil {
			if again, err := retry(err); !again {
				return nil, err
			}
			o.delay, o.hinted = 0, false
			continue
		}
		failures = 0
		o.observe(resp)
		if o.byLocation {
			if err := o.locationFailure(resp); err != nil {
				return nil, err
			}
		}
	}
	for {
		body, err := o.poller.Result(ctx)
		if err == nil {
			if o.byLocation && (o.Method == http.MethodPut || o.Method == http.MethodPatch) && (len(body) == 0 || string(body) == "null") {
				return o.readBack(ctx)
			}
			return body, nil
		}
		if again, err := retry(err); !again {
			return nil, err
		}
	}
}

// locationFailure reads the failures azcore's Location poller takes for
// success or for progress: ARM's operation status {"status":"Failed",
// "error":{...}} answered with 200, and a 5xx error, which the pipeline has
// already sent again as often as the retry bounds allow.
func (o *Operation) locationFailure(resp *http.Response) error {
	redact := o.client.opts.Redact
	if resp.StatusCode >= 500 {
		re := newResponseError(o.Method, o.ID, resp, redact)
		if re.Code != "" {
			re.StatusCode = 0 // the operation's error, not the poll's
		}
		return re
	}
	if resp.StatusCode >= 300 {
		return nil // the poller fails on it
	}
	payload, err := runtime.Payload(resp)
	var status struct {
		Status string `json:"status"`
	}
	if err != nil || json.Unmarshal(payload, &status) != nil || !failedState(status.Status) {
		return nil
	}
	re := newResponseError(o.Method, o.ID, resp, redact)
	re.StatusCode = 0
	if re.Code == "" {
		re.Code, re.Message = "OperationFailed", "the operation ended with status "+status.Status
	}
	return re
}

// readBack reads the resource after a PUT or PATCH followed through its
// Location header ended without a body (200 or 204): the Location URL says
// only that the operation ended, the resource's provisioningState how.
func (o *Operation) readBack(ctx context.Context) (json.RawMessage, error) {
	resp, err := o.client.send(ctx, http.MethodGet, o.ID, o.target, nil, writeOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s %s: the operation ended; reading its result: %w", o.Method, o.ID, err)
	}
	if rf := resourceFailure(o.Method, o.ID, resp, o.client.opts.Redact); rf != nil {
		return nil, rf
	}
	return runtime.Payload(resp)
}

// failedState reports an operation status or provisioningState that ends in failure.
func failedState(s string) bool {
	return strings.EqualFold(s, "Failed") || strings.EqualFold(s, "Canceled") || strings.EqualFold(s, "Cancelled")
}

// minPoll is the shortest wait unhintedWait chooses, so that no operation is
// polled in a tight loop.
const minPoll = 100 * time.Millisecond

// unhintedWait is how long to wait before the next poll when ARM's answer
// gave no Retry-After: until the operation is expected to end (its type's
// duration, Options.OperationDuration), then an eighth of that duration
// between polls; PollFrequency when the type's duration is not known.
func (o *Operation) unhintedWait() time.Duration {
	opts := o.client.opts
	var expected time.Duration
	if opts.OperationDuration != nil {
		if id, err := armid.Parse(o.ID); err == nil {
			expected = opts.OperationDuration(o.Method, id.Type())
		}
	}
	if expected <= 0 {
		return opts.PollFrequency
	}
	if left := expected - time.Since(o.started); left > 0 {
		return max(left, expected/16, minPoll)
	}
	return max(expected/8, minPoll)
}

// failure describes a failed operation. An operation followed through its
// Location header fails with the error the Location URL answers. When the
// response that ended it carries no error (a PUT answering 201 with
// provisioningState Failed: the operation had failed before the PUT
// returned), ARM's code and message are read from the operation's
// Azure-AsyncOperation status, else from the resource's body.
func (o *Operation) failure(ctx context.Context, err error) error {
	described := fromAzcore(o.Method, o.ID, err, o.client.opts.Redact)
	var re *ResponseError
	if !errors.As(described, &re) {
		return described
	}
	if o.byLocation && re.StatusCode >= 400 && re.StatusCode < 500 && re.Code != "" {
		// ARM's asynchronous pattern: the Location URL of an operation that
		// failed answers with the operation's error, in an error status.
		re.StatusCode = 0
		return re
	}
	if re.StatusCode != 0 || re.Code != "" {
		return described
	}
	if status := o.asyncStatus(ctx); status != nil {
		if status.CorrelationID == "" {
			status.CorrelationID = re.CorrelationID
		}
		return status
	}
	var ae *azcore.ResponseError
	if errors.As(err, &ae) && ae.RawResponse != nil {
		if rf := resourceFailure(o.Method, o.ID, ae.RawResponse, o.client.opts.Redact); rf != nil {
			return rf
		}
	}
	return described
}

// asyncStatus is the error the operation's Azure-AsyncOperation status
// reports, nil when there is none to read.
func (o *Operation) asyncStatus(ctx context.Context) *ResponseError {
	if o.asyncURL == "" || !o.client.sameHost(o.asyncURL) {
		return nil
	}
	req, err := runtime.NewRequest(ctx, http.MethodGet, o.asyncURL)
	if err != nil {
		return nil
	}
	resp, err := o.client.pipeline.Do(req)
	if err != nil {
		return nil
	}
	status := newResponseError(o.Method, o.ID, resp, o.client.opts.Redact)
	if status.Code == "" {
		return nil
	}
	status.StatusCode = 0
	return status
}

func (o *Operation) finish(body json.RawMessage) *Response {
	switch {
	case o.Method == http.MethodPut && o.startStatus == http.StatusCreated:
		o.client.shared.created.note(o.ID, time.Now())
	case o.Method == http.MethodDelete:
		o.client.shared.created.forget(o.ID)
	}
	r := &Response{StatusCode: o.startStatus, CorrelationID: o.correlationID}
	if len(body) > 0 && string(body) != "null" {
		r.Body = body
		r.ETag = bodyETag(body)
	}
	return r
}

// observe keeps what a response says about progress: the operation's status
// or the resource's provisioningState, and the Retry-After.
func (o *Operation) observe(resp *http.Response) {
	o.delay = retryAfter(resp)
	o.hinted = resp.Header.Get("Retry-After") != "" || resp.Header.Get("retry-after-ms") != "" || resp.Header.Get("x-ms-retry-after-ms") != ""
	payload, err := runtime.Payload(resp)
	if err != nil || len(payload) == 0 {
		return
	}
	var body struct {
		Status     string `json:"status"`
		Properties struct {
			ProvisioningState string `json:"provisioningState"`
		} `json:"properties"`
	}
	if json.Unmarshal(payload, &body) != nil {
		return
	}
	if body.Status != "" {
		o.state = body.Status
	} else if body.Properties.ProvisioningState != "" {
		o.state = body.Properties.ProvisioningState
	}
}

// interrupted describes the operation that was in flight when ctx ended.
func (o *Operation) interrupted(err error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: stopped waiting after %s", o.Method, o.ID, time.Since(o.started).Round(time.Millisecond))
	b.WriteString("; the operation may still be running in Azure")
	if o.state != "" {
		fmt.Fprintf(&b, " (last status %s)", o.state)
	}
	if o.monitor != "" {
		fmt.Fprintf(&b, ", operation %s", o.monitor)
	}
	if o.correlationID != "" {
		fmt.Fprintf(&b, ", correlation ID %s", o.correlationID)
	}
	return fmt.Errorf("%s: %w", b.String(), err)
}

// withoutQuery drops a URL's query, which for ARM operation URLs holds signatures.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery = ""
	return u.String()
}
