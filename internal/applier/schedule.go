package applier

import (
	"container/heap"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/registry"
)

// step is one unit of scheduled work: applying or deleting a resource.
type step struct {
	index int     // input position, the tie-breaker that keeps runs repeatable
	deps  []*step // must succeed before this step starts
	// cost is how long the step is expected to take (see costOf).
	cost time.Duration
	// rank is the longest chain of expected durations from this step's
	// start to the end of everything waiting on it. Ready steps with a higher
	// rank start first, and their requests go first when they wait for ARM's
	// budget, so that the longest work (an AKS cluster, an API Management
	// service) starts early and the critical path never waits behind work
	// that has slack.
	rank       time.Duration
	dependents []*step
	waiting    int // deps not yet succeeded

	// lane is the subscription the step's requests go to (lower-cased,
	// "" when unknown): lanes share the parallelism fairly (see run).
	lane string
	// method is the step's first write: PUT, or DELETE (see admission).
	method string

	outcome Outcome
	err     error
	// blockedBy is the step whose failure kept this one from starting.
	blockedBy *step
}

// laneOf is the lane of a step acting on the resource id: its subscription.
func laneOf(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return ""
	}
	return strings.ToLower(parsed.Subscription)
}

// roundTrip is what any step costs besides its operation: the requests that
// start it and read it back.
const roundTrip = time.Second

// costOf is the expected duration of an operation on an ARM type (as the
// recordings show it, see registry.Timing) plus a round trip.
func costOf(armType string, op registry.Op) time.Duration {
	return roundTrip + registry.Default().Duration(armType, op)
}

// applyCost is the expected duration of applying r: its write's (and
// delete's, for a replacement), or nothing for a resource left as it is.
func applyCost(r *planner.Resource) time.Duration {
	switch r.Action {
	case planner.ActionCreate:
		return costOf(r.ARMType, registry.OpCreate)
	case planner.ActionUpdate:
		return costOf(r.ARMType, registry.OpUpdate)
	case planner.ActionRecreate:
		if r.CascadedBy != "" {
			return costOf(r.ARMType, registry.OpCreate)
		}
		return costOf(r.ARMType, registry.OpDelete) + costOf(r.ARMType, registry.OpCreate)
	}
	return 0
}

// deleteCost is the expected duration of deleting the resource id.
func deleteCost(id string) time.Duration {
	parsed, err := armid.Parse(id)
	if err != nil {
		return roundTrip
	}
	return costOf(parsed.Type(), registry.OpDelete)
}

// aheadLimit is how many writes may wait for a subscription's budget ahead
// of a step (at its priority or higher, beyond the tokens there are) for
// the step to start: a few tokens' worth, so that the budget always has
// work to hand its tokens to, while the rest waits here, holding no memory
// of requests, and a step that becomes ready later with a higher rank
// still starts before them.
const aheadLimit = 8

// admissionRecheck is how often held steps are looked at again while
// nothing of the run ends.
const admissionRecheck = 10 * time.Millisecond

// admission is the run's admit: a step starts while fewer than aheadLimit
// writes would wait for its subscription's budget ahead of it, counting
// the steps of its subscription started since the budget was last asked
// (started), whose writes are not in the budget yet.
func admission(c *arm.Client) func(s *step, started int) bool {
	if c == nil {
		return nil
	}
	return func(s *step, started int) bool {
		return s.lane == "" || s.method == "" || c.Backlog(s.lane, s.method, s.rank.Seconds())+started < aheadLimit
	}
}

