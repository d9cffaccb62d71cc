package arm

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/azkcli/azk/internal/armid"
)

// RateLimit is a token bucket: Burst requests at once, refilled at PerSecond.
type RateLimit struct {
	Burst     int
	PerSecond float64
}

// RateLimits are the buckets ARM keeps for a subscription and principal, one
// per kind of request: reads (GET, HEAD), writes (PUT, PATCH, POST) and
// deletes; and the buckets assumed of resource providers' own throttling
// counters.
type RateLimits struct {
	Reads, Writes, Deletes RateLimit
	// Counters are resource providers' counters (the names answers give in
	// x-ms-ratelimit-remaining-resource, such as
	// "Microsoft.Compute/PutVMSubscriptionMaximum"), case-insensitive. A
	// counter not named here holds what its answers show, refilled over the
	// window its name ends in ("3Min", "30Min", "1Hour", "1Sec"), or else over
	// three minutes, as Compute documents its buckets.
	Counters map[string]RateLimit
}

// zero reports whether no ARM bucket is given.
func (l RateLimits) zero() bool {
	return l.Reads == (RateLimit{}) && l.Writes == (RateLimit{}) && l.Deletes == (RateLimit{})
}

// DefaultRateLimits are ARM's documented per-subscription limits since its
// 2024 move to regional token buckets: reads 250 at once refilled 25 a second,
// writes and deletes 200 refilled 10 a second.
var DefaultRateLimits = RateLimits{
	Reads:   RateLimit{Burst: 250, PerSecond: 25},
	Writes:  RateLimit{Burst: 200, PerSecond: 10},
	Deletes: RateLimit{Burst: 200, PerSecond: 10},
}

// ParseRateLimits reads --rate-limit: comma-separated KIND=BURST:PER_SECOND
// with KIND reads, writes, deletes or a resource provider's counter, e.g.
// "writes=1000:50,reads=2000:100,Microsoft.Compute/PutVMSubscriptionMaximum=1500:8.3".
// Kinds not named keep ARM's defaults.
func ParseRateLimits(s string) (RateLimits, error) {
	out := DefaultRateLimits
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		kind, spec, ok := strings.Cut(part, "=")
		burst, perSecond, ok2 := strings.Cut(spec, ":")
		b, errB := strconv.Atoi(strings.TrimSpace(burst))
		r, errR := strconv.ParseFloat(strings.TrimSpace(perSecond), 64)
		if !ok || !ok2 || errB != nil || errR != nil || b < 1 || r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return RateLimits{}, fmt.Errorf("rate limit %q: want KIND=BURST:PER_SECOND, e.g. writes=200:10 (burst at least 1, a positive rate)", part)
		}
		limit := RateLimit{Burst: b, PerSecond: r}
		kind = strings.TrimSpace(kind)
		switch strings.ToLower(kind) {
		case "reads":
			out.Reads = limit
		case "writes":
			out.Writes = limit
		case "deletes":
			out.Deletes = limit
		default:
			namespace, policy, isCounter := strings.Cut(kind, "/")
			if !isCounter || namespace == "" || policy == "" || strings.ContainsAny(kind, " ;") {
				return RateLimits{}, fmt.Errorf("rate limit %q: the kind is reads, writes or deletes, or a resource provider's counter such as Microsoft.Compute/PutVMSubscriptionMaximum", part)
			}
			if out.Counters == nil {
				out.Counters = map[string]RateLimit{}
			}
			out.Counters[strings.ToLower(kind)] = limit
		}
	}
	return out, nil
}

// BudgetStats says what the client's rate budget is doing, over every identity.
type BudgetStats struct {
	Reads, Writes, Deletes ClassStats
}

// ClassStats counts one kind of request.
type ClassStats struct {
	// InFlight are requests sent and not answered yet.
	InFlight int
	// Queued are requests waiting for a token of the budget: of ARM's
	// bucket, or of a resource provider's counter.
	Queued int
	// Throttled is how many answers were 429 so far, ARM's or a provider's.
	Throttled int
	// Answered is how many answers came so far, 429s included.
	Answered int
}

