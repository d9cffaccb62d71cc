package emulator

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

func TestFaultLatency(t *testing.T) {
	c := start(t, Options{Faults: Faults{Latency: 150 * time.Millisecond}}, false)
	began := time.Now()
	resp, body := c.do(http.MethodGet, "/providers/Microsoft.Authorization/roleDefinitions?api-version=2022-04-01", nil)
	mustStatus(t, resp, body, http.StatusOK)
	if d := time.Since(began); d < 150*time.Millisecond {
		t.Fatalf("answered in %v despite 150ms latency", d)
	}
}

func TestFaultTokenBucketsSeparateReadsAndWrites(t *testing.T) {
	c := start(t, Options{Faults: Faults{WriteLimit: RateLimit{Burst: 2, PerSecond: 0.5}, ReadLimit: RateLimit{Burst: 100, PerSecond: 10}}}, false)
	for i := 0; i < 2; i++ {
		resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
		if resp.StatusCode >= 300 {
			t.Fatalf("write %d: %d %v", i, resp.StatusCode, body)
		}
	}
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusTooManyRequests)
	if errorCode(body) != "SubscriptionRequestsThrottled" || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("throttled write: %v %v", resp.Header, body)
	}
	resp, body = c.do(http.MethodGet, rgID+rgAPI, nil)
	mustStatus(t, resp, body, http.StatusOK)
	if resp.Header.Get("x-ms-ratelimit-remaining-subscription-reads") != "99" {
		t.Fatalf("read bucket header: %v", resp.Header)
	}
}

// outcomes sends the same requests to a fresh emulator and records the statuses.
func outcomes(t *testing.T, seed int64, f Faults) string {
	c := start(t, Options{Seed: seed, Faults: f}, false)
	var out []string
	for i := 0; i < 40; i++ {
		resp, _ := c.do(http.MethodGet, "/providers/Microsoft.Authorization/roleDefinitions?api-version=2022-04-01", nil)
		out = append(out, http.StatusText(resp.StatusCode))
	}
	return strings.Join(out, ",")
}

func TestFaultRatesAreDeterministicUnderSeed(t *testing.T) {
	for name, f := range map[string]Faults{"throttle": {ThrottleRate: 0.3}, "transient": {TransientRate: 0.3}} {
		a, b, other := outcomes(t, 7, f), outcomes(t, 7, f), outcomes(t, 8, f)
		if a != b {
			t.Errorf("%s: same seed, different faults:\n%s\n%s", name, a, b)
		}
		if a == other {
			t.Errorf("%s: seeds 7 and 8 gave identical faults", name)
		}
		n := strings.Count(a, "OK")
		if n == 40 || n == 0 {
			t.Errorf("%s at rate 0.3: %d of 40 succeeded", name, n)
		}
	}
	transient := outcomes(t, 7, Faults{TransientRate: 0.5})
	if !strings.Contains(transient, "Internal Server Error") || !strings.Contains(transient, "Service Unavailable") {
		t.Errorf("transient faults should mix 500 and 503: %s", transient)
	}
}

func TestAzcoreRetriesThroughTransientFaults(t *testing.T) {
	c := start(t, Options{Seed: 1, Faults: Faults{TransientRate: 0.5}}, true)
	for i := 0; i < 4; i++ {
		resp, body := c.do(http.MethodPut, rgID+"?api-version=2020-06-01", map[string]any{"location": "westus2"})
		if resp.StatusCode >= 300 {
			t.Fatalf("PUT %d after retries: %d %v", i, resp.StatusCode, body)
		}
	}
}

