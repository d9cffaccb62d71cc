package arm

import (
	"context"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// getAll reads the resource group n times at once and fails on any error.
func getAll(t *testing.T, c *Client, id string, n int) {
	t.Helper()
	atOnce(t, n, func(int) error {
		_, err := c.Get(testContext(t), id, rgAPI)
		return err
	})
}

// atOnce runs send n times concurrently (with 0 … n-1) and fails on any error.
func atOnce(t *testing.T, n int, send func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- send(i)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestBudgetPacesRequestsByARMsBucket: requests beyond the burst wait for
// the refill instead of being throttled.
func TestBudgetPacesRequestsByARMsBucket(t *testing.T) {
	limit := emulator.RateLimit{Burst: 5, PerSecond: 50}
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.RateLimits = RateLimits{Reads: RateLimit(limit), Writes: DefaultRateLimits.Writes, Deletes: DefaultRateLimits.Deletes}
	})
	put(t, c, rgID("paced"), rgAPI, map[string]any{"location": "westus2"})
	emu.run.Server.SetFaults(emulator.Faults{ReadLimit: limit})

	const n = 40
	start := time.Now()
	getAll(t, c, rgID("paced"), n)
	elapsed := time.Since(start)
	if got := emu.rec.status(http.StatusTooManyRequests); got != 0 {
		t.Errorf("%d reads were throttled; the budget should have paced them", got)
	}
	// The 35 reads beyond the burst need the refill: 0.7 s.
	if floor := time.Duration(float64(n-limit.Burst) / limit.PerSecond * float64(time.Second) * 0.9); elapsed < floor {
		t.Errorf("%d reads took %s, less than the bucket allows (%s)", n, elapsed, floor)
	}
	if st := c.Budget().Reads; st.Answered < n || st.Throttled != 0 || st.InFlight != 0 || st.Queued != 0 {
		t.Errorf("read budget after the run: %+v", st)
	}
}

// TestBudgetLearnsARMsBucketFromTheHeaders: a subscription whose bucket is
// smaller than assumed (its tokens spent by others, or a smaller quota) is
// followed by its x-ms-ratelimit-remaining headers, not found out by 429s,
// even after a pause long enough to refill the assumed bucket.
func TestBudgetLearnsARMsBucketFromTheHeaders(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.RateLimits = RateLimits{Reads: RateLimit{Burst: 250, PerSecond: 100}, Writes: DefaultRateLimits.Writes, Deletes: DefaultRateLimits.Deletes}
	})
	put(t, c, rgID("learn"), rgAPI, map[string]any{"location": "westus2"})
	emu.run.Server.SetFaults(emulator.Faults{ReadLimit: emulator.RateLimit{Burst: 10, PerSecond: 100}})
	getAll(t, c, rgID("learn"), 1) // its answer says 9 are left
	// ARM's bucket refills to its 10; the assumed one would hold 30 more.
	time.Sleep(300 * time.Millisecond)

	const n = 60
	getAll(t, c, rgID("learn"), n)
	// ARM's count comes in whole tokens, so the mirror can run up to a
	// token ahead of it: a read or two may meet an empty bucket before an
	// answer corrects the mirror (measured: none in 40 runs on a loaded
	// machine; without the learned size, 23 to 34).
	if got := emu.rec.status(http.StatusTooManyRequests); got > 2 {
		t.Errorf("%d of %d reads were throttled: the headers were not followed", got, n)
	}
}

// TestThrottlingUsesNoRetries: a request throttled more times than it may
// be retried still succeeds; the 429s only delay it.
func TestThrottlingUsesNoRetries(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Seed: 3})
	c := emu.client(t, func(o *Options) {
		o.Retry.MaxAttempts = 1
		o.RateLimits = RateLimits{Reads: RateLimit{Burst: 100, PerSecond: 1000}, Writes: RateLimit{Burst: 100, PerSecond: 1000}, Deletes: DefaultRateLimits.Deletes}
	})
	put(t, c, rgID("patient"), rgAPI, map[string]any{"location": "westus2"})
	emu.run.Server.SetFaults(emulator.Faults{ThrottleRate: 0.6})
	for range 10 {
		if _, err := c.Get(testContext(t), rgID("patient"), rgAPI); err != nil {
			t.Fatal(err)
		}
	}
	if emu.rec.status(http.StatusTooManyRequests) < 3 {
		t.Fatal("hardly any request was throttled: the test proves nothing")
	}
	if st := c.Budget().Reads; st.Throttled != emu.rec.status(http.StatusTooManyRequests) {
		t.Errorf("budget counted %d throttled reads, the emulator sent %d", st.Throttled, emu.rec.status(http.StatusTooManyRequests))
	}
}

// TestBudgetGrantsByPriority: among waiting requests, the higher priority
// gets the next token, then the earlier arrival.
func TestBudgetGrantsByPriority(t *testing.T) {
	b := newBucket(RateLimit{Burst: 1, PerSecond: 50})
	ctx := context.Background()
	first, err := b.take(ctx, 0) // the only token, in flight until answered below
	if err != nil {
		t.Fatal(err)
	}
	ok := answer{came: true, status: http.StatusOK}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	enqueue := func(name string, prio float64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := b.take(ctx, prio)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			b.answered(tk, ok)
		}()
		for deadline := time.Now().Add(time.Second); b.stats().Queued < len(name) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	// Names grow by one letter so each waits until it is queued.
	enqueue("a", 1)
	enqueue("bb", 5)
	enqueue("ccc", 5)
	enqueue("dddd", 9)
	b.answered(first, ok)
	wg.Wait()
	want := []string{"dddd", "bb", "ccc", "a"}
	for i := range want {
		if i >= len(order) || order[i] != want[i] {
			t.Fatalf("granted in order %v, want %v", order, want)
		}
	}
}

