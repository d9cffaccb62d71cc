// Package emulator is an in-process, persistent emulator of the Azure Resource
// Manager REST surface: resource CRUD on any ARM path, long-running operations,
// cascade delete, ETags, built-in role definitions, key vault soft delete and
// faults on demand (latency, throttling, transient errors, conflicts,
// replication lag, failing operations, drift). It speaks ARM paths, not ASO kinds.
//
// This package composes the layers below it (docs/emulator.md, "Code
// layout"): store, armcore, providers, deploy and middleware.
package emulator

import (
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/history"
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
	// EnforceRBAC refuses the writes the caller's role assignments do not
	// allow (403 AuthorizationFailed), as ARM does; without it role
	// assignments are stored and answered (permissions API) but not enforced.
	EnforceRBAC bool
	// Subscription is the subscription the emulator knows from the start
	// (GET /subscriptions lists it, with every subscription something is
	// stored in); empty means DefaultSubscription.
	Subscription string
	// ChangesRetention is how long Resource Graph's change history
	// (resourcechanges) keeps a write: 0 means 14 days, as Azure; negative
	// keeps nothing.
	ChangesRetention time.Duration
	// ActivityRetention is how long the Activity Log keeps a write: 0 means
	// 90 days, as Azure; negative keeps nothing.
	ActivityRetention time.Duration
	// ReadTimeout is how long a request's body may take to arrive once its
	// headers have: a client trickling its body is cut off then, as one
	// trickling its headers is after HeaderTimeout. 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
}

// How long a request may take to arrive: its headers, and then its body
// (up to MaxBodyBytes, 4 MiB by default).
const (
	HeaderTimeout      = 10 * time.Second
	DefaultReadTimeout = 60 * time.Second
)

// readTimeout is the read deadline the options give.
func (o Options) readTimeout() time.Duration {
	if o.ReadTimeout > 0 {
		return o.ReadTimeout
	}
	return DefaultReadTimeout
}

// How long Azure keeps a write: Resource Graph's change history 14 days,
// the Activity Log 90.
const (
	DefaultChangesRetention  = history.DefaultChangesRetention
	DefaultActivityRetention = history.DefaultActivityRetention
)

// HistoryRetention is how long the change history (Changes) and the
// Activity Log (Activity) keep a write; 0 keeps nothing.
type HistoryRetention = history.Retention

// historyRetention is the retention the options give.
func (o Options) historyRetention() HistoryRetention {
	keep := func(d, def time.Duration) time.Duration {
		switch {
		case d == 0:
			return def
		case d < 0:
			return 0
		}
		return d
	}
	return HistoryRetention{Changes: keep(o.ChangesRetention, history.DefaultChangesRetention), Activity: keep(o.ActivityRetention, history.DefaultActivityRetention)}
}

// DefaultSubscription is the subscription an emulator knows from the start
// unless Options.Subscription names another.
const DefaultSubscription = armcore.DefaultSubscription

// LRORule makes operations on resource types matching Type (a case-insensitive
// glob where "*" matches anything, e.g. "Microsoft.Network/*") long-running.
// A zero duration leaves that verb synchronous.
type LRORule = armcore.LRORule

// Faults are the failures the emulator injects (see faults.Config).
type Faults = faults.Config

// RateLimit is a token bucket: Burst requests at once, refilled at PerSecond.
// A zero Burst means unlimited.
type RateLimit = faults.RateLimit

// FailureRule makes a PUT or PATCH of a type matching Type (a glob) a
// long-running operation that fails after After with the given error.
type FailureRule = faults.FailureRule

// DriftRule merges Patch (a JSON merge patch) into resources of a type
// matching Type (a glob) After their write completed.
type DriftRule = faults.DriftRule

// Tenant is the Microsoft Entra tenant the emulator reports identities in.
const Tenant = armcore.Tenant

// coreConfig is the part of the options the ARM core takes.
func (o Options) coreConfig() armcore.Config {
	return armcore.Config{Seed: o.Seed, PageSize: o.PageSize, MaxBodyBytes: o.MaxBodyBytes, LRO: o.LRO,
		RecordedTiming: o.RecordedTiming, TimeCompression: o.TimeCompression, Subscription: o.Subscription}
}

// ProviderLimit is one of a resource provider's own throttling counters
// (see faults.ProviderLimit).
type ProviderLimit = faults.ProviderLimit
