package arm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// throttlingARM answers 429 to every request until it has answered
// throttleFirst of them (forever when negative), then 200.
func throttlingARM(t *testing.T, throttleFirst int64) (*httptest.Server, *atomic.Int64) {
	var answered atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := answered.Add(1)
		if throttleFirst < 0 || n <= throttleFirst {
			w.Header().Set("retry-after-ms", "5")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"code":"SubscriptionRequestsThrottled","message":"Number of read requests for subscription exceeded the limit."}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","properties":{}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &answered
}

func TestThrottledReadGivesUpAfterTries(t *testing.T) {
	srv, answered := throttlingARM(t, -1)
	retry := fastRetry
	retry.ThrottledTries, retry.ThrottledFor = 4, time.Minute
	c, err := New(Options{Credential: EmulatorCredential, Subscription: "00000000-0000-0000-0000-000000000001", Endpoint: srv.URL, AllowHTTP: true, Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	id := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg"
	_, err = c.Get(context.Background(), id, "2021-04-01")
	var te *ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("a read throttled forever: got %v, want a ThrottledError", err)
	}
	if te.Answers != 4 || answered.Load() != 4 {
		t.Errorf("answers counted %d, sent %d; want 4 and 4", te.Answers, answered.Load())
	}
	for _, want := range []string{"reads of subscription 00000000-0000-0000-0000-000000000001 are throttled: 4 answers of 429", "GET " + id, "SubscriptionRequestsThrottled", "ARM's limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := c.Budget().Reads.Throttled; got != 4 {
		t.Errorf("the read budget counted %d 429s, want 4", got)
	}
}

func TestThrottledReadGivesUpAfterTime(t *testing.T) {
	srv, answered := throttlingARM(t, -1)
	retry := fastRetry
	retry.ThrottledTries, retry.ThrottledFor = 1000, 150*time.Millisecond
	c, err := New(Options{Credential: EmulatorCredential, Subscription: "00000000-0000-0000-0000-000000000001", Endpoint: srv.URL, AllowHTTP: true, Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	_, err = c.List(context.Background(), "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups", "2021-04-01")
	var te *ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("a list throttled forever: got %v, want a ThrottledError", err)
	}
	if took := time.Since(started); took > 150*time.Millisecond+time.Second {
		t.Errorf("gave up after %s, past the bound of 150ms", took)
	}
	if te.Answers < 2 || te.Answers >= 1000 || int64(te.Answers) != answered.Load() {
		t.Errorf("answers counted %d, sent %d; want the time bound to end them", te.Answers, answered.Load())
	}
}

// A write waits out a throttle however long: only reads and POSTs are bounded.
func TestThrottledWriteIsNotBounded(t *testing.T) {
	srv, answered := throttlingARM(t, 3)
	retry := fastRetry
	retry.ThrottledTries, retry.ThrottledFor = 2, time.Minute
	c, err := New(Options{Credential: EmulatorCredential, Subscription: "00000000-0000-0000-0000-000000000001", Endpoint: srv.URL, AllowHTTP: true, Retry: retry, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Put(context.Background(), "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg", "2021-04-01", map[string]any{"location": "westeurope"})
	if err != nil {
		t.Fatalf("a write throttled 3 times failed: %v", err)
	}
	if answered.Load() != 4 {
		t.Errorf("sent %d, want 4 (3 throttled, then the write)", answered.Load())
	}
}
