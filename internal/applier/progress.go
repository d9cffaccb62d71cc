package applier

import (
	"sort"
	"sync"
	"time"
)

// EventProgress reports, every Options.Heartbeat, how many operations are in
// flight, how many requests wait for a token of ARM's rate budget, and how
// many answers so far were 429; in a run acting in more than one
// subscription, each subscription's too, with how many of its resources are done.
const EventProgress EventType = "progress"

// inFlight counts the steps being worked on and done, by subscription
// (lane), and reports them with the client's budget every interval, until
// stop is called.
type inFlight struct {
	mu    sync.Mutex
	lanes map[string]*laneCount
	stop  func()
}

type laneCount struct{ running, done, total int }

func trackProgress(opts Options, emit func(Event), steps []*step) *inFlight {
	f := &inFlight{stop: func() {}, lanes: map[string]*laneCount{}}
	for _, s := range steps {
		f.lane(s.lane).total++
	}
	if opts.Heartbeat <= 0 || opts.Client == nil {
		return f
	}
	f.stop = every(opts.Heartbeat, func() { emit(Event{Type: EventProgress, Progress: f.progress(opts)}) })
	return f
}

func (f *inFlight) lane(name string) *laneCount {
	l := f.lanes[name]
	if l == nil {
		l = &laneCount{}
		f.lanes[name] = l
	}
	return l
}

// progress is the counts now: the steps', and the budget's.
func (f *inFlight) progress(opts Options) *Progress {
	bySub := map[string]*SubscriptionProgress{}
	at := func(sub string) *SubscriptionProgress {
		p := bySub[sub]
		if p == nil {
			p = &SubscriptionProgress{Subscription: sub}
			bySub[sub] = p
		}
		return p
	}
	out := &Progress{}
	f.mu.Lock()
	for name, l := range f.lanes {
		out.InFlight += l.running
		p := at(name)
		p.InFlight, p.Done, p.Total = l.running, l.done, l.total
	}
	f.mu.Unlock()
	for _, b := range opts.Client.Budgets() {
		total := b.Total()
		out.Queued += total.Queued
		out.Throttled += total.Throttled
		p := at(b.Subscription)
		p.Queued, p.Throttled = total.Queued, total.Throttled
	}
	delete(bySub, "") // steps whose subscription is not known yet: in the totals only
	if len(bySub) > 1 {
		for _, p := range bySub {
			out.Subscriptions = append(out.Subscriptions, *p)
		}
		sort.Slice(out.Subscriptions, func(i, j int) bool { return out.Subscriptions[i].Subscription < out.Subscriptions[j].Subscription })
	}
	return out
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

// enter counts a step in flight until the returned func is called, which
// counts it done.
func (f *inFlight) enter(s *step) func() {
	f.mu.Lock()
	f.lane(s.lane).running++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		l := f.lane(s.lane)
		l.running--
		l.done++
		f.mu.Unlock()
	}
}