// run executes steps in dependency order: a step starts as soon as every step
// it depends on has succeeded, with at most parallelism running at once (0 or
// less: no bound, the client's rate budget paces the requests). Under a
// bound the subscriptions (lanes) share it fairly: the next step is the
// highest-ranked ready one of the lane with the fewest steps running, so a
// subscription whose steps wait on its throttled budget holds at most its
// share, and the others go on at their own rate. With admit (see
// admission), a ready step starts only when admit lets it, so that work
// waiting for a throttled budget waits here. When
// a step fails, everything that depends on it, directly or not, is marked
// OutcomeNotAttempted. Once drain is closed no new step starts; running steps
// finish (ctx decides how long they may take) and the rest are marked
// OutcomeNotAttempted. do returns the step's outcome and error.
func run(ctx context.Context, drain <-chan struct{}, steps []*step, parallelism int, admit func(s *step, started int) bool, do func(context.Context, *step) (Outcome, error)) {
	if parallelism < 1 {
		parallelism = len(steps) + 1
	}
	for _, s := range steps {
		s.dependents, s.waiting = nil, len(s.deps)
	}
	for _, s := range steps {
		for _, d := range s.deps {
			d.dependents = append(d.dependents, s)
		}
	}
	computeRanks(steps)

	ready := newLanes()
	for _, s := range steps {
		if s.waiting == 0 {
			ready.push(s)
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
		held := false
		ready.pass()
		for !draining && inFlight < parallelism && ready.len() > 0 {
			s := ready.pop(admit)
			if s == nil && inFlight == 0 {
				s = ready.pop(nil) // nothing of this run waits: what waits is not its own
			}
			if s == nil {
				held = true
				break
			}
			inFlight++
			go func() {
				outcome, err := do(arm.WithPriority(ctx, s.rank.Seconds()), s)
				done <- result{s, outcome, err}
			}()
		}
		if inFlight == 0 {
			break
		}
		var recheck <-chan time.Time
		if held {
			recheck = time.After(admissionRecheck)
		}
		select {
		case r := <-done:
			inFlight--
			ready.finished(r.s)
			r.s.outcome, r.s.err = r.outcome, r.err
			if r.outcome.succeeded() {
				for _, d := range r.s.dependents {
					if d.waiting--; d.waiting == 0 {
						ready.push(d)
					}
				}
			} else {
				markNotAttempted(r.s)
			}
		case <-recheck:
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

// computeRanks sets each step's rank: its cost plus the highest rank among
// its dependents. Steps that are part of a cycle keep their cost (they never
// become ready and end not attempted).
func computeRanks(steps []*step) {
	remaining := make(map[*step]int, len(steps))
	var queue []*step
	for _, s := range steps {
		s.rank = s.cost
		remaining[s] = len(s.dependents)
		if len(s.dependents) == 0 {
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, d := range s.deps {
			d.rank = max(d.rank, d.cost+s.rank)
			if remaining[d]--; remaining[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
}

// lanes are the runnable steps of each lane, the steps each has running,
// and those started in this pass of the scheduler.
type lanes struct {
	ready   map[string]*readyQueue
	running map[string]int
	started map[string]int
	count   int
}

func newLanes() *lanes {
	return &lanes{ready: map[string]*readyQueue{}, running: map[string]int{}, started: map[string]int{}}
}

// pass begins a pass of the scheduler: the steps started before are in
// their budgets by now, or have their tokens.
func (l *lanes) pass() { clear(l.started) }

func (l *lanes) len() int { return l.count }

func (l *lanes) push(s *step) {
	q := l.ready[s.lane]
	if q == nil {
		q = &readyQueue{}
		l.ready[s.lane] = q
	}
	heap.Push(q, s)
	l.count++
}

// pop takes the next step to start: of the lanes with runnable steps
// (whose next step admit lets start, when admit is not nil), the one with
// the fewest running, then the one whose next step ranks highest; nil when
// admit lets none start.
func (l *lanes) pop(admit func(s *step, started int) bool) *step {
	var best *readyQueue
	bestLane := ""
	for lane, q := range l.ready {
		if q.Len() == 0 || admit != nil && !admit((*q)[0], l.started[lane]) {
			continue
		}
		if best == nil || l.running[lane] < l.running[bestLane] ||
			l.running[lane] == l.running[bestLane] && before((*q)[0], (*best)[0]) {
			best, bestLane = q, lane
		}
	}
	if best == nil {
		return nil
	}
	s := heap.Pop(best).(*step)
	l.count--
	l.running[bestLane]++
	l.started[bestLane]++
	return s
}

func (l *lanes) finished(s *step) { l.running[s.lane]-- }

// readyQueue orders runnable steps: highest rank first, then input order.
type readyQueue []*step

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return before(q[i], q[j]) }

// before reports whether a starts before b: higher rank, then input order.
func before(a, b *step) bool {
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	return a.index < b.index
}

func (q readyQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *readyQueue) Push(x any)   { *q = append(*q, x.(*step)) }
func (q *readyQueue) Pop() any {
	old := *q
	s := old[len(old)-1]
	*q = old[:len(old)-1]
	return s
}

// firstWrite is the first write applying r sends: a DELETE for a
// replacement ARM does not cascade, a PUT for what writes, none for the rest.
func firstWrite(r *planner.Resource) string {
	switch {
	case r.Action == planner.ActionRecreate && r.CascadedBy == "":
		return http.MethodDelete
	case r.Writes():
		return http.MethodPut
	}
	return ""
}
