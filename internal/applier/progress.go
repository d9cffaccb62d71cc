package applier

import (
	"sync"
	"sync/atomic"
	"time"
)

// EventProgress reports, every Options.Heartbeat, how many operations are in
// flight, how many requests wait for a token of ARM's rate budget, and how
// many answers so far were 429.
const EventProgress EventType = "progress"

// inFlight counts the steps being worked on and reports them with the
// client's budget every interval, until stop is called.
type inFlight struct {
	n    atomic.Int64
	stop func()
}

func trackProgress(opts Options, emit func(Event)) *inFlight {
	f := &inFlight{stop: func() {}}
	if opts.Heartbeat <= 0 || opts.Client == nil {
		return f
	}
	f.stop = every(opts.Heartbeat, func() {
		budget := opts.Client.Budget().Total()
		emit(Event{Type: EventProgress, Progress: &Progress{InFlight: int(f.n.Load()), Queued: budget.Queued, Throttled: budget.Throttled}})
	})
	return f
}

// every calls do every interval until the returned func is called.
func every(interval time.Duration, do func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				do()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// enter counts a step in flight until the returned func is called.
func (f *inFlight) enter() func() {
	f.n.Add(1)
	return func() { f.n.Add(-1) }
}
