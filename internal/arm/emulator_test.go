package arm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

const (
	testSub     = "00000000-0000-0000-0000-000000000000"
	rgAPI       = "2021-04-01"
	networkAPI  = "2020-11-01"
	vnetType    = "Microsoft.Network/virtualNetworks"
	subnetType  = "Microsoft.Network/virtualNetworks/subnets"
	testTimeout = 20 * time.Second
)

func rgID(name string) string { return "/subscriptions/" + testSub + "/resourceGroups/" + name }

func vnetID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.Network/virtualNetworks/" + name
}

// fastRetry keeps every backoff in the tests in milliseconds.
var fastRetry = RetryOptions{MaxAttempts: 8, Delay: time.Millisecond, MaxDelay: 10 * time.Millisecond}

// recorder counts what went over the wire, between the client and the emulator.
type recorder struct {
	next http.RoundTripper

	mu                 sync.Mutex
	byStatus           map[int]int
	byMethod           map[string]int
	reads, writes      int
	maxReads, maxWrite int
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	write := req.Method != http.MethodGet && req.Method != http.MethodHead
	r.mu.Lock()
	if write {
		r.writes++
		r.maxWrite = max(r.maxWrite, r.writes)
	} else {
		r.reads++
		r.maxReads = max(r.maxReads, r.reads)
	}
	r.byMethod[req.Method]++
	r.mu.Unlock()
	resp, err := r.next.RoundTrip(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if write {
		r.writes--
	} else {
		r.reads--
	}
	if err == nil {
		r.byStatus[resp.StatusCode]++
	}
	return resp, err
}

func (r *recorder) status(code int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byStatus[code]
}

func (r *recorder) method(m string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byMethod[m]
}

type testEmulator struct {
	run *emulator.Running
	rec *recorder
}

// startEmulator serves the real emulator over HTTPS on loopback for one test.
func startEmulator(t testing.TB, opts emulator.Options) *testEmulator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	run, err := emulator.Start(ctx, opts, "127.0.0.1:0", true)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = run.Close()
	})
	return &testEmulator{run: run, rec: &recorder{next: run.HTTPClient().Transport, byStatus: map[int]int{}, byMethod: map[string]int{}}}
}

