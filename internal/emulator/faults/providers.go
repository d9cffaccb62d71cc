package faults

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// ProviderLimit is one of a resource provider's own throttling counters,
// kept besides ARM's buckets: Compute's PutVMSubscriptionMaximum, say. Each
// request it covers takes a token from it; the answer names it with what is
// left in x-ms-ratelimit-remaining-resource ("{counter};{remaining}", the
// counters of one request joined by commas), and a request finding it empty
// gets 429 with Retry-After.
type ProviderLimit struct {
	// Counter is the name answers show: "{namespace}/{policy}".
	Counter string `json:"counter"`
	// Types are globs of the resource types whose requests it counts, e.g.
	// "Microsoft.Compute/virtualMachines". The status of an operation is a
	// request of "{namespace}/locations/operations".
	Types []string `json:"types"`
	// Methods are the HTTP methods it counts; empty counts every method.
	Methods []string `json:"methods,omitempty"`
	// Collections makes it count the reads of a type's collections (lists)
	// instead of requests of one resource.
	Collections bool `json:"collections,omitempty"`
	// PerResource keeps a bucket for each resource instead of one for the
	// subscription (Compute's "...Resource" policies).
	PerResource bool      `json:"perResource,omitempty"`
	Limit       RateLimit `json:"limit"`
}

