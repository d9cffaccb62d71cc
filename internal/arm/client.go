// Package arm is azk's one way to talk to Azure Resource Manager. It is built
// on the Azure SDK's own pipeline (azcore/arm/runtime), so requests are
// authenticated, retried on 408/429/5xx honouring Retry-After, and logged the
// way the official tools do it; long-running operations are followed with
// azcore's pollers (Azure-AsyncOperation, Location and body polling).
//
// On top of azcore the client adds what a correct apply needs: ARM errors as
// *ResponseError with code, message and correlation ID; bounded backoff for
// the transient ARM conditions an apply must ride through (another operation in
// progress, replication lag after azk created a parent, RetryableError); and a
// rate budget mirroring ARM's token buckets (budget.go) that paces every
// request, so that an apply runs as fast as ARM allows without being throttled.
package arm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	armpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/policy"
	armruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/azkcli/azk/internal/armid"
)

// DefaultParallelism (0) sets no bound on the requests in flight. What limits
// a subscription is ARM's token buckets, not concurrency: the rate budget
// (Options.RateLimits) paces every request by them, and an operation in
// flight costs only its polls. A fixed bound such as Terraform's 10 leaves
// most of the budget unused while operations run for seconds or minutes.
const DefaultParallelism = 0

// Options configures a Client. Only Credential is required; every other zero
// value means "the default for Azure public cloud".
type Options struct {
	// Credential authenticates every request (see NewCredential and EmulatorCredential).
	Credential azcore.TokenCredential
	// Subscription is the subscription this client acts in; RoleDefinitionID looks roles up there.
	Subscription string
	// Cloud selects the Azure cloud; the zero value is Azure public cloud.
	Cloud cloud.Configuration
	// Endpoint replaces the cloud's Resource Manager URL, e.g. the emulator's
	// "https://127.0.0.1:8443". Empty uses the cloud's.
	Endpoint string
	// Transport sends the HTTP requests; nil uses azcore's default. Set it to
	// trust the emulator's certificate. An *http.Client (and the default) is
	// used with redirects turned off: ARM does not redirect, and a redirect
	// would carry a body and the token elsewhere.
	Transport policy.Transporter
	// AllowHTTP permits a plain-HTTP Endpoint. The bearer token then travels in
	// clear text, so only tests against a local emulator set it.
	AllowHTTP bool
	// Parallelism bounds concurrent reads and, separately, concurrent writes;
	// 0 (DefaultParallelism) sets no bound.
	Parallelism int
	// RateLimits are the token buckets the client assumes ARM keeps for the
	// subscription; the zero value means DefaultRateLimits. The answers'
	// x-ms-ratelimit-remaining-* headers correct them as the run goes.
	RateLimits RateLimits
	Retry      RetryOptions
	// PollFrequency is how often a long-running operation is polled when ARM
	// sends no Retry-After and its type's duration is not known (0 means 10s).
	PollFrequency time.Duration
	// OperationDuration is how long an operation (PUT, PATCH or DELETE) on an
	// ARM type is expected to take, 0 when unknown; it paces the polls ARM
	// gives no Retry-After for. Nil knows no type.
	OperationDuration func(method, armType string) time.Duration
	// ReplicationWindow is how long after azk created a resource a "not found"
	// for it or anything under it is taken for ARM replication lag and retried
	// (0 means 2 minutes).
	ReplicationWindow time.Duration
	// Redact scrubs ARM's error messages as they are read, before any error
	// carries them: a resource provider can quote the request body, secrets
	// included (see package redact). Nil keeps them as they are.
	Redact func(string) string

	// Version is azk's version, sent as "azk/<version>" at the head of every
	// request's User-Agent ("" sends "azk/dev").
	Version string
	// RunID is sent as every request's x-ms-correlation-request-id; "" uses
	// the process's RunID().
	RunID string

	// principal names the identity requests are sent as (a credential
	// Secret's name; "" for the client's own): ARM keeps a budget for each.
	principal string
}

