package arm

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

const storageAPI = "2023-01-01"

func storageID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.Storage/storageAccounts/" + name
}

var storageBody = map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}

// testWrites is a provider counter of storage account PUTs, for the tests.
func testWrites(l emulator.RateLimit) emulator.Faults {
	return emulator.Faults{ProviderLimits: []emulator.ProviderLimit{{
		Counter: "Microsoft.Storage/TestWrites", Types: []string{"Microsoft.Storage/storageAccounts"},
		Methods: []string{http.MethodPut}, Limit: l,
	}}}
}

// putAll PUTs n storage accounts into the resource group at once and fails on any error.
func putAll(t *testing.T, c *Client, rg string, n int) {
	t.Helper()
	atOnce(t, n, func(i int) error {
		op, err := c.Put(testContext(t), storageID(rg, "sa"+string(rune('a'+i%26))+string(rune('a'+i/26))), storageAPI, storageBody)
		if err == nil {
			_, err = op.Wait(testContext(t))
		}
		return err
	})
}

// TestBudgetPacesByProviderCounters: a burst of requests a provider counter
// covers, sent at once, is paced by the counter the first answer names,
// not found out by 429s; ARM's bucket, much bigger, does not hold them.
func TestBudgetPacesByProviderCounters(t *testing.T) {
	limit := emulator.RateLimit{Burst: 5, PerSecond: 40}
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.RateLimits.Counters = map[string]RateLimit{"microsoft.storage/testwrites": RateLimit(limit)}
	})
	put(t, c, rgID("counted"), rgAPI, map[string]any{"location": "westus2"})
	emu.run.Server.SetFaults(testWrites(limit))

	const n = 30
	start := time.Now()
	putAll(t, c, "counted", n)
	elapsed := time.Since(start)
	if got := emu.rec.status(http.StatusTooManyRequests); got != 0 {
		t.Errorf("%d of %d PUTs were throttled: the counter did not pace them", got, n)
	}
	if floor := time.Duration(float64(n-limit.Burst) / limit.PerSecond * float64(time.Second) * 0.9); elapsed < floor {
		t.Errorf("%d PUTs took %s, less than the counter allows (%s)", n, elapsed, floor)
	}
	if st := c.Budget().Writes; st.Answered < n || st.InFlight != 0 || st.Queued != 0 {
		t.Errorf("write budget after the run: %+v", st)
	}
}

// TestProviderThrottleSlowsItsCounterNotARMs: when a counter refills slower
// than assumed, its 429s back off the counter (the one the answer shows
// empty) and leave ARM's bucket at its rate; every request still succeeds.
func TestProviderThrottleSlowsItsCounterNotARMs(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) {
		o.RateLimits.Counters = map[string]RateLimit{"microsoft.storage/testwrites": {Burst: 2, PerSecond: 1000}}
	})
	put(t, c, rgID("slow"), rgAPI, map[string]any{"location": "westus2"})
	emu.run.Server.SetFaults(testWrites(emulator.RateLimit{Burst: 2, PerSecond: 50}))

	putAll(t, c, "slow", 20)
	if emu.rec.status(http.StatusTooManyRequests) == 0 {
		t.Fatal("no PUT was throttled: the test proves nothing")
	}
	b := c.shared.budgets
	if rate := rateOf(b.of(testSub, "").writes); rate != DefaultRateLimits.Writes.PerSecond {
		t.Errorf("ARM's write bucket refills at %v after a provider's 429s, want %v", rate, DefaultRateLimits.Writes.PerSecond)
	}
	b.counters.mu.Lock()
	counter := b.counters.buckets[counterKey{subscription: testSub, name: "microsoft.storage/testwrites"}]
	b.counters.mu.Unlock()
	if counter == nil || rateOf(counter) >= 1000 {
		t.Fatal("the counter's mirror did not back off")
	}
	if st := c.Budget().Writes; st.Throttled != emu.rec.status(http.StatusTooManyRequests) {
		t.Errorf("budget counted %d throttled writes, the emulator sent %d", st.Throttled, emu.rec.status(http.StatusTooManyRequests))
	}
}