func (e *testEmulator) client(t testing.TB, mod func(*Options)) *Client {
	t.Helper()
	o := Options{
		Credential:    EmulatorCredential,
		Subscription:  testSub,
		Endpoint:      e.run.URL,
		Transport:     e.rec,
		Retry:         fastRetry,
		PollFrequency: 5 * time.Millisecond,
	}
	if mod != nil {
		mod(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func put(t testing.TB, c *Client, id, apiVersion string, body any) *Response {
	t.Helper()
	ctx := testContext(t)
	op, err := c.Put(ctx, id, apiVersion, body)
	if err != nil {
		t.Fatalf("PUT %s: %v", id, err)
	}
	res, err := op.Wait(ctx)
	if err != nil {
		t.Fatalf("PUT %s: %v", id, err)
	}
	return res
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	return m
}

func provisioningState(t *testing.T, raw json.RawMessage) string {
	props, _ := decode(t, raw)["properties"].(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}

var vnetBody = map[string]any{
	"location":   "westus2",
	"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}},
}

func TestLifecycleWithLongRunningOperations(t *testing.T) {
	emu := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: vnetType, Write: 30 * time.Millisecond, Delete: 30 * time.Millisecond}}})
	c := emu.client(t, nil)
	ctx := testContext(t)

	rg := put(t, c, rgID("rg1"), rgAPI, map[string]any{"location": "westus2"})
	if rg.StatusCode != http.StatusCreated {
		t.Errorf("resource group PUT status = %d, want 201", rg.StatusCode)
	}

	created := put(t, c, vnetID("rg1", "vnet1"), networkAPI, vnetBody)
	if created.StatusCode != http.StatusCreated || provisioningState(t, created.Body) != "Succeeded" {
		t.Errorf("vnet PUT = %d %s, want 201 with provisioningState Succeeded", created.StatusCode, created.Body)
	}
	if emu.rec.method(http.MethodGet) == 0 {
		t.Error("the long-running PUT was never polled")
	}
	if created.CorrelationID == "" {
		t.Error("no correlation ID on the PUT response")
	}

	got, err := c.Get(ctx, vnetID("rg1", "vnet1"), networkAPI)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag == "" {
		t.Error("GET exposes no ETag")
	}
	if id, _ := decode(t, got.Body)["id"].(string); !strings.EqualFold(id, vnetID("rg1", "vnet1")) {
		t.Errorf("GET id = %q", id)
	}

	op, err := c.Patch(ctx, vnetID("rg1", "vnet1"), networkAPI, map[string]any{"tags": map[string]string{"env": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	patched, err := op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tags, _ := decode(t, patched.Body)["tags"].(map[string]any); tags["env"] != "test" {
		t.Errorf("PATCH result tags = %v", tags)
	}
	again, err := c.Get(ctx, vnetID("rg1", "vnet1"), networkAPI)
	if err != nil {
		t.Fatal(err)
	}
	if again.ETag == got.ETag {
		t.Errorf("ETag %q did not change after PATCH", got.ETag)
	}

	del, err := c.Delete(ctx, vnetID("rg1", "vnet1"), networkAPI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := del.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, vnetID("rg1", "vnet1"), networkAPI)
	var re *ResponseError
	if !IsNotFound(err) || !errors.As(err, &re) || re.Code != "ResourceNotFound" || re.CorrelationID == "" {
		t.Fatalf("GET after delete: %v, want 404 ResourceNotFound with a correlation ID", err)
	}
	if !strings.Contains(err.Error(), "GET "+vnetID("rg1", "vnet1")) {
		t.Errorf("error does not say what was asked: %v", err)
	}
}

func TestThrottlingStormIsRiddenThrough(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Seed: 7, Faults: emulator.Faults{
		ThrottleRate: 0.4,
		WriteLimit:   emulator.RateLimit{Burst: 3, PerSecond: 200},
		ReadLimit:    emulator.RateLimit{Burst: 5, PerSecond: 400},
	}})
	// The client knows the buckets' refill rates (they are the emulator's),
	// so the storm of random 429s is what slows it down.
	c := emu.client(t, func(o *Options) {
		o.RateLimits = RateLimits{Reads: RateLimit{Burst: 5, PerSecond: 400}, Writes: RateLimit{Burst: 3, PerSecond: 200}, Deletes: DefaultRateLimits.Deletes}
	})
	put(t, c, rgID("storm"), rgAPI, map[string]any{"location": "westus2"})

	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := testContext(t)
			id := vnetID("storm", fmt.Sprintf("vnet%d", i))
			op, err := c.Put(ctx, id, networkAPI, vnetBody)
			if err == nil {
				_, err = op.Wait(ctx)
			}
			if err == nil {
				_, err = c.Get(ctx, id, networkAPI)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := emu.rec.status(http.StatusTooManyRequests); n < 5 {
		t.Errorf("only %d responses were 429: the storm did not happen", n)
	}
	items, err := c.List(testContext(t), rgID("storm")+"/resources", rgAPI)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 20 {
		t.Errorf("%d resources listed, want 20", len(items))
	}
}

func TestServerErrorBurstsAreRetried(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Seed: 3, Faults: emulator.Faults{TransientRate: 0.5}})
	c := emu.client(t, func(o *Options) { o.Retry.MaxAttempts = 20 })
	put(t, c, rgID("burst"), rgAPI, map[string]any{"location": "westus2"})
	for i := range 20 {
		put(t, c, vnetID("burst", fmt.Sprintf("v%d", i)), networkAPI, vnetBody)
	}
	if emu.rec.status(500)+emu.rec.status(503) < 5 {
		t.Errorf("500: %d, 503: %d: the burst did not happen", emu.rec.status(500), emu.rec.status(503))
	}

	// With one attempt the same kind of failure surfaces, typed.
	emu.run.Server.SetFaults(emulator.Faults{TransientRate: 1})
	one := emu.client(t, func(o *Options) { o.Retry.MaxAttempts = 1 })
	before := emu.rec.method(http.MethodGet)
	_, err := one.Get(testContext(t), rgID("burst"), rgAPI)
	var re *ResponseError
	if !errors.As(err, &re) || (re.StatusCode != 500 && re.StatusCode != 503) || re.Code == "" {
		t.Fatalf("got %v, want a typed 500 or 503", err)
	}
	if n := emu.rec.method(http.MethodGet) - before; n != 1 {
		t.Errorf("one attempt allowed, %d sent", n)
	}
}