// TestBudgetBacksOffOn429: a 429 empties the bucket and halves its refill,
// which every answer that is not throttled then raises back to the assumed rate.
func TestBudgetBacksOffOn429(t *testing.T) {
	b := newBucket(RateLimit{Burst: 200, PerSecond: 10})
	respond := func(status int) {
		b.mu.Lock()
		t := b.grantLocked(time.Now()) // as if it took a token, which the empty bucket would make wait
		b.mu.Unlock()
		b.answered(t, answer{came: true, status: status, throttled: status == http.StatusTooManyRequests})
	}
	respond(http.StatusTooManyRequests)
	if got := b.lim.rate; got != 5 {
		t.Errorf("refill after a 429: %v a second, want 5", got)
	}
	if got := b.lim.at(time.Now()); got > 1 {
		t.Errorf("%.1f tokens left after a 429", got)
	}
	for range 5 {
		respond(http.StatusTooManyRequests)
	}
	if got := b.lim.rate; got != 10.0/16 {
		t.Errorf("refill after many 429s: %v, want the floor 10/16", got)
	}
	for range 40 {
		respond(http.StatusOK)
	}
	if got := b.lim.rate; got != 10 {
		t.Errorf("refill after answers that were not throttled: %v, want back to 10", got)
	}
	if st := b.stats(); st.Throttled != 6 || st.Answered != 46 || st.InFlight != 0 {
		t.Errorf("counts: %+v", st)
	}
}

// TestBudgetFollowsRemainingHeaders: ARM's count, global or subscription
// whichever is lower, bounds the mirror: it falls to the count less the
// requests sent after the answered one and still in flight (other clients
// spent tokens); it rises to the count less every request sent after it and
// every one in flight when it went (answers slowed on their way left tokens
// unspent); and a count above the assumed burst shows a bigger bucket.
func TestBudgetFollowsRemainingHeaders(t *testing.T) {
	b := &armBucket{newBucket(RateLimit{Burst: 200, PerSecond: 0.01}), "deletes"}
	take := func() ticket {
		tk, err := b.take(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	answer := func(tk ticket, deletes string) {
		h := http.Header{}
		h.Set("x-ms-ratelimit-remaining-subscription-deletes", deletes)
		h.Set("x-ms-ratelimit-remaining-subscription-global-deletes", "2999")
		h.Set("x-ms-ratelimit-remaining-subscription-writes", "0") // another kind's count
		b.answered(tk, &http.Response{StatusCode: http.StatusOK, Header: h}, true)
	}
	tokens := func(what string, want float64) {
		t.Helper()
		b.mu.Lock()
		got := b.lim.at(time.Now())
		b.mu.Unlock()
		if got < want-0.5 || got > want+0.5 {
			t.Errorf("tokens after %s: %.1f, want %v", what, got, want)
		}
	}
	answer(take(), "40")
	tokens("ARM said 40 remain", 40)

	// Three go out (37 left); the first's count leaves out the two after
	// it: no news.
	first, second, third := take(), take(), take()
	answer(first, "39")
	tokens("an answer that counts what the mirror does", 37)
	// Another client spent ten.
	answer(second, "28")
	tokens("an answer showing fewer than the mirror", 27)
	// Azure held more than the mirror (a refill it did not see): the mirror
	// rises to that count less the two in flight when the third went.
	answer(third, "60")
	tokens("an answer showing more than the mirror", 58)
	// Answers out of order: the fifth's count may lack the fourth.
	fourth, fifth := take(), take()
	answer(fifth, "80")
	tokens("an answer with one sent before it in flight", 79)
	answer(fourth, "80")
	tokens("the answer to that one", 79)

	answer(take(), "999")
	if b.lim.burst != 1000 {
		t.Errorf("burst after ARM said 999 remain: %v", b.lim.burst)
	}
	tokens("a bigger bucket", 999)
}

func TestParseRateLimits(t *testing.T) {
	got, err := ParseRateLimits("writes=1000:50, reads=2000:100")
	if err != nil {
		t.Fatal(err)
	}
	want := RateLimits{Reads: RateLimit{2000, 100}, Writes: RateLimit{1000, 50}, Deletes: DefaultRateLimits.Deletes}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	got, err = ParseRateLimits("Microsoft.Compute/PutVMSubscriptionMaximum=1500:8.33")
	if err != nil || got.Reads != DefaultRateLimits.Reads || got.Counters["microsoft.compute/putvmsubscriptionmaximum"] != (RateLimit{1500, 8.33}) {
		t.Errorf("a provider counter: %+v, %v", got, err)
	}
	for _, bad := range []string{"writes", "writes=10", "writes=0:1", "writes=10:0", "writes=10:x", "puts=10:1", "writes=10:NaN", "/x=1:1", "Microsoft.Compute/=1:1"} {
		if _, err := ParseRateLimits(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