// RetryOptions bounds both azcore's HTTP retries (408, 429, 500, 502, 503, 504)
// and the client's backoff on transient ARM error codes.
type RetryOptions struct {
	// MaxAttempts is the number of tries of one request, first included (0 means 6).
	MaxAttempts int
	// Delay is the first backoff, doubled on each further try (0 means 1s).
	Delay time.Duration
	// MaxDelay caps every wait, including a server's Retry-After (0 means 60s).
	MaxDelay time.Duration
	// ThrottledTries and ThrottledFor bound how often, and how long, a read
	// or POST answered 429 is sent again before it fails with a
	// ThrottledError (0 means DefaultThrottledTries, DefaultThrottledFor).
	ThrottledTries int
	ThrottledFor   time.Duration
}

func (o RetryOptions) withDefaults() RetryOptions {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 6
	}
	if o.Delay <= 0 {
		o.Delay = time.Second
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = time.Minute
	}
	if o.ThrottledTries <= 0 {
		o.ThrottledTries = DefaultThrottledTries
	}
	if o.ThrottledFor <= 0 {
		o.ThrottledFor = DefaultThrottledFor
	}
	return o
}

// azcore is the same bounds as azcore's retry options, where 0 retries means "the default".
func (o RetryOptions) azcore() policy.RetryOptions {
	retries := int32(o.MaxAttempts - 1)
	if retries == 0 {
		retries = -1
	}
	return policy.RetryOptions{MaxRetries: retries, RetryDelay: o.Delay, MaxRetryDelay: o.MaxDelay}
}

// backoff is the wait before try number attempt+1: Delay doubled per try, at most MaxDelay.
func (o RetryOptions) backoff(attempt int) time.Duration {
	d := o.Delay
	for i := 1; i < attempt && d < o.MaxDelay; i++ {
		d *= 2
	}
	return min(d, o.MaxDelay)
}

// Client sends ARM requests for one identity and subscription. It is safe
// for concurrent use. Clients made from it with ForSecret share its
// concurrency limits, its record of created resources and its role cache.
type Client struct {
	pipeline     runtime.Pipeline
	endpoint     string
	subscription string
	opts         Options
	shared       *sharedState
	// routes maps lower-cased ARM IDs to the client that acts on them (see Route).
	routes sync.Map
}

// sharedState is what every client of one azk run has in common.
type sharedState struct {
	limiter *limiter // nil when the requests in flight are not bounded
	created createdLog
	roles   roleCache

	// budgets pace the requests by ARM's buckets and the resource
	// providers' counters, for each subscription (see budget.go).
	budgets *budgets
}

// New builds a client on azcore's ARM pipeline.
func New(o Options) (*Client, error) {
	if o.Credential == nil {
		return nil, errors.New("arm: no credential")
	}
	if o.RateLimits.zero() {
		o.RateLimits.Reads, o.RateLimits.Writes, o.RateLimits.Deletes = DefaultRateLimits.Reads, DefaultRateLimits.Writes, DefaultRateLimits.Deletes
	}
	o.Retry = o.Retry.withDefaults()
	if o.PollFrequency <= 0 {
		o.PollFrequency = 10 * time.Second
	}
	if o.ReplicationWindow <= 0 {
		o.ReplicationWindow = 2 * time.Minute
	}
	shared := &sharedState{budgets: newBudgets(o.RateLimits, o.Retry.MaxDelay)}
	if o.Parallelism > 0 {
		shared.limiter = newLimiter(o.Parallelism)
	}
	return newClient(o, shared)
}