// Total adds up the three kinds.
func (s BudgetStats) Total() ClassStats { return s.Reads.plus(s.Writes).plus(s.Deletes) }

// plus adds up two counts, kind by kind.
func (s BudgetStats) plus(o BudgetStats) BudgetStats {
	return BudgetStats{Reads: s.Reads.plus(o.Reads), Writes: s.Writes.plus(o.Writes), Deletes: s.Deletes.plus(o.Deletes)}
}

func (a ClassStats) plus(b ClassStats) ClassStats {
	return ClassStats{InFlight: a.InFlight + b.InFlight, Queued: a.Queued + b.Queued, Throttled: a.Throttled + b.Throttled, Answered: a.Answered + b.Answered}
}

// SubscriptionBudget is what the rate budget of one subscription is doing,
// over every identity acting in it.
type SubscriptionBudget struct {
	Subscription string
	BudgetStats
}

// Budget says what the rate budgets of this run are doing: requests in
// flight, waiting for a token, and throttled, summed over every
// subscription and identity.
func (c *Client) Budget() BudgetStats {
	var out BudgetStats
	for _, s := range c.shared.budgets.bySubscription() {
		out = out.plus(s.BudgetStats)
	}
	return out
}

// Budgets says what the rate budget of each subscription requests went
// to is doing, in the order of the subscription IDs.
func (c *Client) Budgets() []SubscriptionBudget { return c.shared.budgets.bySubscription() }

// Backlog is how many requests like a method's (reads, writes or deletes)
// for the subscription wait for a token of ARM's buckets with a priority
// of at least priority (or for a resource provider's counter, whatever
// their priority), less the tokens there are now: the requests a new one
// at that priority would wait behind, negative when it would wait for none.
// A scheduler starts work in a subscription only while its backlog is
// short, so that work waiting for a throttled budget holds no memory of
// requests, and work that becomes ready later with a higher priority
// still goes first.
func (c *Client) Backlog(subscription, method string, priority float64) int {
	return c.shared.budgets.backlog(strings.ToLower(subscription), method, priority)
}

func (b *budgets) backlog(subscription, method string, priority float64) int {
	b.mu.Lock()
	var in []*budget
	for k, bu := range b.arm {
		if k.subscription == subscription {
			in = append(in, bu)
		}
	}
	b.mu.Unlock()
	if len(in) == 0 {
		in = append(in, newBudget(b.limits)) // no request yet: ARM's whole burst
	}
	n := 0
	for _, bu := range in {
		n += bu.bucketFor(method).backlog(priority)
	}
	return n
}

type priorityKey struct{}

// WithPriority orders the requests made under ctx among those waiting for
// the same budget: higher first, then in the order they asked.
func WithPriority(ctx context.Context, p float64) context.Context {
	return context.WithValue(ctx, priorityKey{}, p)
}

func priorityOf(ctx context.Context) float64 {
	p, _ := ctx.Value(priorityKey{}).(float64)
	return p
}

// budgets are the rate budgets of one run: a local mirror of ARM's token
// buckets for each subscription and principal, and of the resource
// providers' counters each subscription's answers show (counters.go).
// Every client of the run paces its requests by them (policy), each
// request by the budget of the subscription its path names, so that the
// requests of a resource in another subscription draw on that
// subscription's buckets, and a subscription that is throttled holds back
// no other.
type budgets struct {
	limits   RateLimits
	maxWait  time.Duration
	counters *counters

	mu  sync.Mutex
	arm map[budgetKey]*budget
}

type budgetKey struct{ subscription, principal string }

func newBudgets(l RateLimits, maxWait time.Duration) *budgets {
	return &budgets{limits: l, maxWait: maxWait, counters: newCounters(l.Counters), arm: map[budgetKey]*budget{}}
}