func TestFaultAnotherOperationInProgress(t *testing.T) {
	c := start(t, Options{
		LRO:    []LRORule{{Type: "Microsoft.Network/virtualNetworks/subnets", Write: 500 * time.Millisecond}},
		Faults: Faults{ConflictTypes: []string{"Microsoft.Network/virtualNetworks/subnets"}},
	}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(vnetID, map[string]any{"location": "westus2"})
	first := c.send(http.MethodPut, vnetID+"/subnets/a"+api, map[string]any{})
	if first.StatusCode != http.StatusCreated {
		t.Fatalf("first subnet: %d", first.StatusCode)
	}
	resp, body := c.do(http.MethodPut, vnetID+"/subnets/b"+api, map[string]any{})
	mustStatus(t, resp, body, http.StatusConflict)
	if errorCode(body) != "AnotherOperationInProgress" {
		t.Fatalf("overlapping subnet write: %v", body)
	}
	if _, err := c.pollUntilDone(first); err != nil {
		t.Fatal(err)
	}
	c.mustPut(vnetID+"/subnets/b", map[string]any{})
}

func TestFaultReplicationLag(t *testing.T) {
	c := start(t, Options{Faults: Faults{ReplicationLag: 400 * time.Millisecond}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	resp, body := c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusNotFound)
	if errorCode(body) != "ResourceGroupNotFound" {
		t.Fatalf("PUT during replication lag: %v", body)
	}
	time.Sleep(400 * time.Millisecond)
	c.mustPut(vnetID, map[string]any{"location": "westus2"})
}

func TestFaultOperationFailsAfterDelay(t *testing.T) {
	c := start(t, Options{Faults: Faults{Failures: []FailureRule{{Type: "Microsoft.Network/*", After: 200 * time.Millisecond, Code: "QuotaExceeded", Message: "no quota"}}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	began := time.Now()
	resp := c.send(http.MethodPut, vnetID+api, map[string]any{"location": "westus2"})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d", resp.StatusCode)
	}
	op := resp.Header.Get("Azure-AsyncOperation")
	_, err := c.pollUntilDone(resp)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "QuotaExceeded" {
		t.Fatalf("poller error = %v, want QuotaExceeded", err)
	}
	if time.Since(began) < 200*time.Millisecond {
		t.Fatal("operation failed before its delay")
	}
	r2, status := c.do(http.MethodGet, op, nil)
	mustStatus(t, r2, status, http.StatusOK)
	if status["status"] != "Failed" || errorCode(status) != "QuotaExceeded" {
		t.Fatalf("operation status: %v", status)
	}
	r2, got := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, r2, got, http.StatusOK)
	if provisioningState(got) != "Failed" {
		t.Fatalf("resource after failed operation: %v", got)
	}
}

func TestFaultDrift(t *testing.T) {
	c := start(t, Options{Faults: Faults{Drifts: []DriftRule{{Type: "Microsoft.Network/virtualNetworks", After: 100 * time.Millisecond,
		Patch: mustJSON(t, map[string]any{"tags": map[string]any{"changedIn": "portal"}})}}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	// The PUT's own answer, not a poll that may come after the drift.
	resp, v := c.do(http.MethodPut, vnetID+api, map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev"}})
	mustStatus(t, resp, v, http.StatusCreated)
	time.Sleep(300 * time.Millisecond)
	resp, got := c.do(http.MethodGet, vnetID+api, nil)
	mustStatus(t, resp, got, http.StatusOK)
	tags := got["tags"].(map[string]any)
	if tags["changedIn"] != "portal" || tags["env"] != "dev" || got["etag"] == v["etag"] {
		t.Fatalf("after drift: %v", got)
	}

	admin := c.run.AdminClient()
	if err := admin.Drift(context.Background(), vnetID, map[string]any{"properties": map[string]any{"dhcpOptions": map[string]any{"dnsServers": []string{"1.1.1.1"}}}}); err != nil {
		t.Fatal(err)
	}
	_, got = c.do(http.MethodGet, vnetID+api, nil)
	if got["properties"].(map[string]any)["dhcpOptions"] == nil || provisioningState(got) != "Succeeded" {
		t.Fatalf("after admin drift: %v", got)
	}
	if err := admin.Drift(context.Background(), rgID+"/providers/Microsoft.Network/virtualNetworks/none", map[string]any{}); err == nil {
		t.Fatal("drift of a missing resource succeeded")
	}
}

func TestAdminFaultsRoundTrip(t *testing.T) {
	c := start(t, Options{}, false)
	admin := c.run.AdminClient()
	want := Faults{ThrottleRate: 1, ConflictTypes: []string{"x/*"}, WriteLimit: RateLimit{Burst: 3, PerSecond: 1}}
	if err := admin.SetFaults(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	got, err := admin.Faults(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.ThrottleRate != 1 || got.WriteLimit != want.WriteLimit || got.ConflictTypes[0] != "x/*" {
		t.Fatalf("faults round trip: %+v", got)
	}
	resp, body := c.do(http.MethodGet, rgID+rgAPI, nil)
	mustStatus(t, resp, body, http.StatusTooManyRequests)
	if err := admin.SetFaults(context.Background(), Faults{}); err != nil {
		t.Fatal(err)
	}
	resp, body = c.do(http.MethodGet, rgID+rgAPI, nil)
	mustStatus(t, resp, body, http.StatusNotFound)
}