func newClient(o Options, shared *sharedState) (*Client, error) {
	cfg := o.Cloud
	if len(cfg.Services) == 0 {
		cfg = cloud.AzurePublic
	}
	rm := cfg.Services[cloud.ResourceManager]
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("endpoint %q is not an http(s) URL", o.Endpoint)
		}
		if u.Scheme == "http" && !o.AllowHTTP {
			return nil, fmt.Errorf("endpoint %s is plain HTTP: the access token would travel unencrypted; use https", o.Endpoint)
		}
		rm.Endpoint = strings.TrimSuffix(o.Endpoint, "/")
		cfg = cloud.Configuration{
			ActiveDirectoryAuthorityHost: cfg.ActiveDirectoryAuthorityHost,
			Services:                     map[cloud.ServiceName]cloud.ServiceConfiguration{cloud.ResourceManager: rm},
		}
	}
	endpoint, err := url.Parse(rm.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %w", rm.Endpoint, err)
	}
	copts := &armpolicy.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud:     cfg,
			Transport: withoutRedirects(o.Transport),
			Retry:     o.Retry.azcore(),
			Logging: policy.LogOptions{
				// Bodies are never logged (PUT bodies and list-keys answers carry secrets),
				// nor operation URLs, whose queries carry ARM's signatures.
				IncludeBody: false,
				AllowedHeaders: []string{headerCorrelationID, "x-ms-routing-request-id", "ETag",
					"x-ms-ratelimit-remaining-subscription-reads", "x-ms-ratelimit-remaining-subscription-writes", "x-ms-ratelimit-remaining-subscription-deletes",
					"x-ms-ratelimit-remaining-subscription-global-reads", "x-ms-ratelimit-remaining-subscription-global-writes", "x-ms-ratelimit-remaining-subscription-global-deletes"},
				AllowedQueryParams: []string{"api-version", "$filter", "$skiptoken"},
			},
			Telemetry: policy.TelemetryOptions{ApplicationID: userAgentID(o.Version)},
			// The retry policy clamps a server's Retry-After to MaxDelay instead of
			// giving up: an apply should wait out a long throttle, not fail on it.
			// The budget paces each try and sends 429s again itself.
			PerRetryPolicies: []policy.Policy{tryCounter{}, retryAfterCap{max: o.Retry.MaxDelay}, failFast{}, shared.budgets.policy(o)},
		},
		// The emulator has no resource provider registration endpoint.
		DisableRPRegistration: o.Endpoint != "",
	}
	// The token stays with ARM: nothing is sent, or followed, elsewhere.
	copts.PerCallPolicies = []policy.Policy{endpointOnly{endpoint: endpoint}, correlationPolicy{id: cmp.Or(o.RunID, RunID())}, runtime.NewRequestIDPolicy()}
	if shared.limiter != nil {
		copts.PerCallPolicies = append(copts.PerCallPolicies, shared.limiter)
	}
	copts.InsecureAllowCredentialWithHTTP = o.AllowHTTP
	pl, err := armruntime.NewPipeline("azk", "v0.0.0", o.Credential, runtime.PipelineOptions{}, copts)
	if err != nil {
		return nil, err
	}
	return &Client{pipeline: pl, endpoint: rm.Endpoint, subscription: o.Subscription, opts: o, shared: shared}, nil
}

// Route sends every request for the resource id (reads, writes and deletes of
// that ARM ID) through client instead: a resource the operator would reach
// with its own credential (serviceoperator.azure.com/credential-from).
func (c *Client) Route(id string, client *Client) {
	c.routes.Store(strings.ToLower(id), client)
}

// For is the client that acts on the resource id: the routed one, else c.
func (c *Client) For(id string) *Client {
	if r, ok := c.routes.Load(strings.ToLower(id)); ok {
		return r.(*Client)
	}
	return c
}

// Redacted is text from ARM scrubbed as its error messages are (Options.Redact).
func (c *Client) Redacted(text string) string {
	if c.opts.Redact == nil {
		return text
	}
	return c.opts.Redact(text)
}

// Subscription is the subscription the client acts in ("" when none was given).
func (c *Client) Subscription() string { return c.subscription }

// Endpoint is the Resource Manager URL requests go to.
func (c *Client) Endpoint() string { return c.endpoint }

// Response is a successful ARM answer.
type Response struct {
	// StatusCode is the HTTP status; for a finished long-running operation it
	// is the status of the request that started it (201 means ARM created the resource).
	StatusCode int
	// Body is the JSON body as ARM sent it (nil when there was none).
	Body json.RawMessage
	// ETag is the resource's entity tag, from the ETag header or else the
	// body's "etag" property; "" when ARM sent neither.
	ETag string
	// CorrelationID is ARM's x-ms-correlation-request-id, quoted in support cases.
	CorrelationID string
}

// Get reads the resource with the given ARM ID. A missing resource is a
// *ResponseError for which IsNotFound is true.
func (c *Client) Get(ctx context.Context, id, apiVersion string) (*Response, error) {
	if r := c.For(id); r != c {
		return r.Get(ctx, id, apiVersion)
	}
	u, err := c.url(id, false, apiVersion, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, http.MethodGet, id, u, nil, writeOptions{})
	if err != nil {
		return nil, err
	}
	return newResponse(resp, resp.StatusCode)
}

