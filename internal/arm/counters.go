package arm

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// headerRemainingResource is where resource providers (Compute, for one)
// give what is left of their own throttling counters that counted a
// request: "{namespace}/{policy};{remaining}", comma-separated or in
// repeated headers, e.g. "Microsoft.Compute/PutVMSubscriptionMaximum;1499,Microsoft.Compute/PutVMResource;11".
const headerRemainingResource = "x-ms-ratelimit-remaining-resource"

// counters mirror the resource providers' throttling counters, which
// providers keep besides ARM's buckets and answer 429 by well before ARM's
// bucket is empty. Which requests a counter covers is learned from the
// answers: every request of a class (method and ARM type, see request)
// that an answer named a counter for takes a token of that counter
// before it is sent, from the counter's bucket in the request's
// subscription (or, for a counter kept per resource, of the resource). The
// first request of a class goes alone, and the rest of the class waits
// for its answer, so that a burst of requests a provider throttles (the
// storage accounts of a landing zone, all ready at once) learns the
// counters before it is sent rather than from 429s.
type counters struct {
	configured map[string]RateLimit // by lower-cased name

	mu      sync.Mutex
	classes map[string]*class
	buckets map[counterKey]*bucket
	// largest is the largest size each counter (lower-cased) has shown,
	// the size assumed in a subscription it has not answered in yet.
	largest map[string]float64
}

// class is what the answers told of one class of requests.
type class struct {
	// known: an answer came, and counters names every counter answers named.
	known    bool
	counters []string
	// probing are the subscriptions with a first request of the class out.
	probing map[string]bool
	// learned is closed when the first answer comes.
	learned chan struct{}
}

type counterKey struct{ subscription, name, resource string }

func newCounters(configured map[string]RateLimit) *counters {
	c := &counters{configured: map[string]RateLimit{}, classes: map[string]*class{}, buckets: map[counterKey]*bucket{}, largest: map[string]float64{}}
	for name, l := range configured {
		c.configured[strings.ToLower(name)] = l
	}
	return c
}

