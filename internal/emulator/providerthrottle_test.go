package emulator

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

const storageBody = `{"location":"westus2","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`

// TestProviderCountersOnEveryAnswer: with the documented provider limits,
// every answer to a request a counter covers names the counters with what
// is left, as Compute does; a VM's own counters are kept per VM, the
// subscription's across them; requests no counter covers carry nothing.
func TestProviderCountersOnEveryAnswer(t *testing.T) {
	c := start(t, Options{Faults: Faults{}.WithProviderLimits(1)}, false)
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
	if got := resp.Header.Get("x-ms-ratelimit-remaining-resource"); got != "" {
		t.Errorf("a resource group's answer names provider counters: %q", got)
	}
	sa := rgID + "/providers/Microsoft.Storage/storageAccounts/sa1?api-version=2023-01-01"
	for _, step := range []struct {
		method, path, body, want string
	}{
		{http.MethodPut, sa, storageBody, "Microsoft.Storage/StorageAccountWrites1Sec;9,Microsoft.Storage/StorageAccountWrites1Hour;1199"},
		{http.MethodGet, sa, "", "Microsoft.Storage/StorageAccountReads5Min;799"},
		{http.MethodGet, rgID + "/providers/Microsoft.Storage/storageAccounts?api-version=2023-01-01", "", "Microsoft.Storage/StorageAccountLists5Min;99"},
		// Another subscription has its own counters.
		{http.MethodPut, "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg1?api-version=2021-04-01", `{"location":"westus2"}`, ""},
		{http.MethodPut, "/subscriptions/00000000-0000-0000-0000-000000000002/resourceGroups/rg1/providers/Microsoft.Storage/storageAccounts/sa1?api-version=2023-01-01", storageBody,
			"Microsoft.Storage/StorageAccountWrites1Sec;9,Microsoft.Storage/StorageAccountWrites1Hour;1199"},
		{http.MethodPut, rgID + "/providers/Microsoft.Compute/virtualMachines/vm1?api-version=2024-11-01", `{"location":"westus2"}`,
			"Microsoft.Compute/PutVMSubscriptionMaximum;1499,Microsoft.Compute/PutVMResource;11"},
		{http.MethodPut, rgID + "/providers/Microsoft.Compute/virtualMachines/vm1?api-version=2024-11-01", `{"location":"westus2"}`,
			"Microsoft.Compute/PutVMSubscriptionMaximum;1499,Microsoft.Compute/PutVMResource;10"},
		{http.MethodGet, rgID + "/providers/Microsoft.Compute/virtualMachines/vm2?api-version=2024-11-01", "",
			"Microsoft.Compute/LowCostGetSubscriptionMaximum;23999,Microsoft.Compute/LowCostGetResource;35"},
	} {
		var b any
		if step.body != "" {
			b = step.body
		}
		resp, _ := c.do(step.method, step.path, b)
		if got := resp.Header.Get("x-ms-ratelimit-remaining-resource"); got != step.want && !(step.method == http.MethodPut && strings.Contains(step.path, "vm1") && sameCounters(got, step.want)) {
			t.Errorf("%s %s: x-ms-ratelimit-remaining-resource %q, want %q", step.method, step.path, got, step.want)
		}
	}
}

// sameCounters compares the per-VM count of two headers, the
// subscription's count having refilled (8 a second) between the requests.
func sameCounters(got, want string) bool {
	g, w := strings.Split(got, ","), strings.Split(want, ",")
	return len(g) == 2 && len(w) == 2 && g[1] == w[1] && strings.HasPrefix(g[0], "Microsoft.Compute/PutVMSubscriptionMaximum;")
}

// TestProviderCounterThrottles: a request finding a counter empty gets 429
// with Retry-After and the counts, is not counted, and throttles only what
// the counter covers. The counters are set through the admin API.
func TestProviderCounterThrottles(t *testing.T) {
	c := start(t, Options{}, false)
	resp, body := c.do(http.MethodPut, rgID+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
	limits := Faults{ProviderLimits: []ProviderLimit{{
		Counter: "Microsoft.Storage/TestWrites", Types: []string{"Microsoft.Storage/storageAccounts"},
		Methods: []string{http.MethodPut}, Limit: RateLimit{Burst: 2, PerSecond: 0.01},
	}}}
	admin := c.run.AdminClient()
	if err := admin.SetFaults(context.Background(), limits); err != nil {
		t.Fatal(err)
	}
	if got, err := admin.Faults(context.Background()); err != nil || len(got.ProviderLimits) != 1 || got.ProviderLimits[0].Limit.Burst != 2 {
		t.Fatalf("faults read back: %+v, %v", got, err)
	}
	sa := func(name string) string {
		return rgID + "/providers/Microsoft.Storage/storageAccounts/" + name + "?api-version=2023-01-01"
	}
	for i, name := range []string{"sa1", "sa2"} {
		resp, body := c.do(http.MethodPut, sa(name), storageBody)
		if resp.StatusCode >= 300 {
			t.Fatalf("PUT %s: %d %v", name, resp.StatusCode, body)
		}
		if got, want := resp.Header.Get("x-ms-ratelimit-remaining-resource"), "Microsoft.Storage/TestWrites;"+string(rune('1'-i)); got != want {
			t.Errorf("PUT %s: %q, want %q", name, got, want)
		}
	}
	resp, body = c.do(http.MethodPut, sa("sa3"), storageBody)
	mustStatus(t, resp, body, http.StatusTooManyRequests)
	if errorCode(body) != "OperationNotAllowed" || resp.Header.Get("Retry-After") == "" ||
		resp.Header.Get("x-ms-ratelimit-remaining-resource") != "Microsoft.Storage/TestWrites;0" {
		t.Errorf("throttled PUT: %v %v", resp.Header, body)
	}
	if msg, _ := body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "Microsoft.Storage/TestWrites") {
		t.Errorf("the message does not name the counter: %q", msg)
	}
	// Reads of the type and writes of other types go on.
	resp, body = c.do(http.MethodGet, sa("sa1"), nil)
	mustStatus(t, resp, body, http.StatusOK)
	if got := resp.Header.Get("x-ms-ratelimit-remaining-resource"); got != "" {
		t.Errorf("a GET the counter does not cover names it: %q", got)
	}
	resp, body = c.do(http.MethodPut, sub+"/resourceGroups/rg2"+rgAPI, map[string]any{"location": "westus2"})
	mustStatus(t, resp, body, http.StatusCreated)
}