func TestAnotherOperationInProgressIsRetried(t *testing.T) {
	emu := startEmulator(t, emulator.Options{
		LRO:    []emulator.LRORule{{Type: subnetType, Write: 40 * time.Millisecond}},
		Faults: emulator.Faults{ConflictTypes: []string{subnetType}},
	})
	// Siblings take 40ms each: the backoff must be able to outlast a few of them.
	c := emu.client(t, func(o *Options) {
		o.Retry = RetryOptions{MaxAttempts: 12, Delay: 5 * time.Millisecond, MaxDelay: 40 * time.Millisecond}
	})
	put(t, c, rgID("net"), rgAPI, map[string]any{"location": "westus2"})
	put(t, c, vnetID("net", "vnet"), networkAPI, vnetBody)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := testContext(t)
			op, err := c.Put(ctx, vnetID("net", "vnet")+fmt.Sprintf("/subnets/s%d", i), networkAPI,
				map[string]any{"properties": map[string]any{"addressPrefix": fmt.Sprintf("10.0.%d.0/24", i)}})
			if err == nil {
				_, err = op.Wait(ctx)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if emu.rec.status(http.StatusConflict) == 0 {
		t.Error("no 409 was answered: the subnets never overlapped")
	}

	// Without retries, the conflict is reported as ARM said it.
	slow := emu.client(t, func(o *Options) { o.Retry.MaxAttempts = 1 })
	ctx := testContext(t)
	first, err := slow.Put(ctx, vnetID("net", "vnet")+"/subnets/a", networkAPI, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.10.0/24"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = slow.Put(ctx, vnetID("net", "vnet")+"/subnets/b", networkAPI, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.11.0/24"}})
	var re *ResponseError
	if !errors.As(err, &re) || re.Code != CodeAnotherOperationInProgress || re.StatusCode != http.StatusConflict {
		t.Fatalf("got %v, want 409 AnotherOperationInProgress", err)
	}
	if _, err := first.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReplicationLagOnlyAfterOwnCreate(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Faults: emulator.Faults{ReplicationLag: 60 * time.Millisecond}})

	// azk created the group: the 404s that follow are replication lag.
	c := emu.client(t, func(o *Options) {
		o.Retry = RetryOptions{MaxAttempts: 10, Delay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond}
	})
	put(t, c, rgID("fresh"), rgAPI, map[string]any{"location": "westus2"})
	put(t, c, vnetID("fresh", "vnet"), networkAPI, vnetBody)
	if emu.rec.status(http.StatusNotFound) == 0 {
		t.Fatal("the emulator answered no 404: no lag was ridden through")
	}

	// Someone else created it: the same 404 fails fast.
	other := emu.client(t, nil)
	put(t, other, rgID("theirs"), rgAPI, map[string]any{"location": "westus2"})
	before := emu.rec.method(http.MethodPut)
	_, err := c.Put(testContext(t), vnetID("theirs", "vnet"), networkAPI, vnetBody)
	var re *ResponseError
	if !errors.As(err, &re) || re.Code != CodeResourceGroupNotFound {
		t.Fatalf("got %v, want ResourceGroupNotFound", err)
	}
	if n := emu.rec.method(http.MethodPut) - before; n != 1 {
		t.Errorf("sent %d PUTs, want 1: a group azk did not create must fail fast", n)
	}
}