// of is the budget of a subscription (lower-cased) and principal.
func (b *budgets) of(subscription, principal string) *budget {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := budgetKey{subscription, principal}
	bu := b.arm[k]
	if bu == nil {
		bu = newBudget(b.limits)
		b.arm[k] = bu
	}
	return bu
}

func (b *budgets) bySubscription() []SubscriptionBudget {
	b.mu.Lock()
	byName := map[string]BudgetStats{}
	for k, bu := range b.arm {
		byName[k.subscription] = byName[k.subscription].plus(bu.stats())
	}
	b.mu.Unlock()
	out := make([]SubscriptionBudget, 0, len(byName))
	for sub, st := range byName {
		out = append(out, SubscriptionBudget{Subscription: sub, BudgetStats: st})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Subscription < out[j].Subscription })
	return out
}

// policy is the pipeline policy pacing a client's requests: every try of
// every request waits for a token of ARM's bucket for its kind, in its
// subscription and for the client's principal, and of each provider counter
// known to cover it. It sits inside azcore's retry loop, so retries and
// polls draw tokens too. o.Subscription stands for requests whose path
// names no subscription.
func (b *budgets) policy(o Options) policy.Policy {
	return budgetPolicy{all: b, principal: o.principal, subscription: strings.ToLower(o.Subscription), retry: o.Retry, redact: o.Redact}
}

type budgetPolicy struct {
	all                     *budgets
	principal, subscription string
	retry                   RetryOptions
	redact                  func(string) string
}

// Do sends the request once it has its tokens. ARM's
// x-ms-ratelimit-remaining-subscription-* headers and the providers'
// x-ms-ratelimit-remaining-resource keep the mirrors in step with the
// counts in Azure (see bucket.answered). A 429 empties the bucket that
// throttled and halves its refill rate, which then grows back to the
// assumed rate with every answer that is not throttled (additive
// increase, multiplicative decrease): the counter the answer shows empty,
// else ARM's bucket. The throttled request waits its Retry-After and is
// sent again here, with new tokens, so a 429 never uses up one of the
// retries kept for real failures; a read or POST only until its
// throttleBound runs out.
func (p budgetPolicy) Do(req *policy.Request) (*http.Response, error) {
	ctx := req.Raw().Context()
	rc := classify(req.Raw().Method, req.Raw().URL.Path, p.subscription)
	bk := p.all.of(rc.subscription, p.principal).bucketFor(budgetMethod(ctx, rc.method))
	prio := priorityOf(ctx)
	bound := newThrottleBound(ctx, req.Raw().Method, p.retry)
	for {
		bk.waitElsewhere(1)
		held, err := p.all.counters.take(ctx, rc, prio)
		bk.waitElsewhere(-1)
		if err != nil {
			return nil, err
		}
		t, err := bk.take(ctx, prio)
		if err != nil {
			p.all.counters.release(held)
			p.all.counters.abandon(rc)
			return nil, err
		}
		resp, err := req.Next()
		providerThrottled := p.all.counters.answered(rc, held, resp)
		bk.answered(t, resp, !providerThrottled)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests {
			return resp, err
		}
		wait := retryAfter(resp)
		if wait <= 0 {
			wait = time.Second
		}
		if bound.exceeded(bk, min(wait, p.all.maxWait)) {
			return nil, p.throttled(req.Raw(), rc, bk, bound, resp, providerThrottled)
		}
		runtime.Drain(resp)
		if err := sleep(ctx, min(wait, p.all.maxWait)); err != nil {
			return nil, err
		}
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
	}
}

