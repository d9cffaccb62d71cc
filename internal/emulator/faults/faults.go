// Package faults holds the failures the emulator injects, as configured
// (Config and its rules), and State, which decides them repeatably under a
// seed and keeps the rate limits' token buckets. The request-level faults
// (latency, throttling, transient errors) are applied by the middleware
// package; the ones that act on a write's semantics (failing operations,
// conflicts, replication lag, drift) by armcore.
package faults

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/armid"
)

// Config are the failures the emulator injects. Rates are probabilities in
// [0,1], decided by a generator seeded with Options.Seed and the request's
// method and path, so that a client that sends the same requests sees the
// same faults. The zero Config injects nothing. In JSON, durations are nanoseconds.
type Config struct {
	// Latency delays every request.
	Latency time.Duration `json:"latency,omitempty"`
	// ThrottleRate answers this share of requests with 429 and Retry-After.
	ThrottleRate float64 `json:"throttleRate,omitempty"`
	// ReadLimit, WriteLimit and DeleteLimit are per-subscription token
	// buckets, as ARM keeps separately for reads (GET, HEAD), writes (PUT,
	// PATCH, POST) and deletes; a request finding its bucket empty gets 429
	// with Retry-After. Every answer of a limited kind carries the bucket's
	// x-ms-ratelimit-remaining-subscription-* count, and the count of ARM's
	// global bucket (15 times as big, shared by every principal) as the
	// -global- variant. WithARMLimits sets ARM's own.
	ReadLimit   RateLimit `json:"readLimit,omitzero"`
	WriteLimit  RateLimit `json:"writeLimit,omitzero"`
	DeleteLimit RateLimit `json:"deleteLimit,omitzero"`
	// ProviderLimits are resource providers' own throttling counters, kept
	// besides ARM's buckets (WithProviderLimits sets Compute's and Storage's).
	ProviderLimits []ProviderLimit `json:"providerLimits,omitempty"`
	// TransientRate answers this share of requests with 500 or 503.
	TransientRate float64 `json:"transientRate,omitempty"`
	// ConflictTypes are globs of child resource types (e.g.
	// "Microsoft.Network/virtualNetworks/subnets") for which a write gets 409
	// AnotherOperationInProgress while an operation on a sibling is in progress.
	ConflictTypes []string `json:"conflictTypes,omitempty"`
	// ReplicationLag is a window after a resource group is created during which
	// PUTs into it get 404 ResourceGroupNotFound, each with probability
	// ReplicationLagRate (0 means always).
	ReplicationLag     time.Duration `json:"replicationLag,omitempty"`
	ReplicationLagRate float64       `json:"replicationLagRate,omitempty"`
	// Failures make writes of matching types long-running operations that fail.
	Failures []FailureRule `json:"failures,omitempty"`
	// Drifts change matching resources some time after each write, as if
	// someone had edited them in the portal.
	Drifts []DriftRule `json:"drifts,omitempty"`
}

// RateLimit is a token bucket: Burst requests at once, refilled at PerSecond.
// A zero Burst means unlimited.
type RateLimit struct {
	Burst     int     `json:"burst,omitempty"`
	PerSecond float64 `json:"perSecond,omitempty"`
}

// FailureRule makes a PUT or PATCH of a type matching Type (a glob) a
// long-running operation that fails after After with the given error.
type FailureRule struct {
	Type    string        `json:"type"`
	After   time.Duration `json:"after,omitempty"`
	Code    string        `json:"code,omitempty"`    // default "InternalServerError"
	Message string        `json:"message,omitempty"` // default names the resource
}

// DriftRule merges Patch (a JSON merge patch) into resources of a type
// matching Type (a glob) After their write completed.
type DriftRule struct {
	Type  string          `json:"type"`
	After time.Duration   `json:"after,omitempty"`
	Patch json.RawMessage `json:"patch"`
}

