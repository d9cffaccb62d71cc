package applier_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// statusCounter counts the answers of each status.
type statusCounter struct {
	next      *http.Client
	throttled atomic.Int64
}

func (c *statusCounter) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.throttled.Add(1)
	}
	return resp, err
}

// TestThrottledSubscriptionHoldsBackNoOther: three subscriptions get 30
// resource groups each; the first one's write bucket is all but empty
// before the apply starts (its tokens spent by others), refilled at 5 a
// second (3 s for half of its work: the other two's 60, from their full
// buckets, take a fraction of that even on a busy machine under -race). The
// other two go at their own rate: all 60 of theirs are done
// while the throttled one has done at most half of its 30, listed first as
// they are, at --parallelism 10 (where they would wait for slots its
// throttled work holds) and unbounded. Nothing is throttled, nothing fails,
// and the progress events count each subscription's work.
func TestThrottledSubscriptionHoldsBackNoOther(t *testing.T) {
	subs := []string{"00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b", "00000000-0000-0000-0000-00000000000c"}
	const perSub = 30
	limit := emulator.RateLimit{Burst: 40, PerSecond: 5}
	for _, parallelism := range []int{10, 0} {
		t.Run(fmt.Sprintf("parallelism=%d", parallelism), func(t *testing.T) {
			e := start(t, emulator.Options{Faults: emulator.Faults{WriteLimit: limit}}, 0)
			counter := &statusCounter{next: e.run.HTTPClient()}
			client, err := arm.New(arm.Options{
				Subscription: subs[0], Endpoint: e.run.URL, Credential: arm.EmulatorCredential, Transport: counter, Parallelism: parallelism,
				RateLimits:    arm.RateLimits{Reads: arm.DefaultRateLimits.Reads, Writes: arm.RateLimit(limit), Deletes: arm.DefaultRateLimits.Deletes},
				PollFrequency: 20 * time.Millisecond, Retry: arm.RetryOptions{MaxAttempts: 3, Delay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond},
			})
			if err != nil {
				t.Fatal(err)
			}
			// Someone else spends the first subscription's tokens.
			for i := range limit.Burst {
				put(t, client, fmt.Sprintf("/subscriptions/%s/resourceGroups/other%02d", subs[0], i))
			}

			var resources []*planner.Resource
			for _, sub := range subs {
				for i := range perSub {
					id := fmt.Sprintf("/subscriptions/%s/resourceGroups/rg%02d", sub, i)
					resources = append(resources, &planner.Resource{
						Address: sub[len(sub)-1:] + "/rg" + fmt.Sprint(i), ARMID: id, APIVersion: "2021-04-01", ARMType: "Microsoft.Resources/resourceGroups",
						Action:  planner.ActionCreate,
						Request: &convert.Request{Method: http.MethodPut, URL: id + "?api-version=2021-04-01", Body: map[string]any{"location": "westus2"}},
					})
				}
			}
			rec := &recorder{}
			opts := applier.Options{Client: client, Parallelism: parallelism, Events: rec.record, Heartbeat: 20 * time.Millisecond}
			rep := applier.Apply(context.Background(), resources, opts)
			if rep.Failed() {
				t.Fatalf("apply failed: %v", outcomes(rep))
			}
			if n := counter.throttled.Load(); n != 0 {
				t.Errorf("%d requests were throttled", n)
			}
			done := map[string]int{}
			throttledDone := -1
			for _, ev := range rec.all() {
				if ev.Type != applier.EventEnd {
					continue
				}
				done[ev.Address[:1]]++
				if done["b"] == perSub && done["c"] == perSub && throttledDone < 0 {
					throttledDone = done["a"]
				}
			}
			if throttledDone < 0 || throttledDone > perSub/2 {
				t.Errorf("the throttled subscription had done %d of %d when the others were done: it held them back", throttledDone, perSub)
			}
			var last *applier.Progress
			for _, ev := range rec.all() {
				if ev.Type == applier.EventProgress {
					last = ev.Progress
				}
			}
			if last == nil || len(last.Subscriptions) != len(subs) || last.Subscriptions[0].Subscription != subs[0] || last.Subscriptions[0].Total != perSub {
				t.Errorf("progress by subscription: %+v", last)
			}
		})
	}
}

// put creates a resource group through the client.
func put(t *testing.T, c *arm.Client, id string) {
	t.Helper()
	op, err := c.Put(context.Background(), id, "2021-04-01", map[string]any{"location": "westus2"})
	if err == nil {
		_, err = op.Wait(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
}