// throttled is the error of a request whose throttleBound ran out.
func (p budgetPolicy) throttled(req *http.Request, rc request, bk *armBucket, bound *throttleBound, resp *http.Response, provider bool) error {
	rerr := newResponseError(req.Method, req.URL.Path, resp, p.redact)
	runtime.Drain(resp)
	answers, since := bk.throttled()
	return &ThrottledError{Kind: bk.kind, Subscription: rc.subscription, Method: req.Method, Path: req.URL.Path,
		Answers: max(answers, bound.answers), Over: time.Since(earlier(since, bound.started)), Code: rerr.Code, Message: rerr.Message, Provider: provider}
}

// request is what the budgets know a request by.
type request struct {
	method string
	// subscription is the one whose buckets the request draws on, lower-cased.
	subscription string
	// class groups the requests one provider counter covers alike: the
	// method and the lower-cased ARM type, and whether it reads a collection.
	class string
	// resource is the lower-cased path, for counters kept per resource.
	resource string
}

func classify(method, path, fallbackSubscription string) request {
	r := request{method: method, subscription: fallbackSubscription, resource: strings.ToLower(path)}
	id, tail, err := armid.ParsePath(path)
	if err != nil {
		r.class = method + " ?"
		return r
	}
	if id.Subscription != "" {
		r.subscription = strings.ToLower(id.Subscription)
	}
	typ := id.Type()
	switch len(tail) {
	case 1:
		typ += "/" + tail[0]
	case 3:
		typ = tail[1] + "/" + tail[2]
	}
	r.class = method + " " + strings.ToLower(typ)
	if len(tail) > 0 {
		r.class += " list"
	}
	return r
}

// budget is the mirror of ARM's token buckets for one subscription and
// principal.
type budget struct {
	reads, writes, deletes *bucket
}

func newBudget(l RateLimits) *budget {
	return &budget{
		reads:   newBucket(l.Reads),
		writes:  newBucket(l.Writes),
		deletes: newBucket(l.Deletes),
	}
}

func (b *budget) bucketFor(method string) *armBucket {
	switch method {
	case http.MethodGet, http.MethodHead:
		return &armBucket{b.reads, "reads"}
	case http.MethodDelete:
		return &armBucket{b.deletes, "deletes"}
	}
	return &armBucket{b.writes, "writes"}
}

func (b *budget) stats() BudgetStats {
	return BudgetStats{Reads: b.reads.stats(), Writes: b.writes.stats(), Deletes: b.deletes.stats()}
}

// armBucket is one of ARM's buckets, with the kind of request it counts.
type armBucket struct {
	*bucket
	kind string // reads, writes or deletes
}

// answered brings the bucket in step with ARM's answer to the request that
// took t. ownThrottle says a 429 is ARM's own, not a resource provider's.
func (b *armBucket) answered(t ticket, resp *http.Response, ownThrottle bool) {
	if resp == nil {
		b.bucket.answered(t, answer{})
		return
	}
	a := answer{came: true, status: resp.StatusCode, throttled: resp.StatusCode == http.StatusTooManyRequests && ownThrottle}
	a.remaining, a.known = b.remaining(resp.Header)
	b.bucket.answered(t, a)
}

// remaining reads ARM's count of tokens left for this kind of request: the
// subscription's, or the global one for every principal if that is lower.
func (b *armBucket) remaining(h http.Header) (int, bool) {
	found, least := false, 0
	for _, name := range []string{"x-ms-ratelimit-remaining-subscription-" + b.kind, "x-ms-ratelimit-remaining-subscription-global-" + b.kind} {
		v := h.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			continue
		}
		if !found || n < least {
			least = n
		}
		found = true
	}
	return least, found
}

