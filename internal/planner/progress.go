package planner

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azkcli/azk/internal/arm"
)

// progress rewrites one status line ("reading Azure: 120/2000 (85/s)")
// while reads run. A nil *progress is quiet.
type progress struct {
	w       io.Writer
	budget  func() arm.BudgetStats // nil when the reader has none
	total   int
	done    atomic.Int64
	started time.Time
	stopped chan struct{}
	wg      sync.WaitGroup
}

const progressEvery = 200 * time.Millisecond

func startProgress(w io.Writer, total int, reader Reader) *progress {
	if w == nil {
		return nil
	}
	p := &progress{w: w, total: total, started: time.Now(), stopped: make(chan struct{})}
	if b, ok := reader.(interface{ Budget() arm.BudgetStats }); ok {
		p.budget = b.Budget
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.print("\r")
			case <-p.stopped:
				return
			}
		}
	}()
	return p
}

func (p *progress) add() {
	if p != nil {
		p.done.Add(1)
	}
}

func (p *progress) print(prefix string) {
	done := p.done.Load()
	rate := float64(done) / max(time.Since(p.started).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "%sreading Azure: %d/%d resources (%.0f/s)", prefix, done, p.total, rate)
	if p.budget != nil {
		reads := p.budget().Reads
		fmt.Fprintf(p.w, ", %d waiting for ARM's read budget, %d throttled (429) so far", reads.Queued, reads.Throttled)
	}
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.stopped)
	p.wg.Wait()
	p.print("\r")
	fmt.Fprintln(p.w)
}
