package armcore

import (
	"net/http"
	"strconv"
	"time"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/registry"
)

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

// opTiming is how long an operation lasts and what its answers hint.
type opTiming struct {
	duration time.Duration
	// hints are the Retry-After of the answer that starts the operation and
	// of each poll that finds it running, the last repeating; 0 sends none.
	// Nil answers the time left instead, as the LRO rules do.
	hints []time.Duration
}

// Operation kinds, for choosing a type's timing.
const (
	opCreate = registry.OpCreate
	opUpdate = registry.OpUpdate
	opDelete = registry.OpDelete
)

// Compression is how many times faster than real time the core runs.
func (o Config) Compression() float64 { return max(o.TimeCompression, 1) }

// compress shortens a real-Azure duration to the emulator's time.
func (o Config) compress(d time.Duration) time.Duration {
	return time.Duration(float64(d) / o.Compression())
}

// timingFor is the timing of an operation on a type: an LRO rule's when one
// matches, else with RecordedTiming the recordings', else none.
func (o Config) timingFor(typ string, kind registry.Op) opTiming {
	for _, r := range o.LRO {
		if armid.GlobMatch(r.Type, typ) {
			d := r.Write
			if kind == opDelete {
				d = r.Delete
			}
			return opTiming{duration: o.compress(d)}
		}
	}
	if !o.RecordedTiming {
		return opTiming{}
	}
	a := factsOf(typ).arm
	if a == nil {
		return opTiming{}
	}
	t := a.Timing(kind)
	if t == nil {
		return opTiming{}
	}
	out := opTiming{duration: o.compress(time.Duration(t.Seconds * float64(time.Second))), hints: []time.Duration{0}}
	if len(t.RetryAfter) > 0 {
		out.hints = make([]time.Duration, len(t.RetryAfter))
		for i, s := range t.RetryAfter {
			out.hints[i] = o.compress(time.Duration(s) * time.Second)
		}
	}
	return out
}

// hintAt is the Retry-After of an answer about op at now: with recorded
// hints, the one of the answer a client honouring them would be at (a hint
// of 0 counts as the SDKs' default wait); else the time left.
func (c *Core) hintAt(op *store.Operation, now time.Time) (time.Duration, bool) {
	if op.Hints == nil {
		return op.Until.Sub(now), true
	}
	elapsed, at := now.Sub(op.Start), time.Duration(0)
	i := 0
	for ; i < len(op.Hints)-1; i++ {
		wait := op.Hints[i]
		if wait == 0 {
			wait = c.cfg.compress(registry.UnhintedPollSeconds * time.Second)
		}
		if at+wait > elapsed {
			break
		}
		at += wait
	}
	return op.Hints[i], op.Hints[i] > 0
}

// setRetryAfter sets an answer's Retry-After to d in whole seconds, rounded
// up: an operation still running is never "0", which asks to poll at once.
// A wait that is not whole seconds (compressed time, the sub-second
// operations of tests) is also given as retry-after-ms, which the Azure SDKs
// read first.
func (c *Core) setRetryAfter(h http.Header, d time.Duration) {
	d = max(d, 0)
	h.Set("Retry-After", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
	if c.cfg.Compression() > 1 || d%time.Second != 0 {
		h.Set("retry-after-ms", strconv.FormatInt(max(d.Milliseconds(), 0), 10))
	}
}

// answerHint sets the Retry-After of an answer about a running op, if any.
func (c *Core) answerHint(h http.Header, op *store.Operation, now time.Time) {
	if d, ok := c.hintAt(op, now); ok {
		c.setRetryAfter(h, d)
	}
}