// bucket mirrors one token bucket in Azure (ARM's, or a provider's counter)
// and hands its tokens to waiting requests by priority.
type bucket struct {
	assumed RateLimit
	// window, when not zero, is how long the bucket takes to refill from
	// empty: its assumed rate follows the size the answers show.
	window time.Duration

	mu       sync.Mutex
	lim      tokens
	sized    bool // lim.burst is what Azure has shown, no longer the assumed burst
	waiting  waiters
	arrivals uint64
	timer    *time.Timer
	counts   ClassStats // but InFlight, which inFlight holds
	// elsewhere are requests of this bucket's kind waiting for a token of
	// another bucket first (a provider's counter): queued all the same.
	elsewhere int
	// granted counts the tokens handed out so far; inFlight are the tickets
	// of the requests not answered yet, in order; answeredTo is one past the
	// latest place answered.
	granted    uint64
	inFlight   []ticket
	answeredTo uint64
	// streak are the 429s answered since the last answer that was not
	// one, the first of them at streakSince: how long this kind of request
	// has been refused (see throttleBound).
	streak      int
	streakSince time.Time
}

// ticket is a request's token: its place among the tokens the bucket
// handed out, when, and how many requests were in flight then.
type ticket struct {
	seq   uint64
	at    time.Time
	ahead int
}

func newBucket(l RateLimit) *bucket {
	return &bucket{assumed: l, lim: tokens{n: float64(l.Burst), burst: float64(l.Burst), rate: l.PerSecond, last: time.Now()}}
}

// tokens is a token bucket's arithmetic, in fractions of a token: keeping
// in step with ARM takes lowering the count to a value, which
// golang.org/x/time/rate's whole-token reservations cannot do.
type tokens struct {
	n, burst, rate float64 // rate per second
	last           time.Time
}

// at is the count at now (not before the last change).
func (t *tokens) at(now time.Time) float64 {
	return math.Min(t.burst, t.n+math.Max(now.Sub(t.last).Seconds(), 0)*t.rate)
}

func (t *tokens) advance(now time.Time) {
	if now.After(t.last) {
		t.n, t.last = t.at(now), now
	}
}

// take removes a token if there is one.
func (t *tokens) take(now time.Time) bool {
	t.advance(now)
	if t.n < 1 {
		return false
	}
	t.n--
	return true
}

// lower makes the count at most n.
func (t *tokens) lower(now time.Time, n float64) {
	t.advance(now)
	t.n = math.Min(t.n, n)
}

// raise makes the count at least n, within the burst.
func (t *tokens) raise(now time.Time, n float64) {
	t.advance(now)
	t.n = math.Min(math.Max(t.n, n), t.burst)
}

func (t *tokens) setRate(now time.Time, r float64) {
	t.advance(now)
	t.rate = r
}

// untilOne is how long until the count reaches one token.
func (t *tokens) untilOne(now time.Time) time.Duration {
	return time.Duration(math.Max(1-t.at(now), 0) / t.rate * float64(time.Second))
}

type waiter struct {
	priority float64
	arrival  uint64
	granted  chan struct{}
	ticket   ticket // set before granted is signalled
	index    int
}

type waiters []*waiter

func (w waiters) Len() int { return len(w) }
func (w waiters) Less(i, j int) bool {
	if w[i].priority != w[j].priority {
		return w[i].priority > w[j].priority
	}
	return w[i].arrival < w[j].arrival
}
func (w waiters) Swap(i, j int) { w[i], w[j] = w[j], w[i]; w[i].index, w[j].index = i, j }
func (w *waiters) Push(x any)   { x.(*waiter).index = len(*w); *w = append(*w, x.(*waiter)) }
func (w *waiters) Pop() any {
	old := *w
	x := old[len(old)-1]
	x.index = -1
	*w = old[:len(old)-1]
	return x
}

// take waits for a token, then counts the request in flight; it returns
// the context's error when that ends first.
func (b *bucket) take(ctx context.Context, priority float64) (ticket, error) {
	b.mu.Lock()
	now := time.Now()
	b.capLocked(now)
	if len(b.waiting) == 0 && b.lim.take(now) {
		t := b.grantLocked(now)
		b.mu.Unlock()
		return t, nil
	}
	w := &waiter{priority: priority, arrival: b.arrivals, granted: make(chan struct{}, 1)}
	b.arrivals++
	heap.Push(&b.waiting, w)
	b.counts.Queued++
	b.dispatchLocked(now)
	b.mu.Unlock()
	select {
	case <-w.granted:
		return w.ticket, nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		if w.index >= 0 {
			heap.Remove(&b.waiting, w.index)
			b.counts.Queued--
			b.dispatchLocked(time.Now())
		} else {
			b.doneLocked(w.ticket) // granted as the context ended: never sent
		}
		return ticket{}, ctx.Err()
	}
}

