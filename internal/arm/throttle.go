package arm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Defaults of the bound on a read that keeps answering 429. ARM refills a
// subscription's read bucket within seconds (DefaultRateLimits.Reads) and
// its Retry-After asks for seconds, so a read still refused after minutes
// is throttled by something a client cannot wait out: another tool
// draining the bucket, or a resource provider's own limit.
const (
	DefaultThrottledTries = 30
	DefaultThrottledFor   = 5 * time.Minute
)

// ThrottledError is a read or a POST that answered 429 until the client's
// bound (RetryOptions.ThrottledTries, ThrottledFor) ran out.
type ThrottledError struct {
	// Kind is ARM's bucket the request draws on: "reads" (GET, HEAD and
	// the POSTs that only read, such as Resource Graph queries) or "writes"
	// (ARM counts the other POSTs, its actions, as writes).
	Kind         string
	Subscription string
	Method, Path string
	// Answers is how many 429s the request got; Over is the time from the
	// first try to the last answer.
	Answers int
	Over    time.Duration
	// Code and Message are ARM's error in the last 429, and Provider says
	// it was a resource provider's counter rather than ARM's bucket.
	Code, Message string
	Provider      bool
}

func (e *ThrottledError) Error() string {
	var b strings.Builder
	class := e.Kind
	if e.Method == http.MethodPost {
		class = "POST requests"
	}
	fmt.Fprintf(&b, "%s of subscription %s are throttled: %d answers of 429 over %s (last to %s %s", class, e.Subscription, e.Answers, e.Over.Round(time.Second), e.Method, e.Path)
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	b.WriteString("); ")
	if e.Provider {
		b.WriteString("a resource provider's own limit refused them")
	} else {
		fmt.Fprintf(&b, "ARM's limit is a bucket of about %d %s per subscription and identity, refilled at %g per second", e.bucket().Burst, e.Kind, e.bucket().PerSecond)
	}
	b.WriteString(", and it did not recover: find what else is spending it, or try again later")
	return b.String()
}

func (e *ThrottledError) bucket() RateLimit {
	if e.Kind == "reads" {
		return DefaultRateLimits.Reads
	}
	return DefaultRateLimits.Writes
}

// NonRetriable marks the error as final for azcore's retry policy.
func (*ThrottledError) NonRetriable() {}

// throttleBound counts one request's 429s and says when to give up on it:
// after its own tries, or once requests of its kind have been refused for
// longer than the bound (the bucket's streak), so that a plan of many reads
// ends within the bound too rather than one bound per read. Reads and POSTs
// (ARM's actions: pre-flight's checks, listing keys) are bounded; a PUT,
// PATCH or DELETE waits out any throttle, since leaving an apply half done
// costs more than waiting.
type throttleBound struct {
	tries   int
	within  time.Duration
	started time.Time
	answers int
}

func newThrottleBound(ctx context.Context, method string, o RetryOptions) *throttleBound {
	reading, _ := ctx.Value(readingKey{}).(bool)
	if !reading && method != http.MethodGet && method != http.MethodHead && method != http.MethodPost {
		return nil
	}
	return &throttleBound{tries: o.ThrottledTries, within: o.ThrottledFor, started: time.Now()}
}

// exceeded counts a 429 (the bucket has counted it already) and reports
// whether waiting wait for the next try would pass the bound.
func (t *throttleBound) exceeded(bk *armBucket, wait time.Duration) bool {
	if t == nil {
		return false
	}
	t.answers++
	_, since := bk.throttled()
	return t.answers >= t.tries || time.Since(earlier(since, t.started))+wait > t.within
}

// throttled are the 429s this kind of request has been answered in a row,
// and when the first of them came (now when none).
func (b *bucket) throttled() (int, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.streak == 0 {
		return 0, time.Now()
	}
	return b.streak, b.streakSince
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