// take waits for a token of every counter known to cover r, and returns
// their buckets; with none known yet for r's class, it lets one request
// of the class go in each subscription and holds the others until an
// answer shows the class's counters.
func (c *counters) take(ctx context.Context, r request, priority float64) ([]heldToken, error) {
	for {
		c.mu.Lock()
		cl := c.classes[r.class]
		if cl == nil {
			cl = &class{probing: map[string]bool{}, learned: make(chan struct{})}
			c.classes[r.class] = cl
		}
		if !cl.known {
			if !cl.probing[r.subscription] {
				cl.probing[r.subscription] = true
				c.mu.Unlock()
				return nil, nil
			}
			learned := cl.learned
			c.mu.Unlock()
			select {
			case <-learned:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		held := make([]heldToken, len(cl.counters))
		for i, name := range cl.counters {
			held[i].bucket = c.bucketLocked(r, name)
		}
		c.mu.Unlock()
		for i := range held {
			t, err := held[i].take(ctx, priority)
			if err != nil {
				c.release(held[:i])
				return nil, err
			}
			held[i].ticket = t
		}
		return held, nil
	}
}

// release gives back the counters' places of a request not sent after all.
func (c *counters) release(held []heldToken) {
	for _, h := range held {
		h.release(h.ticket)
	}
}

// heldToken is a counter's token a request holds.
type heldToken struct {
	*bucket
	ticket
}

// abandon gives up r's place as the first of its class in its
// subscription, when it is not sent after all: another request of the
// class goes instead.
func (c *counters) abandon(r request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl := c.classes[r.class]; cl != nil && !cl.known && cl.probing[r.subscription] {
		delete(cl.probing, r.subscription)
		close(cl.learned)
		cl.learned = make(chan struct{})
	}
}

// answered brings the counters in step with the answer to r, which held
// the tokens of held: the class learns the counters the answer names, and
// each counter's mirror follows its count. On a 429, the counters the
// answer shows empty are the ones that throttled; it reports whether there
// were any (else the 429 is ARM's).
func (c *counters) answered(r request, held []heldToken, resp *http.Response) (providerThrottled bool) {
	var shown []counterCount
	if resp != nil {
		shown = remainingCounts(resp.Header)
	}
	throttled := resp != nil && resp.StatusCode == http.StatusTooManyRequests
	c.mu.Lock()
	cl := c.classes[r.class]
	if !cl.known {
		cl.known = true
		close(cl.learned)
	}
	byBucket := map[*bucket]answer{}
	for _, s := range shown {
		lower := strings.ToLower(s.name)
		if !containsFold(cl.counters, s.name) {
			cl.counters = append(cl.counters, s.name)
		}
		c.largest[lower] = max(c.largest[lower], float64(s.remaining+1))
		a := answer{came: true, status: resp.StatusCode, remaining: s.remaining, known: true, throttled: throttled && s.remaining == 0}
		providerThrottled = providerThrottled || a.throttled
		byBucket[c.bucketLocked(r, s.name)] = a
	}
	c.mu.Unlock()
	for _, h := range held {
		a, ok := byBucket[h.bucket]
		if !ok && resp != nil {
			a = answer{came: true, status: resp.StatusCode}
		}
		delete(byBucket, h.bucket)
		h.answered(h.ticket, a)
	}
	for b, a := range byBucket { // counters this request took no token of: new to its class
		b.observe(a)
	}
	return providerThrottled
}

// bucketLocked is the bucket of the counter name for r: the subscription's,
// or the resource's for a counter kept per resource.
func (c *counters) bucketLocked(r request, name string) *bucket {
	lower := strings.ToLower(name)
	k := counterKey{subscription: r.subscription, name: lower}
	if perResource(name) {
		k.resource = r.resource
	}
	b := c.buckets[k]
	if b != nil {
		return b
	}
	if l, ok := c.configured[lower]; ok {
		b = newBucket(l)
	} else {
		window := windowOf(name)
		size := max(c.largest[lower], 1)
		b = newBucket(RateLimit{Burst: int(size), PerSecond: size / window.Seconds()})
		b.window = window
	}
	c.buckets[k] = b
	return b
}

// perResource reports whether a counter is kept for each resource rather
// than for the subscription: Compute names those "...Resource"
// ("Microsoft.Compute/PutVMResource"), beside "...SubscriptionMaximum".
func perResource(name string) bool {
	return len(name) > len("Resource") && strings.EqualFold(name[len(name)-len("Resource"):], "Resource")
}

var windowSuffix = regexp.MustCompile(`(?i)(\d+)(sec|min|hour)$`)

// windowOf is how long a counter takes to refill from empty: the window
// its name ends in ("Microsoft.Compute/PutVM30Min"), else three minutes,
// as each of Compute's buckets holds three minutes of refill ("Compute
// throttling limits").
func windowOf(name string) time.Duration {
	m := windowSuffix.FindStringSubmatch(name)
	if m == nil {
		return 3 * time.Minute
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 3 * time.Minute
	}
	unit := map[string]time.Duration{"sec": time.Second, "min": time.Minute, "hour": time.Hour}[strings.ToLower(m[2])]
	return time.Duration(n) * unit
}

type counterCount struct {
	name      string
	remaining int
}

// remainingCounts reads x-ms-ratelimit-remaining-resource.
func remainingCounts(h http.Header) []counterCount {
	var out []counterCount
	for _, v := range h.Values(headerRemainingResource) {
		for _, part := range strings.Split(v, ",") {
			name, count, ok := strings.Cut(strings.TrimSpace(part), ";")
			n, err := strconv.Atoi(strings.TrimSpace(count))
			if !ok || err != nil || n < 0 || !strings.Contains(name, "/") {
				continue
			}
			out = append(out, counterCount{name: strings.TrimSpace(name), remaining: n})
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