// TestBudgetOfThePathsSubscription: requests for another subscription's
// resources draw on that subscription's budget, whichever client sends them.
func TestBudgetOfThePathsSubscription(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, nil)
	other := "11111111-1111-1111-1111-111111111111"
	put(t, c, rgID("here"), rgAPI, map[string]any{"location": "westus2"})
	put(t, c, "/subscriptions/"+other+"/resourceGroups/there", rgAPI, map[string]any{"location": "westus2"})
	put(t, c, "/subscriptions/"+strings.ToUpper(other)+"/resourceGroups/again", rgAPI, map[string]any{"location": "westus2"})
	got := c.Budgets()
	if len(got) != 2 || got[0].Subscription != testSub || got[0].Writes.Answered != 1 || got[1].Subscription != other || got[1].Writes.Answered != 2 {
		t.Errorf("budgets by subscription: %+v", got)
	}
}

func rateOf(b *bucket) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lim.rate
}

func TestRemainingCounts(t *testing.T) {
	h := http.Header{}
	h.Add("x-ms-ratelimit-remaining-resource", "Microsoft.Compute/PutVMSubscriptionMaximum;1499,Microsoft.Compute/PutVMResource;11")
	h.Add("x-ms-ratelimit-remaining-resource", "Microsoft.Compute/HighCostGet30Min;0, garbage, x;3,Microsoft.Compute/Bad;-1")
	got := remainingCounts(h)
	want := []counterCount{{"Microsoft.Compute/PutVMSubscriptionMaximum", 1499}, {"Microsoft.Compute/PutVMResource", 11}, {"Microsoft.Compute/HighCostGet30Min", 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}

func TestCounterWindowsAndScopes(t *testing.T) {
	for name, want := range map[string]time.Duration{
		"Microsoft.Compute/PutVM3Min":                  3 * time.Minute,
		"Microsoft.Compute/PutVM30Min":                 30 * time.Minute,
		"Microsoft.Storage/StorageAccountWrites1Hour":  time.Hour,
		"Microsoft.Storage/StorageAccountWrites1Sec":   time.Second,
		"Microsoft.Compute/PutVMSubscriptionMaximum":   3 * time.Minute,
		"Microsoft.Compute/GetOperationResource":       3 * time.Minute,
		"Microsoft.Compute/VMScaleSetBatchedVMRequest": 3 * time.Minute,
	} {
		if got := windowOf(name); got != want {
			t.Errorf("windowOf(%s) = %s, want %s", name, got, want)
		}
	}
	if !perResource("Microsoft.Compute/PutVMResource") || perResource("Microsoft.Compute/PutVMSubscriptionMaximum") || perResource("Resource") {
		t.Error("perResource is wrong")
	}
	// An unconfigured counter holds what it showed, refilled over its window.
	c := newCounters(nil)
	r := classify(http.MethodPut, "/subscriptions/"+testSub+"/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm", "")
	if r.class != "PUT microsoft.compute/virtualmachines" || r.subscription != testSub {
		t.Fatalf("classify: %+v", r)
	}
	c.classes[r.class] = &class{known: true, probing: map[string]bool{}, learned: make(chan struct{})}
	h := http.Header{}
	h.Set(headerRemainingResource, "Microsoft.Compute/PutVM3Min;239")
	c.answered(r, nil, &http.Response{StatusCode: http.StatusOK, Header: h})
	b := c.buckets[counterKey{subscription: testSub, name: "microsoft.compute/putvm3min"}]
	if b == nil || b.lim.burst != 240 || b.assumed.PerSecond != 240.0/180 {
		t.Fatalf("learned bucket: %+v", b)
	}
}