// grantLocked counts a token taken for a request now going out.
func (b *bucket) grantLocked(now time.Time) ticket {
	t := ticket{seq: b.granted, at: now, ahead: len(b.inFlight)}
	b.inFlight = append(b.inFlight, t)
	b.granted++
	return t
}

// inFlightFrom is the index in inFlight of the first request from place seq
// on, and whether it is that place.
func (b *bucket) inFlightFrom(seq uint64) (int, bool) {
	return slices.BinarySearchFunc(b.inFlight, seq, func(t ticket, seq uint64) int { return cmp.Compare(t.seq, seq) })
}

// doneLocked counts t's request out of those in flight.
func (b *bucket) doneLocked(t ticket) {
	if i, ok := b.inFlightFrom(t.seq); ok {
		b.inFlight = slices.Delete(b.inFlight, i, i+1)
	}
}

// release gives up the token t for a request that is not sent after all:
// the token stays spent (Azure may have counted it, for all the mirror
// knows).
func (b *bucket) release(t ticket) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.doneLocked(t)
	b.dispatchLocked(time.Now())
}

func (b *bucket) waitElsewhere(n int) {
	b.mu.Lock()
	b.elsewhere += n
	b.mu.Unlock()
}

// capLocked keeps the tokens at most the burst less the requests on their
// way: ARM's bucket, full while they travel, refills no further, and counts
// them when they arrive. Those sent before the latest request answered have
// arrived: Azure counts requests in about the order they were sent.
func (b *bucket) capLocked(now time.Time) {
	i, _ := b.inFlightFrom(b.answeredTo)
	b.lim.lower(now, b.lim.burst-float64(len(b.inFlight)-i))
}

// dispatchLocked hands tokens to the waiters in order while there are
// tokens, and arms a timer for when the next one comes.
func (b *bucket) dispatchLocked(now time.Time) {
	b.capLocked(now)
	for len(b.waiting) > 0 && b.lim.take(now) {
		w := heap.Pop(&b.waiting).(*waiter)
		b.counts.Queued--
		w.ticket = b.grantLocked(now)
		w.granted <- struct{}{}
		b.capLocked(now)
	}
	if len(b.waiting) == 0 {
		return
	}
	next := max(b.lim.untilOne(now), time.Millisecond)
	if b.timer == nil {
		b.timer = time.AfterFunc(next, b.dispatch)
	} else {
		b.timer.Reset(next)
	}
}

func (b *bucket) dispatch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dispatchLocked(time.Now())
}

// answer is what an answer tells a bucket.
type answer struct {
	came   bool // false: no answer (the request failed on its way)
	status int
	// remaining is Azure's count of tokens left, when known.
	remaining int
	known     bool
	// throttled: this bucket's own 429.
	throttled bool
}

// answered brings the bucket in step with the answer to the request that
// took t.
func (b *bucket) answered(t ticket, a answer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.capLocked(now) // the cap held until this answer came
	b.doneLocked(t)
	if a.came {
		b.answeredTo = max(b.answeredTo, t.seq+1)
	}
	b.settleLocked(now, a, &t)
}

// observe brings the bucket in step with an answer to a request that took
// none of its tokens (before the client knew the bucket covered it).
func (b *bucket) observe(a answer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.capLocked(now)
	b.settleLocked(now, a, nil)
}

