package applier

import (
	"container/heap"
	"context"
)

// step is one unit of scheduled work: applying or deleting a resource.
type step struct {
	index int     // input position, the tie-breaker that keeps runs repeatable
	deps  []*step // must succeed before this step starts
	// height is the longest chain of steps waiting on this one; steps with
	// taller chains start first, so the critical path is never kept waiting
	// behind work that has slack.
	height     int
	dependents []*step
	waiting    int // deps not yet succeeded

	outcome Outcome
	err     error
	// blockedBy is the step whose failure kept this one from starting.
	blockedBy *step
}

// run executes steps in dependency order: a step starts as soon as every step
// it depends on has succeeded, with at most parallelism running at once. When
// a step fails, everything that depends on it, directly or not, is marked
// OutcomeNotAttempted. Once drain is closed no new step starts; running steps
// finish (ctx decides how long they may take) and the rest are marked
// OutcomeNotAttempted. do returns the step's outcome and error.
func run(ctx context.Context, drain <-chan struct{}, steps []*step, parallelism int, do func(context.Context, *step) (Outcome, error)) {
	if parallelism < 1 {
		parallelism = 1
	}
	for _, s := range steps {
		s.dependents, s.waiting = nil, len(s.deps)
	}
	for _, s := range steps {
		for _, d := range s.deps {
			d.dependents = append(d.dependents, s)
		}
	}
	computeHeights(steps)

	ready := &readyQueue{}
	for _, s := range steps {
		if s.waiting == 0 {
			heap.Push(ready, s)
		}
	}
	type result struct {
		s       *step
		outcome Outcome
		err     error
	}
	done := make(chan result)
	inFlight, draining := 0, false
	for {
		for !draining && inFlight < parallelism && ready.Len() > 0 {
			s := heap.Pop(ready).(*step)
			inFlight++
			go func() {
				outcome, err := do(ctx, s)
				done <- result{s, outcome, err}
			}()
		}
		if inFlight == 0 {
			break
		}
		select {
		case r := <-done:
			inFlight--
			r.s.outcome, r.s.err = r.outcome, r.err
			if r.outcome.succeeded() {
				for _, d := range r.s.dependents {
					if d.waiting--; d.waiting == 0 {
						heap.Push(ready, d)
					}
				}
			} else {
				markNotAttempted(r.s)
			}
		case <-drain:
			draining, drain = true, nil
		}
	}
	// Whatever has not run by now was stopped by an interrupt or waits on a
	// step that could not run.
	for _, s := range steps {
		if s.outcome == "" {
			s.outcome = OutcomeNotAttempted
		}
	}
}

// markNotAttempted marks everything downstream of a failed step.
func markNotAttempted(failed *step) {
	queue := []*step{failed}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range s.dependents {
			if d.outcome == "" {
				d.outcome, d.blockedBy = OutcomeNotAttempted, failed
				queue = append(queue, d)
			}
		}
	}
}

// computeHeights sets each step's height, the length of the longest chain of
// dependents below it. Steps that are part of a cycle keep height 0 (they
// never become ready and end not attempted).
func computeHeights(steps []*step) {
	remaining := make(map[*step]int, len(steps))
	var queue []*step
	for _, s := range steps {
		s.height = 0
		remaining[s] = len(s.dependents)
		if len(s.dependents) == 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range s.deps {
			d.height = max(d.height, s.height+1)
			if remaining[d]--; remaining[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
}

// readyQueue orders runnable steps: tallest chain first, then input order.
type readyQueue []*step

func (q readyQueue) Len() int { return len(q) }
func (q readyQueue) Less(i, j int) bool {
	if q[i].height != q[j].height {
		return q[i].height > q[j].height
	}
	return q[i].index < q[j].index
}
func (q readyQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)   { *q = append(*q, x.(*step)) }
func (q *readyQueue) Pop() any {
	old := *q
	s := old[len(old)-1]
	*q = old[:len(old)-1]
	return s
}