func TestFailedOperationIsTyped(t *testing.T) {
	emu := startEmulator(t, emulator.Options{Faults: emulator.Faults{Failures: []emulator.FailureRule{
		{Type: vnetType, After: 20 * time.Millisecond, Code: "InvalidAddressPrefix", Message: "the prefix overlaps"},
		{Type: "Microsoft.Storage/storageAccounts", After: 5 * time.Millisecond, Code: CodeRetryableError, Message: "try again"},
	}}})
	c := emu.client(t, func(o *Options) { o.Retry.MaxAttempts = 3 })
	put(t, c, rgID("fail"), rgAPI, map[string]any{"location": "westus2"})
	ctx := testContext(t)

	before := emu.rec.method(http.MethodPut)
	op, err := c.Put(ctx, vnetID("fail", "vnet"), networkAPI, vnetBody)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Wait(ctx)
	var re *ResponseError
	if !errors.As(err, &re) || re.StatusCode != 0 || re.Code != "InvalidAddressPrefix" || re.Message != "the prefix overlaps" {
		t.Fatalf("got %#v, want the operation's InvalidAddressPrefix", err)
	}
	if want := "PUT " + vnetID("fail", "vnet") + ": operation failed InvalidAddressPrefix: the prefix overlaps"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if n := emu.rec.method(http.MethodPut) - before; n != 1 {
		t.Errorf("a failed operation was sent %d times, want 1 (fail fast)", n)
	}

	// RetryableError restarts the operation, within the attempts allowed.
	before = emu.rec.method(http.MethodPut)
	sa := rgID("fail") + "/providers/Microsoft.Storage/storageAccounts/sa1"
	op, err = c.Put(ctx, sa, "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]string{"name": "Standard_LRS"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Wait(ctx)
	if !errors.As(err, &re) || re.Code != CodeRetryableError || re.Attempts != 3 {
		t.Fatalf("got %v, want RetryableError after 3 attempts", err)
	}
	if n := emu.rec.method(http.MethodPut) - before; n != 3 {
		t.Errorf("sent %d PUTs, want 3", n)
	}
}

func TestListFollowsNextLink(t *testing.T) {
	emu := startEmulator(t, emulator.Options{PageSize: 3})
	c := emu.client(t, nil)
	put(t, c, rgID("pages"), rgAPI, map[string]any{"location": "westus2"})
	want := map[string]bool{}
	for i := range 11 {
		id := vnetID("pages", fmt.Sprintf("v%02d", i))
		put(t, c, id, networkAPI, vnetBody)
		want[strings.ToLower(id)] = true
	}
	before := emu.rec.method(http.MethodGet)
	items, err := c.List(testContext(t), rgID("pages")+"/providers/Microsoft.Network/virtualNetworks", networkAPI)
	if err != nil {
		t.Fatal(err)
	}
	if pages := emu.rec.method(http.MethodGet) - before; pages != 4 {
		t.Errorf("read %d pages, want 4 of at most 3 items", pages)
	}
	for _, raw := range items {
		id, _ := decode(t, raw)["id"].(string)
		if !want[strings.ToLower(id)] {
			t.Errorf("unexpected or repeated item %s", id)
		}
		delete(want, strings.ToLower(id))
	}
	if len(want) > 0 {
		t.Errorf("missing from the list: %v", want)
	}
}

func TestCancelStopsPollingAndSaysWhatWasInFlight(t *testing.T) {
	emu := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: vnetType, Write: time.Hour}}})
	c := emu.client(t, nil)
	put(t, c, rgID("cancel"), rgAPI, map[string]any{"location": "westus2"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	op, err := c.Put(ctx, vnetID("cancel", "vnet"), networkAPI, vnetBody)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = op.Wait(ctx)
	stoppedAfter := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if stoppedAfter > 2*time.Second {
		t.Errorf("Wait returned %s after cancel", stoppedAfter)
	}
	for _, want := range []string{"PUT " + vnetID("cancel", "vnet"), "may still be running", "last status", "operation https://", "correlation ID"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "?") {
		t.Errorf("error %q shows the operation URL's query (signatures)", err)
	}
	polls := emu.rec.method(http.MethodGet)
	time.Sleep(50 * time.Millisecond)
	if emu.rec.method(http.MethodGet) != polls {
		t.Error("polling went on after cancel")
	}
}

func TestReadsAreNotStalledByThrottledWrites(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	const n = 2
	c := emu.client(t, func(o *Options) {
		o.Parallelism = n
		o.Retry = RetryOptions{MaxAttempts: 8, Delay: 40 * time.Millisecond, MaxDelay: 40 * time.Millisecond}
	})
	put(t, c, rgID("lim"), rgAPI, map[string]any{"location": "westus2"})
	// Writes now find an empty bucket that never refills: each waits out every retry.
	emu.run.Server.SetFaults(emulator.Faults{WriteLimit: emulator.RateLimit{Burst: 1}})
	put(t, c, vnetID("lim", "first"), networkAPI, vnetBody)

	var writesDone atomic.Int32
	var wg sync.WaitGroup
	writes, stopWrites := context.WithCancel(testContext(t))
	errs := make(chan error, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writesDone.Add(1)
			_, err := c.Put(writes, vnetID("lim", fmt.Sprintf("w%d", i)), networkAPI, vnetBody)
			errs <- err
		}()
	}
	time.Sleep(20 * time.Millisecond)
	for range 10 {
		if _, err := c.Get(testContext(t), rgID("lim"), rgAPI); err != nil {
			t.Fatal(err)
		}
	}
	if writesDone.Load() != 0 {
		t.Fatal("writes finished before the reads: the test proves nothing")
	}
	if st := c.Budget().Writes; st.Queued+st.Throttled+st.InFlight == 0 {
		t.Errorf("the writes neither waited for the budget nor were throttled: %+v", st)
	}
	// Throttling is never a failure: the writes wait for the bucket until
	// they are cancelled.
	stopWrites()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a throttled write ended with %v, want it waiting until cancelled", err)
		}
	}
	emu.rec.mu.Lock()
	defer emu.rec.mu.Unlock()
	if emu.rec.maxWrite > n || emu.rec.maxReads > n {
		t.Errorf("in flight at once: %d writes, %d reads; limit %d each", emu.rec.maxWrite, emu.rec.maxReads, n)
	}
}

