package arm

import (
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// refusingPolls refuses the connection for the first polls of a long-running
// operation, as a restarting server or a load balancer blip does.
type refusingPolls struct {
	next    *http.Client
	refuse  int32
	refused atomic.Int32
}

func (r *refusingPolls) Do(req *http.Request) (*http.Response, error) {
	if strings.Contains(req.URL.Path, "/operations/") && r.refused.Load() < r.refuse {
		r.refused.Add(1)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	return r.next.Do(req)
}

// TestRefusedConnectionWhilePollingIsRetried: once ARM accepted a write, a
// refused connection while following it is transient, retried within the
// retry bounds (issue 12, item 10); past them it fails with the cause.
func TestRefusedConnectionWhilePollingIsRetried(t *testing.T) {
	emu := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: vnetType, Write: 30 * time.Millisecond}}})
	polls := &refusingPolls{next: emu.run.HTTPClient(), refuse: 3}
	c := emu.client(t, func(o *Options) { o.Transport = polls })
	put(t, c, rgID("poll"), rgAPI, map[string]any{"location": "westus2"})
	ctx := testContext(t)
	op, err := c.Put(ctx, vnetID("poll", "vnet"), networkAPI, vnetBody)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Wait(ctx); err != nil {
		t.Fatalf("3 refused polls within 8 attempts: %v", err)
	}
	if polls.refused.Load() != 3 {
		t.Errorf("%d polls refused, want 3", polls.refused.Load())
	}

	polls.refused.Store(0)
	polls.refuse = 100
	op, err = c.Put(ctx, vnetID("poll", "vnet2"), networkAPI, vnetBody)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Wait(ctx)
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "gave up after 8 attempts") {
		t.Fatalf("refused beyond the bounds: %v", err)
	}
	if n := polls.refused.Load(); n != int32(fastRetry.MaxAttempts) {
		t.Errorf("%d polls, want %d", n, fastRetry.MaxAttempts)
	}
}

// TestOperationFailedAtOnceReportsItsError: an operation that has already
// failed when the PUT returns is reported with ARM's code and message, not the
// PUT's "Created" (issue 12, item 10).
func TestOperationFailedAtOnceReportsItsError(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Faults: emulator.Faults{Failures: []emulator.FailureRule{
		{Type: vnetType, Code: "InvalidAddressPrefix", Message: "the prefix overlaps"},
	}}})
	c := emu.client(t, nil)
	put(t, c, rgID("failnow"), rgAPI, map[string]any{"location": "westus2"})
	ctx := testContext(t)
	op, err := c.Put(ctx, vnetID("failnow", "vnet"), networkAPI, vnetBody)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Wait(ctx)
	var re *ResponseError
	if !errors.As(err, &re) || re.StatusCode != 0 || re.Code != "InvalidAddressPrefix" || re.Message != "the prefix overlaps" {
		t.Fatalf("got %v, want the operation's InvalidAddressPrefix: the prefix overlaps", err)
	}
}

// TestPollsFollowRetryAfterAndTheTypesDuration: an operation is polled when
// ARM's Retry-After says, and, where ARM gives none, when its type is
// expected to end, not at a fixed frequency.
func TestPollsFollowRetryAfterAndTheTypesDuration(t *testing.T) {
	const compression = 200
	emu := startEmulator(t, emulator.Options{RecordedTiming: true, TimeCompression: compression})
	c := emu.client(t, func(o *Options) {
		o.PollFrequency = time.Hour // never used: either ARM hints or the type's duration is known
		o.Retry.MaxDelay = time.Minute
		o.OperationDuration = func(method, armType string) time.Duration {
			if method == http.MethodPut && strings.EqualFold(armType, "Microsoft.ContainerService/managedClusters") {
				return 270 * time.Second / compression // the recordings' duration
			}
			return 0
		}
	})
	put(t, c, rgID("paced"), rgAPI, map[string]any{"location": "westus2"})
	for _, tc := range []struct {
		id, apiVersion string
		body           any
		maxPolls       int
	}{
		// ARM answers 202 with Retry-After 17, then 17 again: two polls.
		{rgID("paced") + "/providers/Microsoft.Storage/storageAccounts/sa1", "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}, 2},
		// No Retry-After: the first poll when the type is expected to end.
		{rgID("paced") + "/providers/Microsoft.ContainerService/managedClusters/aks1", "2024-09-01", map[string]any{"location": "westus2"}, 2},
	} {
		before := emu.rec.method(http.MethodGet)
		began := time.Now()
		ctx := testContext(t)
		op, err := c.Put(ctx, tc.id, tc.apiVersion, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		// The result of an Azure-AsyncOperation is one GET of the resource more.
		if polls := emu.rec.method(http.MethodGet) - before; polls > tc.maxPolls+1 {
			t.Errorf("%s: %d GETs in %s, want at most %d polls", tc.id, polls, time.Since(began), tc.maxPolls)
		}
	}
}