// Covers reports whether the counter counts a request of method on t.
func (l ProviderLimit) Covers(method string, t armpath.Target) bool {
	switch t.Kind {
	case armpath.Resource:
		if l.Collections {
			return false
		}
	case armpath.Collection:
		if !l.Collections {
			return false
		}
	default:
		return false
	}
	if len(l.Methods) > 0 && !containsFold(l.Methods, method) {
		return false
	}
	for _, g := range l.Types {
		if armid.GlobMatch(g, t.Type) {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// perMinute is a bucket of burst tokens refilled at n a minute.
func perMinute(burst int, n float64) RateLimit { return RateLimit{Burst: burst, PerSecond: n / 60} }

var (
	vmTypes       = []string{"Microsoft.Compute/virtualMachines"}
	storageTypes  = []string{"Microsoft.Storage/storageAccounts", "Microsoft.Storage/storageAccounts/*"}
	storageWrites = []string{http.MethodPut, http.MethodPatch, http.MethodPost, http.MethodDelete}
)

// documentedProviderLimits are the throttling policies Microsoft documents
// for Compute's virtual machines ("Compute throttling limits": a bucket per
// subscription and region, and one per VM, each holding three minutes of
// refill) under the names Compute's answers give them, and the Storage
// resource provider's scale targets per subscription and region (reads 800
// per 5 minutes, writes 10 a second and 1,200 an hour, lists 100 per 5
// minutes), which Microsoft documents without header names: the names
// here are the emulator's. Compute's operation status counters hold what
// the recordings show (15,000 and 45), refilled over three minutes like the others.
var documentedProviderLimits = []ProviderLimit{
	{Counter: "Microsoft.Compute/PutVMSubscriptionMaximum", Types: vmTypes, Methods: []string{http.MethodPut}, Limit: perMinute(1500, 500)},
	{Counter: "Microsoft.Compute/PutVMResource", Types: vmTypes, Methods: []string{http.MethodPut}, PerResource: true, Limit: perMinute(12, 4)},
	{Counter: "Microsoft.Compute/UpdateVMSubscriptionMaximum", Types: vmTypes, Methods: []string{http.MethodPatch}, Limit: perMinute(1500, 500)},
	{Counter: "Microsoft.Compute/UpdateVMResource", Types: vmTypes, Methods: []string{http.MethodPatch}, PerResource: true, Limit: perMinute(12, 4)},
	{Counter: "Microsoft.Compute/DeleteVMSubscriptionMaximum", Types: vmTypes, Methods: []string{http.MethodDelete}, Limit: perMinute(1500, 500)},
	{Counter: "Microsoft.Compute/DeleteVMResource", Types: vmTypes, Methods: []string{http.MethodDelete}, PerResource: true, Limit: perMinute(12, 4)},
	{Counter: "Microsoft.Compute/LowCostGetSubscriptionMaximum", Types: vmTypes, Methods: []string{http.MethodGet}, Limit: perMinute(24000, 8000)},
	{Counter: "Microsoft.Compute/LowCostGetResource", Types: vmTypes, Methods: []string{http.MethodGet}, PerResource: true, Limit: perMinute(36, 12)},
	{Counter: "Microsoft.Compute/GetOperationSubscriptionMaximum", Types: []string{"Microsoft.Compute/locations/operations", "Microsoft.Compute/locations/operationResults"}, Methods: []string{http.MethodGet}, Limit: perMinute(15000, 5000)},
	{Counter: "Microsoft.Compute/GetOperationResource", Types: []string{"Microsoft.Compute/locations/operations", "Microsoft.Compute/locations/operationResults"}, Methods: []string{http.MethodGet}, PerResource: true, Limit: perMinute(45, 15)},
	{Counter: "Microsoft.Storage/StorageAccountReads5Min", Types: storageTypes, Methods: []string{http.MethodGet}, Limit: perMinute(800, 160)},
	{Counter: "Microsoft.Storage/StorageAccountWrites1Sec", Types: storageTypes, Methods: storageWrites, Limit: RateLimit{Burst: 10, PerSecond: 10}},
	{Counter: "Microsoft.Storage/StorageAccountWrites1Hour", Types: storageTypes, Methods: storageWrites, Limit: perMinute(1200, 20)},
	{Counter: "Microsoft.Storage/StorageAccountLists5Min", Types: []string{"Microsoft.Storage/storageAccounts"}, Methods: []string{http.MethodGet}, Collections: true, Limit: perMinute(100, 20)},
}

// DocumentedProviderLimits returns the documented throttling counters of
// Compute and Storage (see documentedProviderLimits).
func DocumentedProviderLimits() []ProviderLimit {
	out := make([]ProviderLimit, len(documentedProviderLimits))
	copy(out, documentedProviderLimits)
	return out
}

// WithProviderLimits returns f throttling as Compute and Storage document,
// besides whatever else f does, with buckets refilled compression times
// faster for a time-compressed run (below 1 means 1).
func (f Config) WithProviderLimits(compression float64) Config {
	c := max(compression, 1)
	limits := DocumentedProviderLimits()
	for i := range limits {
		limits[i].Limit.PerSecond *= c
	}
	f.ProviderLimits = append(append([]ProviderLimit(nil), f.ProviderLimits...), limits...)
	return f
}

// TakeAll removes a token from each named bucket if every one has a token,
// and otherwise none: a throttled request is not counted. remaining are
// the counts left (what was there, when throttled); wait is how long
// until every bucket has a token again.
func (fs *State) TakeAll(limits []RateLimit, names []string) (remaining []int, wait time.Duration, ok bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := time.Now()
	remaining = make([]int, len(limits))
	ok = true
	for i, limit := range limits {
		b := fs.buckets[names[i]]
		if b == nil {
			b = &bucket{tokens: float64(limit.Burst), last: now}
			fs.buckets[names[i]] = b
		}
		b.tokens = math.Min(float64(limit.Burst), b.tokens+now.Sub(b.last).Seconds()*limit.PerSecond)
		b.last = now
		if b.tokens < 1 {
			ok = false
			w := time.Hour
			if limit.PerSecond > 0 {
				w = time.Duration((1 - b.tokens) / limit.PerSecond * float64(time.Second))
			}
			wait = max(wait, w)
		}
	}
	for i := range limits {
		b := fs.buckets[names[i]]
		if ok {
			b.tokens--
		}
		remaining[i] = int(b.tokens)
	}
	return remaining, wait, ok
}
