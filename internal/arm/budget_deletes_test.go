package arm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// TestDeletesArePacedByTheDeletesBucket: ARM keeps a bucket for DELETEs
// apart from the writes'. A destroy larger than a small deletes bucket is
// paced by it (no 429), though the writes bucket would let every DELETE go
// at once; the DELETEs are counted as deletes, none as writes.
func TestDeletesArePacedByTheDeletesBucket(t *testing.T) {
	limit := emulator.RateLimit{Burst: 3, PerSecond: 30}
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.RateLimits = RateLimits{Reads: DefaultRateLimits.Reads, Writes: DefaultRateLimits.Writes, Deletes: RateLimit(limit)}
	})
	const n = 20
	for i := range n {
		put(t, c, rgID(fmt.Sprintf("gone-%d", i)), rgAPI, map[string]any{"location": "westus2"})
	}
	writesBefore := c.Budget().Writes.Answered
	emu.run.Server.SetFaults(emulator.Faults{DeleteLimit: limit})

	atOnce(t, n, func(i int) error {
		ctx := testContext(t)
		op, err := c.Delete(ctx, rgID(fmt.Sprintf("gone-%d", i)), rgAPI)
		if err == nil {
			_, err = op.Wait(ctx)
		}
		return err
	})
	if got := emu.rec.method(http.MethodDelete); got < n {
		t.Fatalf("%d DELETEs went out, want at least %d: the test proves nothing", got, n)
	}
	if got := emu.rec.status(http.StatusTooManyRequests); got != 0 {
		t.Errorf("%d DELETEs were throttled: they were not paced by the deletes bucket", got)
	}
	st := c.Budget()
	if st.Deletes.Answered < n || st.Deletes.Throttled != 0 {
		t.Errorf("deletes budget %+v, want %d answered, none throttled", st.Deletes, n)
	}
	if st.Writes.Answered != writesBefore {
		t.Errorf("the DELETEs drew on the writes bucket: %d writes answered before, %d after", writesBefore, st.Writes.Answered)
	}
}

// TestEmptyDeletesBucketHoldsDeletesNotWrites: a DELETE answered with
// x-ms-ratelimit-remaining-subscription-deletes: 0 holds the next DELETE
// (queued, never sent) while a PUT, counted by the writes bucket, still goes.
func TestEmptyDeletesBucketHoldsDeletesNotWrites(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodDelete:
			w.Header().Set("x-ms-ratelimit-remaining-subscription-deletes", "0")
			w.WriteHeader(http.StatusOK)
		case http.MethodPut:
			w.Header().Set("x-ms-ratelimit-remaining-subscription-writes", "150")
			_, _ = w.Write([]byte(`{"location":"westus2","properties":{"provisioningState":"Succeeded"}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	sent := func(method string) int {
		mu.Lock()
		defer mu.Unlock()
		return seen[method]
	}
	// A refill so slow that the emptied deletes bucket stays empty for the test.
	c, err := New(Options{Credential: EmulatorCredential, Subscription: testSub, Endpoint: srv.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: time.Millisecond,
		RateLimits: RateLimits{Reads: DefaultRateLimits.Reads, Writes: DefaultRateLimits.Writes, Deletes: RateLimit{Burst: 50, PerSecond: 0.001}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(testContext(t), rgID("first"), rgAPI); err != nil {
		t.Fatal(err)
	}

	held, stop := context.WithCancel(testContext(t))
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := c.Delete(held, rgID("second"), rgAPI)
		done <- err
	}()
	// Wait (by count) until the second DELETE waits for its token, or went out.
	for deadline := time.Now().Add(5 * time.Second); c.Budget().Deletes.Queued == 0 && sent(http.MethodDelete) < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := sent(http.MethodDelete); got != 1 {
		t.Fatalf("%d DELETEs sent after ARM said no delete is left, want the second held", got)
	}
	if q := c.Budget().Deletes.Queued; q != 1 {
		t.Fatalf("%d DELETEs queued, want the second", q)
	}

	// A PUT draws on the writes bucket, which has tokens: it goes now. A
	// bounded context so that a PUT held by the deletes bucket fails instead of hanging.
	ctx, cancel := context.WithTimeout(testContext(t), 5*time.Second)
	defer cancel()
	if _, err := c.Put(ctx, rgID("meanwhile"), rgAPI, map[string]any{"location": "westus2"}); err != nil {
		t.Fatalf("the PUT was held with the DELETE: %v", err)
	}
	if sent(http.MethodPut) != 1 {
		t.Errorf("%d PUTs reached the server, want 1", sent(http.MethodPut))
	}
	if got, q := sent(http.MethodDelete), c.Budget().Deletes.Queued; got != 1 || q != 1 {
		t.Errorf("after the PUT: %d DELETEs sent, %d queued; want the second still held", got, q)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the held DELETE ended with %v, want it waiting until cancelled", err)
	}
	if st := c.Budget(); st.Writes.Answered != 1 || st.Deletes.Answered != 1 {
		t.Errorf("budget %+v, want one write and one delete answered", st)
	}
}
