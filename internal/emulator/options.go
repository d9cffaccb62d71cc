// Package emulator is an in-process, persistent emulator of the Azure Resource
// Manager REST surface: resource CRUD on any ARM path, long-running operations,
// cascade delete, ETags, built-in role definitions, key vault soft delete and
// faults on demand (latency, throttling, transient errors, conflicts,
// replication lag, failing operations, drift). It speaks ARM paths, not ASO kinds.
package emulator

import (
	"encoding/json"
	"time"
)

// Options configure a Server. The zero Options is an in-memory emulator with
// synchronous operations, no faults, seed 0 and default limits.
type Options struct {
	// StateDir keeps the state across restarts; empty keeps it in memory only.
	StateDir string
	// Seed makes every random decision (faults, generated IDs) repeatable.
	Seed int64
	// PageSize is the number of items per list page before a nextLink; 0 means 100.
	PageSize int
	// MaxBodyBytes is the largest request body accepted (larger gets 413); 0 means 4 MiB.
	MaxBodyBytes int64
	// LRO makes writes and deletes of matching resource types long-running.
	// The first matching rule wins; types matching none answer synchronously
	// (or as recorded, with RecordedTiming).
	LRO []LRORule
	// RecordedTiming makes the operations of every type no LRO rule matches
	// last as long as the recordings show (registry.ARMType's timings), with
	// the Retry-After hints ARM gave along the way rather than the exact time
	// left.
	RecordedTiming bool
	// TimeCompression runs time that many times faster: operations last and
	// Retry-After hints ask for that fraction of their time (as
	// retry-after-ms), for benchmarks of what takes minutes on Azure. Token
	// buckets are refilled at the rates Faults gives (see WithARMLimits).
	// Below 1 means 1.
	TimeCompression float64
	// Faults are the failures injected; they can be changed later with SetFaults.
	Faults Faults
	// AdminToken is the token the admin API requires; empty generates a random one.
	AdminToken string
}

// LRORule makes operations on resource types matching Type (a case-insensitive
// glob where "*" matches anything, e.g. "Microsoft.Network/*") long-running.
// A zero duration leaves that verb synchronous.
type LRORule struct {
	Type string `json:"type"`
	// Write is how long a PUT or PATCH stays in progress.
	Write time.Duration `json:"write,omitempty"`
	// Delete is how long a DELETE stays in progress.
	Delete time.Duration `json:"delete,omitempty"`
}

// Faults are the failures the emulator injects. Rates are probabilities in
// [0,1], decided by a generator seeded with Options.Seed and the request's
// method and path, so that a client that sends the same requests sees the
// same faults. The zero Faults injects nothing. In JSON, durations are nanoseconds.
type Faults struct {
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

func (o Options) pageSize() int {
	if o.PageSize > 0 {
		return o.PageSize
	}
	return 100
}

func (o Options) maxBodyBytes() int64 {
	if o.MaxBodyBytes > 0 {
		return o.MaxBodyBytes
	}
	return 4 << 20
}
