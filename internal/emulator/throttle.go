package emulator

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// ARM's default token buckets per subscription and principal, since its 2024
// move to regional buckets: reads 250 at once refilled 25 a second, writes
// and deletes 200 refilled 10 a second. The global bucket of a subscription,
// shared by every principal, is armGlobalFactor times each.
var (
	armReads   = RateLimit{Burst: 250, PerSecond: 25}
	armWrites  = RateLimit{Burst: 200, PerSecond: 10}
	armDeletes = RateLimit{Burst: 200, PerSecond: 10}
)

const armGlobalFactor = 15

// WithARMLimits returns f throttling as ARM does by default, with buckets
// refilled compression times faster for a time-compressed run (see
// Options.TimeCompression; below 1 means 1).
func (f Faults) WithARMLimits(compression float64) Faults {
	c := max(compression, 1)
	scale := func(l RateLimit) RateLimit { return RateLimit{Burst: l.Burst, PerSecond: l.PerSecond * c} }
	f.ReadLimit, f.WriteLimit, f.DeleteLimit = scale(armReads), scale(armWrites), scale(armDeletes)
	return f
}

// bucket is one token bucket's state.
type bucket struct {
	tokens float64
	last   time.Time
}

// classOf is the kind of request ARM counts a method as.
func classOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

func (f Faults) limitOf(class string) RateLimit {
	switch class {
	case "reads":
		return f.ReadLimit
	case "deletes":
		return f.DeleteLimit
	}
	return f.WriteLimit
}

// take removes a token from the named bucket; when it is empty it reports
// how long until the next token. The time is read under the lock, so that
// requests are counted in the order they are decided.
func (fs *faultState) take(limit RateLimit, name string) (remaining int, wait time.Duration, ok bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := time.Now()
	b := fs.buckets[name]
	if b == nil {
		b = &bucket{tokens: float64(limit.Burst), last: now}
		fs.buckets[name] = b
	}
	b.tokens = math.Min(float64(limit.Burst), b.tokens+now.Sub(b.last).Seconds()*limit.PerSecond)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return int(b.tokens), 0, true
	}
	if limit.PerSecond <= 0 {
		return 0, time.Hour, false
	}
	return 0, time.Duration((1 - b.tokens) / limit.PerSecond * float64(time.Second)), false
}

// throttle takes the request's token from its subscription's bucket and
// from the subscription's global bucket, sets both remaining counts on the
// answer, and answers 429 when either is empty; it reports whether it did.
func (s *Server) throttle(w http.ResponseWriter, r *http.Request, sub string, f Faults) bool {
	class := classOf(r.Method)
	limit := f.limitOf(class)
	if limit.Burst <= 0 {
		return false
	}
	global := RateLimit{Burst: limit.Burst * armGlobalFactor, PerSecond: limit.PerSecond * armGlobalFactor}
	remaining, wait, ok := s.faults.take(limit, class+":"+sub)
	globalRemaining, globalWait, globalOK := s.faults.take(global, "global-"+class+":"+sub)
	h := w.Header()
	h.Set("x-ms-ratelimit-remaining-subscription-"+class, strconv.Itoa(remaining))
	h.Set("x-ms-ratelimit-remaining-subscription-global-"+class, strconv.Itoa(globalRemaining))
	if ok && globalOK {
		return false
	}
	writeThrottled(w, class, sub, max(wait, globalWait), s.opts.compression())
	return true
}

// writeThrottled answers 429 with ARM's Retry-After, in whole seconds; a
// time-compressed emulator adds retry-after-ms, which the Azure SDKs read
// first, since its waits are fractions of a second.
func writeThrottled(w http.ResponseWriter, class, sub string, wait time.Duration, compression float64) {
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if compression > 1 {
		w.Header().Set("retry-after-ms", strconv.FormatInt(max(wait.Milliseconds(), 1), 10))
	}
	writeError(w, http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
		"Number of '%s' requests for subscription '%s' exceeded. Please try again after '%d' seconds.", class[:len(class)-1], sub, secs)
}