// Put creates or replaces a resource with body (any value encoding/json
// accepts, typically map[string]any or json.RawMessage) and returns the
// operation; call Wait for its result. opts add preconditions (IfMatch,
// IfNoneMatch).
func (c *Client) Put(ctx context.Context, id, apiVersion string, body any, opts ...WriteOption) (*Operation, error) {
	return c.For(id).start(ctx, http.MethodPut, id, apiVersion, nil, body, newWriteOptions(opts))
}

// Patch updates a resource with a merge-patch body and returns the operation.
func (c *Client) Patch(ctx context.Context, id, apiVersion string, body any, opts ...WriteOption) (*Operation, error) {
	return c.For(id).start(ctx, http.MethodPatch, id, apiVersion, nil, body, newWriteOptions(opts))
}

// Delete deletes a resource and returns the operation. Deleting a resource
// that does not exist succeeds, as ARM answers 204.
func (c *Client) Delete(ctx context.Context, id, apiVersion string, opts ...WriteOption) (*Operation, error) {
	return c.For(id).start(ctx, http.MethodDelete, id, apiVersion, nil, nil, newWriteOptions(opts))
}

// Post invokes an action on a resource, such as
// ".../locations/{l}/deletedVaults/{name}/purge", and returns the operation.
func (c *Client) Post(ctx context.Context, path, apiVersion string, body any) (*Operation, error) {
	return c.start(ctx, http.MethodPost, path, apiVersion, nil, body, writeOptions{})
}

// List reads every item of a collection, following nextLink from page to
// page. path is an ARM path such as "/subscriptions/{s}/resourceGroups/{rg}/resources".
func (c *Client) List(ctx context.Context, path, apiVersion string) ([]json.RawMessage, error) {
	if r := c.forCollection(path); r != c {
		return r.List(ctx, path, apiVersion)
	}
	return c.list(ctx, path, apiVersion, nil)
}

// list is List with a query, such as an OData $filter.
func (c *Client) list(ctx context.Context, path, apiVersion string, query url.Values) ([]json.RawMessage, error) {
	first, err := c.url(path, true, apiVersion, query)
	if err != nil {
		return nil, err
	}
	type page struct {
		Value    []json.RawMessage `json:"value"`
		NextLink string            `json:"nextLink"`
	}
	pager := runtime.NewPager(runtime.PagingHandler[page]{
		More: func(p page) bool { return p.NextLink != "" },
		Fetcher: func(ctx context.Context, prev *page) (page, error) {
			u := first
			if prev != nil {
				var err error
				if u, err = c.nextLink(prev.NextLink, apiVersion); err != nil {
					return page{}, fmt.Errorf("GET %s: %w", path, err)
				}
				// What the list serves waits for its last page: the pages
				// after the first go before the reads of its priority.
				ctx = WithPriority(ctx, priorityOf(ctx)+1)
			}
			resp, err := c.send(ctx, http.MethodGet, path, u, nil, writeOptions{})
			if err != nil {
				return page{}, err
			}
			var p page
			if err := runtime.UnmarshalAsJSON(resp, &p); err != nil {
				return page{}, fmt.Errorf("GET %s: reading page: %w", path, err)
			}
			return p, nil
		},
	})
	var items []json.RawMessage
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		items = append(items, p.Value...)
	}
	return items, nil
}

// NoteCreated tells the client that azk itself just created the resource id,
// so that for a short while (Options.ReplicationWindow) a "not found" for it or
// for anything under it is ARM replication lag and retried, not a failure.
// Successful PUTs that answered 201 are noted automatically.
func (c *Client) NoteCreated(id string) { c.shared.created.note(id, time.Now()) }