func TestRoleDefinitionLookupIsCaseInsensitiveAndCached(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, nil)
	ctx := testContext(t)
	id, err := c.RoleDefinitionID(ctx, "storage blob data reader")
	if err != nil {
		t.Fatal(err)
	}
	if want := "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"; !strings.EqualFold(id, want) {
		t.Errorf("got %s, want %s", id, want)
	}
	gets := emu.rec.method(http.MethodGet)
	again, err := c.RoleDefinitionID(ctx, "Storage Blob Data Reader")
	if err != nil || again != id {
		t.Fatalf("second lookup: %s, %v", again, err)
	}
	if emu.rec.method(http.MethodGet) != gets {
		t.Error("the second lookup was not served from the cache")
	}
	if _, err := c.RoleDefinitionID(ctx, "No Such Role"); err == nil || !strings.Contains(err.Error(), `no built-in role named "No Such Role"`) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestForSecretActsInTheSecretsSubscription(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, nil)
	const otherSub = "11111111-1111-1111-1111-111111111111"
	sc, err := c.ForSecret("team-a-creds", map[string]string{
		SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c", SecretClientSecret: "hunter2",
	})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Subscription() != otherSub {
		t.Fatalf("subscription %s", sc.Subscription())
	}
	id := "/subscriptions/" + otherSub + "/resourceGroups/teamA"
	put(t, sc, id, rgAPI, map[string]any{"location": "westus2"})
	if _, err := c.Get(testContext(t), id, rgAPI); err != nil {
		t.Fatal(err)
	}
	// The clients share one limiter and one record of what azk created.
	if sc.shared != c.shared {
		t.Error("ForSecret client does not share state with its parent")
	}
}