// settleLocked follows the answer to the request that took t (nil: a
// request that took none of this bucket's tokens).
func (b *bucket) settleLocked(now time.Time, a answer, t *ticket) {
	if !a.came {
		b.dispatchLocked(now)
		return
	}
	b.counts.Answered++
	if a.status == http.StatusTooManyRequests {
		b.counts.Throttled++
		if b.streak == 0 {
			b.streakSince = now
		}
		b.streak++
	} else {
		b.streak = 0
	}
	if a.known {
		// Azure had remaining+1 tokens when it counted this request (a 429
		// was not counted, and shows nothing): its bucket holds at least
		// that many. Until an answer shows more, the mirror holds no more,
		// so a pause on this side (a slow machine, a stalled process) does
		// not save up tokens Azure's bucket never had.
		if shown := float64(a.remaining + 1); a.status != http.StatusTooManyRequests && (!b.sized || shown > b.lim.burst) {
			b.lim.advance(now)
			b.lim.burst, b.sized = shown, true
			b.lim.n = math.Min(b.lim.n, shown)
			if b.window > 0 {
				b.resizeLocked(now, shown)
			}
		}
		b.followLocked(now, a.remaining, t)
	}
	assumed := b.assumed.PerSecond
	if a.throttled {
		b.lim.lower(now, 0)
		b.lim.setRate(now, math.Max(b.lim.rate/2, assumed/16))
	} else if b.lim.rate < assumed {
		b.lim.setRate(now, math.Min(assumed, b.lim.rate+assumed/20))
	}
	b.dispatchLocked(now)
}

// followLocked keeps the mirror within what Azure can hold now, given that
// it held remaining once it counted t's request. Azure counts requests
// about in the order they were sent, but not quite (separate connections,
// a busy machine). It holds at most that count plus the whole tokens
// refilled since t's went (it counted t's after): when the mirror holds
// more, other clients spent tokens, and the mirror falls to the count less
// the requests sent after t's still in flight (it has them off already),
// plus that refill. It holds at least the count less every request sent
// after t's and every one in flight when t's went (either may have come
// after it), with no refill: the mirror rises to that, so that answers
// slowed on their way leave no tokens unspent for the rest of the run. An
// answer to a request that took none of the bucket's tokens (t nil) takes
// every request in flight off, with no refill. Azure counts whole tokens:
// the mirror holding a fraction more is no news.
func (b *bucket) followLocked(now time.Time, remaining int, t *ticket) {
	ceiling := float64(remaining)
	most, least := float64(remaining-len(b.inFlight)), float64(remaining-len(b.inFlight))
	if t != nil {
		before, _ := b.inFlightFrom(t.seq)
		refill := math.Floor(now.Sub(t.at).Seconds() * b.lim.rate)
		ceiling += refill
		most = float64(remaining-(len(b.inFlight)-before)) + refill
		least = float64(remaining - int(b.granted-t.seq-1) - t.ahead)
	}
	switch held := b.lim.at(now); {
	case held-ceiling >= 1:
		b.lim.lower(now, math.Max(most, 0))
	case least > held:
		b.lim.raise(now, least)
	}
}

// resizeLocked makes the assumed refill of a bucket known by its window
// follow the size shown: the whole bucket over the window.
func (b *bucket) resizeLocked(now time.Time, burst float64) {
	rate := burst / b.window.Seconds()
	if b.lim.rate >= b.assumed.PerSecond {
		b.lim.setRate(now, rate)
	}
	b.assumed = RateLimit{Burst: int(burst), PerSecond: rate}
}

// backlog counts the waiters of at least priority, and those waiting for
// another bucket first, less the whole tokens there are.
func (b *bucket) backlog(priority float64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.elsewhere
	for _, w := range b.waiting {
		if w.priority >= priority {
			n++
		}
	}
	now := time.Now()
	b.capLocked(now)
	return n - int(b.lim.at(now))
}

func (b *bucket) stats() ClassStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.counts
	s.Queued += b.elsewhere
	s.InFlight = len(b.inFlight)
	return s
}