// url is the endpoint joined with a request path, the api-version and query.
// The path is parsed by armid (an ARM ID, or with allowTail one more
// collection or action segment) and rebuilt with each segment escaped, so no
// path, whatever it was read from, can add a query, a fragment or a segment.
func (c *Client) url(path string, allowTail bool, apiVersion string, query url.Values) (string, error) {
	var (
		id   armid.ID
		tail []string
		err  error
	)
	if allowTail {
		id, tail, err = armid.ParsePath(path)
	} else {
		id, err = armid.Parse(path)
	}
	if err != nil {
		return "", fmt.Errorf("refusing to send a request: %w", err)
	}
	if apiVersion == "" {
		return "", fmt.Errorf("%s: no api-version", path)
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("api-version", apiVersion)
	return c.endpoint + id.PathWith(tail) + "?" + encodeQuery(q), nil
}

// nextLink checks that a page's nextLink stays on the ARM endpoint, so the
// bearer token is never sent to a host a response body named.
func (c *Client) nextLink(link, apiVersion string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("bad nextLink %q: %w", link, err)
	}
	if !c.sameHost(link) {
		return "", fmt.Errorf("nextLink leaves %s (%s://%s): not followed", c.endpoint, u.Scheme, u.Host)
	}
	q := u.Query()
	if q.Get("api-version") == "" {
		q.Set("api-version", apiVersion)
		u.RawQuery = encodeQuery(q)
	}
	return u.String(), nil
}

// sameHost reports whether link is on the ARM endpoint, so that the bearer
// token is never sent to a host a response named.
func (c *Client) sameHost(link string) bool {
	u, err := url.Parse(link)
	ep, _ := url.Parse(c.endpoint)
	return err == nil && strings.EqualFold(u.Host, ep.Host) && u.Scheme == ep.Scheme
}

// encodeQuery encodes spaces as %20: OData $filter expressions are not form data.
func encodeQuery(q url.Values) string { return strings.ReplaceAll(q.Encode(), "+", "%20") }

// send issues one request through the pipeline (which retries HTTP-level
// failures) and rides through transient ARM conditions with bounded backoff.
// id names the resource in errors; target is the full URL; pre are the
// preconditions of a write.
func (c *Client) send(ctx context.Context, method, id, target string, body any, pre writeOptions) (*http.Response, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("%s %s: encoding body: %w", method, id, err)
		}
	}
	for attempt := 1; ; attempt++ {
		req, err := runtime.NewRequest(ctx, method, target)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, id, err)
		}
		if payload != nil {
			if err := req.SetBody(streaming.NopCloser(bytes.NewReader(payload)), "application/json"); err != nil {
				return nil, err
			}
		}
		pre.setHeaders(req.Raw().Header)
		t := &tries{}
		req.SetOperationValue(t)
		started := time.Now()
		resp, err := c.pipeline.Do(req)
		if err != nil {
			return nil, requestFailed(method, id, started, err)
		}
		if runtime.HasStatusCode(resp, http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent) {
			return resp, nil
		}
		rerr := newResponseError(method, id, resp, c.opts.Redact)
		if resp.StatusCode == http.StatusPreconditionFailed && pre.conditional() {
			rerr.precondition = &preconditionFailure{writeOptions: pre, resent: t.unclear || pre.restarted}
		}
		wait, ok := c.transientWait(rerr, method, id, attempt, resp)
		if !ok {
			if attempt > 1 {
				rerr.Attempts = attempt
			}
			return nil, rerr
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: cancelled while waiting to retry %s: %w", method, id, rerr.Code, err)
		}
	}
}

// transientWait decides whether a failed request is a transient ARM condition
// worth another try, and how long to wait first.
func (c *Client) transientWait(e *ResponseError, method, id string, attempt int, resp *http.Response) (time.Duration, bool) {
	if attempt >= c.opts.Retry.MaxAttempts {
		return 0, false
	}
	switch {
	case strings.EqualFold(e.Code, CodeAnotherOperationInProgress), strings.EqualFold(e.Code, CodeRetryableError):
	case strings.EqualFold(e.Code, CodeParentResourceNotFound), strings.EqualFold(e.Code, CodeResourceGroupNotFound):
		if !c.shared.created.underRecent(parentOf(id), c.opts.ReplicationWindow, time.Now()) {
			return 0, false
		}
	case e.StatusCode == http.StatusNotFound && method == http.MethodGet:
		// A read right after azk's own create may reach a replica that has not
		// seen it yet. Only the created resource itself: reading a child that
		// does not exist yet under a new parent is an ordinary 404.
		if !c.shared.created.isRecent(id, c.opts.ReplicationWindow, time.Now()) {
			return 0, false
		}
	default:
		return 0, false
	}
	if ra := retryAfter(resp); ra > 0 {
		return min(ra, c.opts.Retry.MaxDelay), true
	}
	return c.opts.Retry.backoff(attempt), true
}