func TestDebugLogRedactsTheToken(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	var buf syncBuffer
	LogRequestsTo(&buf)
	defer LogRequestsTo(nil)
	c := emu.client(t, nil)
	put(t, c, rgID("dbg"), rgAPI, map[string]any{"location": "westus2", "tags": map[string]string{"secret": "s3cr3t-value"}})
	res, err := c.Get(testContext(t), rgID("dbg"), rgAPI)
	if err != nil {
		t.Fatal(err)
	}
	log := buf.String()
	for _, want := range []string{"GET " + emu.run.URL + rgID("dbg") + "?api-version=" + rgAPI, "RESPONSE Status: 200", "Authorization: REDACTED", res.CorrelationID, "Try=1/"} {
		if !strings.Contains(log, want) {
			t.Errorf("debug log lacks %q:\n%s", want, log)
		}
	}
	for _, secret := range []string{"azk-emulator", "s3cr3t-value"} {
		if strings.Contains(log, secret) {
			t.Errorf("debug log shows %q", secret)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestNotFoundUnderANewParentIsNotRetried(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, nil)
	put(t, c, rgID("new"), rgAPI, map[string]any{"location": "westus2"})
	before := emu.rec.method(http.MethodGet)
	_, err := c.Get(testContext(t), vnetID("new", "not-yet"), networkAPI)
	if !IsNotFound(err) {
		t.Fatalf("got %v, want 404", err)
	}
	if n := emu.rec.method(http.MethodGet) - before; n != 1 {
		t.Errorf("a child that does not exist yet was read %d times, want 1", n)
	}
}

// countingCredential counts the tokens asked of it.
type countingCredential struct{ n atomic.Int32 }

func (c *countingCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.n.Add(1)
	return azcore.AccessToken{Token: "t", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

func TestRouteSendsAResourcesRequestsThroughItsClient(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	var main, routed countingCredential
	c := emu.client(t, func(o *Options) { o.Credential = &main })
	other := emu.client(t, func(o *Options) { o.Credential = &routed })
	own := rgID("routed")
	c.Route(own, other)
	put(t, c, strings.ToUpper(own[:14])+own[14:], rgAPI, map[string]any{"location": "westus2"})
	if _, err := c.Get(testContext(t), own, rgAPI); err != nil {
		t.Fatal(err)
	}
	if main.n.Load() != 0 || routed.n.Load() == 0 {
		t.Fatalf("routed resource used the main identity: main %d, routed %d tokens", main.n.Load(), routed.n.Load())
	}
	put(t, c, rgID("unrouted"), rgAPI, map[string]any{"location": "westus2"})
	if main.n.Load() == 0 {
		t.Error("other resources must use the main identity")
	}
	if c.For(own) != other || c.For(rgID("unrouted")) != c {
		t.Error("For does not name the routed client")
	}
	// A collection under the routed resource is listed by its client.
	mainReads, routedReads := c.Budget().Reads.Answered, other.Budget().Reads.Answered
	if _, err := c.List(testContext(t), own+"/providers/Microsoft.Network/virtualNetworks", networkAPI); err != nil {
		t.Fatal(err)
	}
	if c.Budget().Reads.Answered != mainReads || other.Budget().Reads.Answered != routedReads+1 {
		t.Error("a collection under the routed resource was not listed by its client")
	}
}

func TestUntrustedCertificateFailsAtOnce(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	tries := &countingTransport{next: &http.Client{}} // system roots do not trust the emulator's certificate
	c := emu.client(t, func(o *Options) {
		o.Transport = tries
		o.Retry = RetryOptions{MaxAttempts: 6, Delay: time.Millisecond, MaxDelay: time.Millisecond}
	})
	_, err := c.Get(testContext(t), rgID("tls"), rgAPI)
	if err == nil || !strings.Contains(err.Error(), "AZK_ENDPOINT_CERT_SHA256") {
		t.Fatalf("want a certificate error naming the pin, got %v", err)
	}
	if n := tries.n.Load(); n != 1 {
		t.Errorf("%d tries: a certificate error must not be retried", n)
	}
}

// countingTransport counts the requests sent through it.
type countingTransport struct {
	next *http.Client
	n    atomic.Int32
}

func (c *countingTransport) Do(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.Do(req)
}

func TestRefusedConnectionFailsAtOnce(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	tries := &countingTransport{next: emu.run.HTTPClient()}
	c := emu.client(t, func(o *Options) {
		o.Endpoint = "https://127.0.0.1:1" // nothing listens on port 1
		o.Transport = tries
		o.Retry = RetryOptions{MaxAttempts: 6, Delay: time.Millisecond, MaxDelay: time.Millisecond}
	})
	_, err := c.Get(testContext(t), rgID("refused"), rgAPI)
	if err == nil || !strings.Contains(err.Error(), "is the endpoint (or azk emulator) running?") {
		t.Fatalf("want a refused-connection error with a hint, got %v", err)
	}
	if n := tries.n.Load(); n != 1 {
		t.Errorf("%d tries: a refused connection must not be retried", n)
	}
}
