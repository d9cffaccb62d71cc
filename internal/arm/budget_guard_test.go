package arm

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/emulator"
)

// TestBudgetTakesTheLowerOfSubscriptionAndGlobalCounts: ARM counts every
// request against the subscription's bucket and against a global one that
// every principal shares, and answers both counts
// (x-ms-ratelimit-remaining-subscription-{kind} and
// x-ms-ratelimit-remaining-subscription-global-{kind}). The mirror follows
// whichever has fewer tokens left, for each kind, so that a global bucket
// drained by other clients paces azk before ARM throttles it.
func TestBudgetTakesTheLowerOfSubscriptionAndGlobalCounts(t *testing.T) {
	for _, kind := range []string{"reads", "writes", "deletes"} {
		for _, tc := range []struct {
			name, subscription, global string
		}{
			{"global lower", "900", "7"},
			{"subscription lower", "7", "900"},
			{"global only", "", "7"},
			{"subscription only", "7", ""},
		} {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				// A slow refill, so that the count the answer left is what the
				// bucket holds while the test looks at it.
				b := &armBucket{newBucket(RateLimit{Burst: 1200, PerSecond: 0.5}), kind}
				tk, err := b.take(context.Background(), 0)
				if err != nil {
					t.Fatal(err)
				}
				h := http.Header{}
				if tc.subscription != "" {
					h.Set("x-ms-ratelimit-remaining-subscription-"+kind, tc.subscription)
				}
				if tc.global != "" {
					h.Set("x-ms-ratelimit-remaining-subscription-global-"+kind, tc.global)
				}
				b.answered(tk, &http.Response{StatusCode: http.StatusOK, Header: h}, true)
				b.mu.Lock()
				got := b.lim.at(time.Now())
				b.mu.Unlock()
				if got < 6.5 || got > 8 {
					t.Fatalf("ARM answered %s=%q and global-%s=%q: the mirror holds %.1f tokens, want the lower count, 7",
						kind, tc.subscription, kind, tc.global, got)
				}
				// Seven requests go at once; the eighth waits for the refill.
				for i := range 7 {
					if _, err := b.take(context.Background(), 0); err != nil {
						t.Fatalf("request %d: %v", i+1, err)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				if _, err := b.take(ctx, 0); err == nil {
					t.Error("an eighth request went at once, beyond the 7 tokens ARM said were left")
				}
			})
		}
	}
}

// globalReads answers, as ARM does for a subscription whose global bucket
// other clients have drained, a global count of reads left that each read
// lowers by one, while the subscription's own count (if any) stays high.
type globalReads struct {
	next policy.Transporter
	mu   sync.Mutex
	left int
}

func (g *globalReads) Do(req *http.Request) (*http.Response, error) {
	resp, err := g.next.Do(req)
	if err != nil || req.Method != http.MethodGet {
		return resp, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	resp.Header.Set("x-ms-ratelimit-remaining-subscription-reads", "11999")
	resp.Header.Set("x-ms-ratelimit-remaining-subscription-global-reads", strconv.Itoa(max(g.left, 0)))
	g.left--
	return resp, nil
}

// TestClientPacesByTheGlobalCount: over HTTP, through the client's
// pipeline, reads stop going out at once when the global count, not the
// subscription's, runs out.
func TestClientPacesByTheGlobalCount(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.Transport = &globalReads{next: emu.rec, left: 3}
		o.RateLimits = RateLimits{Reads: RateLimit{Burst: 12000, PerSecond: 0.5}, Writes: DefaultRateLimits.Writes, Deletes: DefaultRateLimits.Deletes}
	})
	put(t, c, rgID("paced"), rgAPI, map[string]any{"location": "westus2"})
	for i := range 4 { // ARM says 3, 2, 1, then 0 reads are left
		if _, err := c.Get(testContext(t), rgID("paced"), rgAPI); err != nil {
			t.Fatalf("read %d: %v", i+1, err)
		}
	}
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	if _, err := c.Get(ctx, rgID("paced"), rgAPI); err == nil {
		t.Error("a read went out at once after ARM said no global reads were left (the subscription had 11999)")
	}
}
