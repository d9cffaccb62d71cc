package bench

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// compression is how much faster than Azure the benchmarks run: the
// landing zone's two minutes take six seconds.
const compression = 20

// TestLandingZoneManifests: the benchmarks' inputs are valid manifests of
// the sizes they claim, and their bound is the DNS zones' chain.
func TestLandingZoneManifests(t *testing.T) {
	in, err := LandingZone(t.TempDir(), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(in.Graph.Nodes), 2*48+6; got != want {
		t.Fatalf("%d resources, want %d", got, want)
	}
	lz, err := LandingZone(t.TempDir(), 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(lz.Graph.Nodes) != 960 {
		t.Fatalf("landing zone of %d resources, want 960", len(lz.Graph.Nodes))
	}
}

// counter counts what a client sends, by kind, and the 429s.
type counter struct {
	next                                 http.RoundTripper
	reads, writes, deletes, polls, total atomic.Int64
	throttled                            atomic.Int64
}

// newCounter counts over a transport of at most 1,024 connections to the
// emulator (plain HTTP/1.1, a request at a time on each), as azcore's
// HTTP/2 to ARM carries many requests on each of a few: a connection, its
// buffers and goroutines for each request in flight would weigh in the
// peak heap, not azk.
func newCounter() *counter {
	return &counter{next: &http.Transport{MaxConnsPerHost: 1024, MaxIdleConnsPerHost: 1024, MaxIdleConns: 1024, IdleConnTimeout: time.Minute}}
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.total.Add(1)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		c.reads.Add(1)
		if p := strings.ToLower(r.URL.Path); strings.Contains(p, "/operations/") || strings.Contains(p, "/operationresults/") {
			c.polls.Add(1)
		}
	case http.MethodDelete:
		c.deletes.Add(1)
	default:
		c.writes.Add(1)
	}
	resp, err := c.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.throttled.Add(1)
	}
	return resp, err
}

// applyRun is one measured apply.
type applyRun struct {
	makespan time.Duration // in Azure time
	bound    Bound
	failed   int
	requests *counter
	heapMB   float64
	ops      int
}

// measureApply plans the input against a fresh emulator of opts and
// applies it at the given --parallelism (0: azk's default), timing the
// apply. Resources with a credential act as it, in its subscription.
func measureApply(b *testing.B, in *Input, clock Clock, opts emulator.Options, parallelism int) applyRun {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, opts, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	requests := newCounter()
	client, err := clock.Client(run.URL, requests, parallelism)
	if err != nil {
		b.Fatal(err)
	}
	if err := client.RouteCredentials(in.Graph); err != nil {
		b.Fatal(err)
	}
	p := plan(b, ctx, client, in)
	bound := ApplyBound(p.Resources)
	planRequests := requests.total.Load()

	runtime.GC()
	peak := sampleHeap()
	b.StartTimer()
	began := time.Now()
	rep := applier.Apply(ctx, p.Resources, applier.Options{Client: client, Graph: in.Graph, Parallelism: parallelism, LookupEnv: noEnv})
	elapsed := time.Since(began)
	b.StopTimer()
	heap := peak()
	r := applyRun{makespan: clock.Azure(elapsed), bound: bound, requests: requests, heapMB: float64(heap) / (1 << 20), ops: bound.WriteCount,
		failed: rep.Count(applier.OutcomeFailed) + rep.Count(applier.OutcomeNotAttempted)}
	if r.failed > 0 {
		var out strings.Builder
		rep.WriteText(&out)
		b.Logf("%d failed or not attempted:\n%s", r.failed, out.String())
	}
	b.Logf("apply of %d resources in %d subscriptions at --parallelism %d, %g× compressed: %s (bound %s: critical path %s, a subscription's writes %s, reads %s, provider counters %s; %d writes, %d reads in all); requests: %d (plan %d), %d writes, %d reads of which %d polls, %d 429s",
		len(p.Resources), bound.Subscriptions, parallelism, clock.Compression, r.makespan.Round(time.Second), bound.Max().Round(time.Second), bound.CriticalPath.Round(time.Second),
		bound.Writes.Round(time.Second), bound.Reads.Round(time.Second), bound.Providers.Round(time.Second), bound.WriteCount, bound.ReadCount,
		requests.total.Load(), planRequests, requests.writes.Load(), requests.reads.Load(), requests.polls.Load(), requests.throttled.Load())
	return r
}