func requestFailed(method, id string, started time.Time, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: cancelled after %s in flight: %w", method, id, time.Since(started).Round(time.Millisecond), err)
	}
	return fmt.Errorf("%s %s: %w", method, id, err)
}

func newResponse(resp *http.Response, status int) (*Response, error) {
	body, err := runtime.Payload(resp)
	if err != nil {
		return nil, err
	}
	r := &Response{StatusCode: status, CorrelationID: resp.Header.Get(headerCorrelationID), ETag: resp.Header.Get("ETag")}
	if len(bytes.TrimSpace(body)) > 0 {
		r.Body = json.RawMessage(body)
	}
	if r.ETag == "" {
		r.ETag = bodyETag(r.Body)
	}
	return r, nil
}

func bodyETag(body json.RawMessage) string {
	var v struct {
		ETag string `json:"etag"`
	}
	if len(body) > 0 && json.Unmarshal(body, &v) == nil {
		return v.ETag
	}
	return ""
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// createdLog remembers when azk created which resources (by lower-cased ID).
type createdLog struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (l *createdLog) note(id string, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at == nil {
		l.at = map[string]time.Time{}
	}
	l.at[strings.ToLower(strings.TrimSuffix(id, "/"))] = t
}

// forget drops id and everything under it: once azk deleted them, their
// absence is no replication lag.
func (l *createdLog) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := strings.ToLower(strings.TrimSuffix(id, "/"))
	for k := range l.at {
		if k == p || strings.HasPrefix(k, p+"/") {
			delete(l.at, k)
		}
	}
}

// parentOf is the path above id: the resource group, subscription or parent resource it lives in.
func parentOf(id string) string {
	id = strings.TrimSuffix(id, "/")
	i := strings.LastIndexByte(id, '/')
	if i <= 0 {
		return ""
	}
	return id[:i]
}

// isRecent reports whether id itself was created within window before now.
func (l *createdLog) isRecent(id string, window time.Duration, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.at[strings.ToLower(strings.TrimSuffix(id, "/"))]
	return ok && now.Sub(t) <= window
}

// underRecent reports whether id or one of its ancestors was created within window before now.
func (l *createdLog) underRecent(id string, window time.Duration, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := strings.ToLower(strings.TrimSuffix(id, "/"))
	for p != "" {
		if t, ok := l.at[p]; ok && now.Sub(t) <= window {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// limiter is a pipeline policy bounding requests in flight (--parallelism),
// with separate slots for reads and writes: ARM throttles a subscription's
// reads and writes in separate buckets, so a write storm waiting out 429s
// must not hold the slots reads need. It sits before the retry policy, so a
// request keeps its slot while it waits out a Retry-After.
type limiter struct {
	reads, writes chan struct{}
}

func newLimiter(n int) *limiter {
	return &limiter{reads: make(chan struct{}, n), writes: make(chan struct{}, n)}
}

func (l *limiter) Do(req *policy.Request) (*http.Response, error) {
	slots := l.writes
	if m := req.Raw().Method; m == http.MethodGet || m == http.MethodHead {
		slots = l.reads
	}
	select {
	case slots <- struct{}{}:
	case <-req.Raw().Context().Done():
		return nil, req.Raw().Context().Err()
	}
	defer func() { <-slots }()
	return req.Next()
}

// retryAfterCap sits inside azcore's retry loop and lowers a Retry-After
// longer than the configured maximum to that maximum, because azcore's retry
// policy gives up outright on a Retry-After above MaxRetryDelay.
type retryAfterCap struct{ max time.Duration }

func (p retryAfterCap) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && retryAfter(resp) > p.max {
		resp.Header.Del("Retry-After")
		resp.Header.Del("x-ms-retry-after-ms")
		resp.Header.Set("retry-after-ms", fmt.Sprint(p.max.Milliseconds()))
	}
	return resp, err
}

// retryAfter reads the delay a response asks for: retry-after-ms,
// x-ms-retry-after-ms, or Retry-After in seconds or as an HTTP date.
func retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	for _, h := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		var ms int64
		if v := resp.Header.Get(h); v != "" {
			if _, err := fmt.Sscan(v, &ms); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0
	}
	var s int64
	if _, err := fmt.Sscan(v, &s); err == nil {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}