// ARM's default token buckets per subscription and principal, since its 2024
// move to regional buckets: reads 250 at once refilled 25 a second, writes
// and deletes 200 refilled 10 a second. The global bucket of a subscription,
// shared by every principal, is GlobalFactor times each.
var (
	armReads   = RateLimit{Burst: 250, PerSecond: 25}
	armWrites  = RateLimit{Burst: 200, PerSecond: 10}
	armDeletes = RateLimit{Burst: 200, PerSecond: 10}
)

// GlobalFactor is how many times bigger than a principal's bucket the
// subscription's global bucket is.
const GlobalFactor = 15

// WithARMLimits returns f throttling as ARM does by default, with buckets
// refilled compression times faster for a time-compressed run (see
// Options.TimeCompression; below 1 means 1).
func (f Config) WithARMLimits(compression float64) Config {
	c := max(compression, 1)
	scale := func(l RateLimit) RateLimit { return RateLimit{Burst: l.Burst, PerSecond: l.PerSecond * c} }
	f.ReadLimit, f.WriteLimit, f.DeleteLimit = scale(armReads), scale(armWrites), scale(armDeletes)
	return f
}

// FailureFor returns the failure rule for a write of typ, if any.
func (f Config) FailureFor(typ string) (FailureRule, bool) {
	for _, r := range f.Failures {
		if armid.GlobMatch(r.Type, typ) {
			return r, true
		}
	}
	return FailureRule{}, false
}

// Conflicts reports whether writes of typ conflict with operations on their siblings.
func (f Config) Conflicts(typ string) bool {
	for _, g := range f.ConflictTypes {
		if armid.GlobMatch(g, typ) {
			return true
		}
	}
	return false
}

// State decides faults. Each decision hashes the seed, the kind of
// fault, the request's method and path, and how many times that triple was
// decided before; so the outcome for a client's n-th identical request does
// not depend on how other requests interleave with it.
type State struct {
	mu      sync.Mutex
	seed    int64
	faults  Config
	counts  map[string]uint64
	buckets map[string]*bucket // by name, see Take
}

// NewState returns the state of faults f under seed.
func NewState(seed int64, f Config) *State {
	return &State{seed: seed, faults: f, counts: map[string]uint64{}, buckets: map[string]*bucket{}}
}

// Get returns the faults in force.
func (fs *State) Get() Config {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.faults
}

// Set replaces the faults in force and refills the rate-limit buckets.
func (fs *State) Set(f Config) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.faults = f
	fs.buckets = map[string]*bucket{}
}

// Chance returns a repeatable number in [0,1) for the next decision of kind on subject.
func (fs *State) Chance(kind, subject string) float64 {
	fs.mu.Lock()
	k := kind + "\x00" + strings.ToLower(subject)
	n := fs.counts[k]
	fs.counts[k] = n + 1
	fs.mu.Unlock()
	h := fnv.New64a()
	h.Write([]byte(k))
	x := h.Sum64() ^ uint64(fs.seed)*0x9e3779b97f4a7c15 ^ (n+1)*0xbf58476d1ce4e5b9
	// splitmix64 finaliser
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// Hit decides whether a fault of kind at rate strikes subject.
func (fs *State) Hit(rate float64, kind, subject string) bool {
	return rate > 0 && fs.Chance(kind, subject) < rate
}

// bucket is one token bucket's state.
type bucket struct {
	tokens float64
	last   time.Time
}

// Take removes a token from the named bucket; when it is empty it reports
// how long until the next token. The time is read under the lock, so that
// requests are counted in the order they are decided.
func (fs *State) Take(limit RateLimit, name string) (remaining int, wait time.Duration, ok bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := time.Now()
	b := fs.buckets[name]
	if b == nil {
		b = &bucket{tokens: float64(limit.Burst), last: now}
		fs.buckets[name] = b
	}
	b.tokens = math.Min(float64(limit.Burst), b.tokens+now.Sub(b.last).Seconds()*limit.PerSecond)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return int(b.tokens), 0, true
	}
	if limit.PerSecond <= 0 {
		return 0, time.Hour, false
	}
	return 0, time.Duration((1 - b.tokens) / limit.PerSecond * float64(time.Second)), false
}
