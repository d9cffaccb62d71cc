package deploy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// What the engine retries, as ARM's deployment engine does (docs/deployment.md,
// "What ARM's deployment engine retries"): a request that was not served
// (408, 429 and 5xx: the resource provider contract's retry guidance, with
// the answer's Retry-After), an operation in progress on the resource or
// its parent (409 AnotherOperationInProgress, RetryableError), and a
// ResourceGroupNotFound for the group the deployment runs in, which ARM
// checked exists when the deployment started, so that the answer can only
// be replication lag. Anything else is the resource's failure.
const (
	// retryAttempts bounds the tries of one request. ARM documents no bound
	// for its own retries; 30 is the most it lets a template ask for with
	// @retryOn.
	retryAttempts = 30
	// retryFirstWait is the first wait without a Retry-After, doubled on
	// each further try up to retryMaxWait, which also caps a Retry-After.
	retryFirstWait = 100 * time.Millisecond
	retryMaxWait   = 10 * time.Second
)

// innerRequest is one request of the engine's to the resource providers.
type innerRequest struct {
	method string
	// target is the request's path and query.
	target      string
	body        []byte
	correlation string
	// group is the resource group the deployment runs in ("" outside one).
	group string
}

// resourceRequest is the request of a deployment run on the resource id.
func resourceRequest(method, id, apiVersion string, body []byte, run *deploymentRun) innerRequest {
	return innerRequest{method: method, target: requestURI(id, apiVersion), body: body, correlation: run.CorrelationID, group: run.RG}
}

// sendWithRetry sends an inner request, riding through what ARM's engine
// retries, and returns a successful answer or the error of the last one.
func (e *Engine) sendWithRetry(ctx context.Context, req innerRequest) (*httptest.ResponseRecorder, error) {
	wait := retryFirstWait
	for attempt := 1; ; attempt++ {
		rec := e.selfURL(ctx, req.method, req.target, req.body, req.correlation)
		if rec.Code < 300 {
			return rec, nil
		}
		ae := responseError(rec)
		ae.Status = rec.Code
		if !retryable(rec.Code, ae.Code, req) || attempt >= retryAttempts {
			return nil, ae
		}
		d := wait
		if hinted, ok := retryAfter(rec.Header()); ok {
			d = min(hinted, retryMaxWait)
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wait = min(wait*2, retryMaxWait/2)
	}
}

// retryable reports whether an answer with status and ARM error code is one
// ARM's engine tries again.
func retryable(status int, code string, req innerRequest) bool {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests, status >= 500:
		return true
	case strings.EqualFold(code, "AnotherOperationInProgress"), strings.EqualFold(code, "RetryableError"):
		return true
	case status == http.StatusNotFound && strings.EqualFold(code, "ResourceGroupNotFound") && req.group != "":
		u, err := url.Parse(req.target)
		if err != nil {
			return false
		}
		t, ok := armpath.Parse(u.Path)
		return ok && strings.EqualFold(t.RG, req.group)
	}
	return false
}

// retryAfter reads an answer's retry hint: retry-after-ms first, as the
// Azure SDKs do (a time-compressed emulator gives it), then Retry-After in seconds.
func retryAfter(h http.Header) (time.Duration, bool) {
	if ms, err := strconv.ParseInt(h.Get("retry-after-ms"), 10, 64); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond, true
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	return 0, false
}

// follow polls a long-running operation until it ends: an
// Azure-AsyncOperation status, or a Location that answers 202 until done.
// It sleeps until the operation is due, as the emulator knows. A poll that
// is throttled or meets a server error is tried again: it failed to read
// the status, not the operation (the resource provider contract).
func (e *Engine) follow(ctx context.Context, monitor string, location bool) error {
	u, err := url.Parse(monitor)
	if err != nil {
		return err
	}
	opID := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	for {
		sleep := 20 * time.Millisecond
		if until, ok := e.core.OperationEnds(opID); ok {
			sleep = max(time.Until(until)+time.Millisecond, time.Millisecond)
		}
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return ctx.Err()
		}
		rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodGet, target: u.RequestURI()})
		if err != nil {
			return err
		}
		if location {
			if rec.Code == http.StatusAccepted {
				continue
			}
			return nil
		}
		var status struct {
			Status string         `json:"status"`
			Error  *armcore.Error `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
			return err
		}
		switch status.Status {
		case armcore.StateSucceeded:
			return nil
		case armcore.StateFailed, "Canceled":
			if status.Error == nil {
				status.Error = &armcore.Error{Code: "ResourceDeploymentFailure", Message: "The resource operation completed with terminal provisioning state '" + status.Status + "'."}
			}
			return status.Error
		}
	}
}
