package emulator

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestARMLimitsCountEveryAnswer: with ARM's buckets every answer carries the
// remaining count of its kind, the subscription's and the global one, errors
// included.
func TestARMLimitsCountEveryAnswer(t *testing.T) {
	c := start(t, Options{Faults: Faults{}.WithARMLimits(1)}, false)
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
	if got := resp.Header.Get("x-ms-ratelimit-remaining-subscription-writes"); got != "199" {
		t.Errorf("writes left after one: %q", got)
	}
	if got := resp.Header.Get("x-ms-ratelimit-remaining-subscription-global-writes"); got != "2999" {
		t.Errorf("global writes left after one: %q", got)
	}
	resp, body = c.do(http.MethodGet, rgID+"/providers/Microsoft.Network/virtualNetworks/none"+api, nil)
	mustStatus(t, resp, body, http.StatusNotFound)
	if got := resp.Header.Get("x-ms-ratelimit-remaining-subscription-reads"); got != "249" {
		t.Errorf("reads left on a 404: %q", got)
	}
	resp, body = c.do(http.MethodDelete, rgID+rgAPI, nil)
	if resp.StatusCode >= 300 {
		t.Fatalf("delete: %d %v", resp.StatusCode, body)
	}
	if resp.Header.Get("x-ms-ratelimit-remaining-subscription-deletes") != "199" || resp.Header.Get("x-ms-ratelimit-remaining-subscription-writes") != "" {
		t.Errorf("a delete counts as a delete only: %v", resp.Header)
	}
}

// TestDeletesHaveTheirOwnBucket: an empty delete bucket throttles deletes,
// not writes, with a Retry-After; a time-compressed emulator says it in
// milliseconds too.
func TestDeletesHaveTheirOwnBucket(t *testing.T) {
	c := start(t, Options{TimeCompression: 10, Faults: Faults{DeleteLimit: RateLimit{Burst: 1, PerSecond: 0.5}}}, false)
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
	resp, body = c.do(http.MethodDelete, rgID+rgAPI, nil)
	if resp.StatusCode >= 300 {
		t.Fatalf("first delete: %d %v", resp.StatusCode, body)
	}
	resp, body = c.do(http.MethodDelete, rgID+rgAPI, nil)
	mustStatus(t, resp, body, http.StatusTooManyRequests)
	ms, err := strconv.Atoi(resp.Header.Get("retry-after-ms"))
	if resp.Header.Get("Retry-After") != "2" || err != nil || ms < 1900 || ms > 2000 {
		t.Errorf("throttled delete: Retry-After %q, retry-after-ms %q", resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"))
	}
	resp, body = c.do(http.MethodPut, sub+"/resourceGroups/rg2"+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
}

// TestRecordedTiming: operations last as the recordings show, time
// compressed, and their answers hint as ARM did: a storage account's 202
// asks for 17 s and its first poll for 17 s more; a managed cluster's
// answers give no Retry-After at all.
func TestRecordedTiming(t *testing.T) {
	const compression = 100
	c := start(t, Options{RecordedTiming: true, TimeCompression: compression}, false)
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)

	sa := rgID + "/providers/Microsoft.Storage/storageAccounts/sa1?api-version=2023-01-01"
	began := time.Now()
	resp, body = c.do(http.MethodPut, sa, map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	mustStatus(t, resp, body, http.StatusAccepted)
	loc := resp.Header.Get("Location")
	if resp.Header.Get("Retry-After") != "1" || resp.Header.Get("retry-after-ms") != "170" {
		t.Errorf("storage account create: Retry-After %q, retry-after-ms %q; want 17 s compressed", resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"))
	}
	time.Sleep(170*time.Millisecond - time.Since(began) + 5*time.Millisecond)
	resp, _ = c.do(http.MethodGet, loc[len(c.base):], nil)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("retry-after-ms") != "170" {
		t.Errorf("first poll: %d, retry-after-ms %q", resp.StatusCode, resp.Header.Get("retry-after-ms"))
	}
	time.Sleep(340*time.Millisecond - time.Since(began) + 5*time.Millisecond)
	resp, _ = c.do(http.MethodGet, loc[len(c.base):], nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("poll after 34 s (compressed): %d", resp.StatusCode)
	}

	aks := rgID + "/providers/Microsoft.ContainerService/managedClusters/aks1?api-version=2024-09-01"
	resp, body = c.do(http.MethodPut, aks, map[string]any{"location": "westus2"})
	if resp.StatusCode >= 300 || resp.Header.Get("Azure-AsyncOperation") == "" {
		t.Fatalf("cluster create: %d %v %v", resp.StatusCode, resp.Header, body)
	}
	if resp.Header.Get("Retry-After") != "" {
		t.Errorf("cluster create hints %q; ARM gave none", resp.Header.Get("Retry-After"))
	}
	op := resp.Header.Get("Azure-AsyncOperation")[len(c.base):]
	resp, body = c.do(http.MethodGet, op, nil)
	if body["status"] != "InProgress" || resp.Header.Get("Retry-After") != "" {
		t.Errorf("cluster poll: %v, Retry-After %q", body, resp.Header.Get("Retry-After"))
	}
}