// noEnv is an environment without variables: the inputs read none.
func noEnv(string) (string, bool) { return "", false }

// plan makes the plan of the input with the reads of client (which carries
// the run's --parallelism).
func plan(b *testing.B, ctx context.Context, client *arm.Client, in *Input) *planner.Plan {
	b.Helper()
	p, diags := planner.Make(ctx, in.Graph, planner.Options{Reader: client, LookupEnv: noEnv})
	if diags.HasErrors() {
		b.Fatal(diags.Err())
	}
	return p
}

func (r applyRun) report(b *testing.B) {
	b.ReportMetric(r.makespan.Seconds(), "makespan-s")
	b.ReportMetric(r.bound.Max().Seconds(), "bound-s")
	b.ReportMetric(r.makespan.Seconds()/r.bound.Max().Seconds(), "ratio-to-bound")
	b.ReportMetric(float64(r.failed), "failed")
	b.ReportMetric(100*float64(r.requests.throttled.Load())/float64(r.requests.total.Load()), "throttled-pct")
	b.ReportMetric(r.heapMB, "peak-heap-MB")
	b.ReportMetric(float64(r.requests.polls.Load())/float64(max(r.ops, 1)), "polls/op")
	b.ReportMetric(float64(r.requests.total.Load()), "requests")
}

// benchApply applies the input at --parallelism 10 (Terraform's default
// and azk's before) and at azk's default, side by side.
func benchApply(b *testing.B, in *Input, clock Clock) {
	var p10 applyRun
	b.Run("parallelism=10", func(b *testing.B) {
		for range b.N {
			p10 = measureApply(b, in, clock, clock.Emulator(), 10)
		}
		p10.report(b)
	})
	b.Run("default", func(b *testing.B) {
		var r applyRun
		for range b.N {
			r = measureApply(b, in, clock, clock.Emulator(), 0)
		}
		r.report(b)
		if p10.makespan > 0 {
			b.ReportMetric(p10.makespan.Seconds()/r.makespan.Seconds(), "speedup-vs-p10")
		}
	})
}

// BenchmarkLandingZone applies the 960-resource landing zone (20 resource
// groups of 48 resources: see LandingZone) through the real plan and apply
// against the emulator throttling as ARM does, each type's operations
// lasting as the recordings show, 20 times faster than Azure. Times are
// reported in Azure time.
//
//	go test ./bench -run '^$' -bench LandingZone -benchtime 1x
func BenchmarkLandingZone(b *testing.B) {
	in, err := LandingZone(b.TempDir(), 20, 0)
	if err != nil {
		b.Fatal(err)
	}
	benchApply(b, in, Clock{Compression: compression})
}

// BenchmarkLandingZoneLongOperations is the landing zone with an AKS
// cluster, a PostgreSQL flexible server, a Bastion host and an API
// Management service in two of its resource groups: minutes and tens of
// minutes that must start early. 100 times faster than Azure.
//
//	go test ./bench -run '^$' -bench LandingZoneLongOperations -benchtime 1x
func BenchmarkLandingZoneLongOperations(b *testing.B) {
	in, err := LandingZone(b.TempDir(), 20, 2)
	if err != nil {
		b.Fatal(err)
	}
	benchApply(b, in, Clock{Compression: 100})
}

// sampleHeap records the largest in-use heap until the returned func is called.
func sampleHeap() func() uint64 {
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	read := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapInuse+m.StackInuse)
		mu.Unlock()
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		read()
		return peak
	}
}
