package arm

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// RateLimit is a token bucket: Burst requests at once, refilled at PerSecond.
type RateLimit struct {
	Burst     int
	PerSecond float64
}

// RateLimits are the buckets ARM keeps for a subscription and principal, one
// per kind of request: reads (GET, HEAD), writes (PUT, PATCH, POST) and deletes.
type RateLimits struct {
	Reads, Writes, Deletes RateLimit
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
// with KIND reads, writes or deletes, e.g. "writes=1000:50,reads=2000:100".
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
		switch strings.ToLower(strings.TrimSpace(kind)) {
		case "reads":
			out.Reads = limit
		case "writes":
			out.Writes = limit
		case "deletes":
			out.Deletes = limit
		default:
			return RateLimits{}, fmt.Errorf("rate limit %q: the kind is reads, writes or deletes", part)
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
	// Queued are requests waiting for a token of the budget.
	Queued int
	// Throttled is how many answers were 429 so far.
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

// budget is a pipeline policy pacing every try of every request by a local
// mirror of ARM's token buckets for one subscription and principal. It sits
// inside azcore's retry loop, so retries and polls draw tokens too.
//
// Each answer's x-ms-ratelimit-remaining-subscription-* headers keep the
// mirror in step with ARM's count, for subscriptions with smaller buckets
// and for other clients sharing them. Answers arrive out of order, and an
// older count is higher than the current one, so a count only ever lowers
// the mirror's tokens. The bucket's size is the largest count ARM has shown
// (the assumed burst until the first answer); a faster refill is
// --rate-limit's to say. A 429 empties the bucket
// and halves the refill rate, which then grows back to the assumed rate with
// every answer that is not throttled (additive increase, multiplicative
// decrease).
// The throttled request waits its Retry-After and is sent again here, with a
// new token, so a 429 never uses up one of the retries kept for real failures.
type budget struct {
	reads, writes, deletes *bucket
	maxWait                time.Duration
}

func newBudget(l RateLimits, maxWait time.Duration) *budget {
	return &budget{
		reads:   newBucket("reads", l.Reads),
		writes:  newBucket("writes", l.Writes),
		deletes: newBucket("deletes", l.Deletes),
		maxWait: maxWait,
	}
}

func (b *budget) bucketFor(method string) *bucket {
	switch method {
	case http.MethodGet, http.MethodHead:
		return b.reads
	case http.MethodDelete:
		return b.deletes
	}
	return b.writes
}

func (b *budget) Do(req *policy.Request) (*http.Response, error) {
	ctx := req.Raw().Context()
	bk := b.bucketFor(req.Raw().Method)
	prio := priorityOf(ctx)
	for {
		if err := bk.take(ctx, prio); err != nil {
			return nil, err
		}
		resp, err := req.Next()
		bk.answered(resp)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests {
			return resp, err
		}
		wait := retryAfter(resp)
		if wait <= 0 {
			wait = time.Second
		}
		runtime.Drain(resp)
		if err := sleep(ctx, min(wait, b.maxWait)); err != nil {
			return nil, err
		}
		if err := req.RewindBody(); err != nil {
			return nil, err
		}
	}
}

func (b *budget) stats() BudgetStats {
	return BudgetStats{Reads: b.reads.stats(), Writes: b.writes.stats(), Deletes: b.deletes.stats()}
}

// bucket mirrors one of ARM's token buckets and hands its tokens to waiting
// requests by priority.
type bucket struct {
	name    string
	assumed RateLimit

	mu       sync.Mutex
	lim      tokens
	sized    bool // lim.burst is what ARM has shown, no longer the assumed burst
	waiting  waiters
	arrivals uint64
	timer    *time.Timer
	counts   ClassStats
}

func newBucket(name string, l RateLimit) *bucket {
	return &bucket{name: name, assumed: l, lim: tokens{n: float64(l.Burst), burst: float64(l.Burst), rate: l.PerSecond, last: time.Now()}}
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
func (b *bucket) take(ctx context.Context, priority float64) error {
	b.mu.Lock()
	now := time.Now()
	b.capLocked(now)
	if len(b.waiting) == 0 && b.lim.take(now) {
		b.counts.InFlight++
		b.mu.Unlock()
		return nil
	}
	w := &waiter{priority: priority, arrival: b.arrivals, granted: make(chan struct{}, 1)}
	b.arrivals++
	heap.Push(&b.waiting, w)
	b.counts.Queued++
	b.dispatchLocked(now)
	b.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		if w.index >= 0 {
			heap.Remove(&b.waiting, w.index)
			b.counts.Queued--
			b.dispatchLocked(time.Now())
		} else {
			b.counts.InFlight-- // granted as the context ended: never sent
		}
		return ctx.Err()
	}
}

// capLocked keeps the tokens at most the burst less the requests in flight:
// ARM's bucket, full while they travel, refills no further, and counts them
// when they arrive.
func (b *bucket) capLocked(now time.Time) {
	b.lim.lower(now, b.lim.burst-float64(b.counts.InFlight))
}

// dispatchLocked hands tokens to the waiters in order while there are
// tokens, and arms a timer for when the next one comes.
func (b *bucket) dispatchLocked(now time.Time) {
	b.capLocked(now)
	for len(b.waiting) > 0 && b.lim.take(now) {
		w := heap.Pop(&b.waiting).(*waiter)
		b.counts.Queued--
		b.counts.InFlight++
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

// answered brings the bucket in step with an answer: ARM's remaining count,
// and on a 429 an empty bucket refilled more slowly.
func (b *bucket) answered(resp *http.Response) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.capLocked(now) // the cap held until this answer came
	b.counts.InFlight--
	if resp == nil {
		return
	}
	b.counts.Answered++
	assumed := b.assumed.PerSecond
	if remaining, ok := b.remaining(resp.Header); ok {
		// ARM had remaining+1 tokens when it counted this request (a 429
		// was not counted, and shows nothing): its bucket holds at least
		// that many. Until an answer shows more, the mirror holds no more,
		// so a pause on this side (a slow machine, a stalled process) does
		// not save up tokens ARM's bucket never had.
		if shown := float64(remaining + 1); resp.StatusCode != http.StatusTooManyRequests && (!b.sized || shown > b.lim.burst) {
			b.lim.advance(now)
			b.lim.burst, b.sized = shown, true
			b.lim.n = math.Min(b.lim.n, shown)
		}
		// The requests still in flight may not be in ARM's count yet: they
		// come off it too, so the mirror errs on the side of fewer tokens.
		// ARM counts whole tokens: a fraction less is no news.
		if arm := math.Max(float64(remaining-b.counts.InFlight), 0); b.lim.at(now)-arm >= 1 {
			b.lim.lower(now, arm)
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		b.counts.Throttled++
		b.lim.lower(now, 0)
		b.lim.setRate(now, math.Max(b.lim.rate/2, assumed/16))
	} else if b.lim.rate < assumed {
		b.lim.setRate(now, math.Min(assumed, b.lim.rate+assumed/20))
	}
	b.dispatchLocked(now)
}

// remaining reads ARM's count of tokens left for this kind of request: the
// subscription's, or the global one for every principal if that is lower.
func (b *bucket) remaining(h http.Header) (int, bool) {
	found, least := false, 0
	for _, name := range []string{"x-ms-ratelimit-remaining-subscription-" + b.name, "x-ms-ratelimit-remaining-subscription-global-" + b.name} {
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

func (b *bucket) stats() ClassStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}
