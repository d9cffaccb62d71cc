package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// latency is how long ARM takes to answer a read, in Azure time.
const latency = 100 * time.Millisecond

// seed creates every resource of the input in the emulator, parents first,
// with a client that ARM's limits do not slow down.
func seed(b *testing.B, run *emulator.Running, in *Input) {
	b.Helper()
	ctx := context.Background()
	fast := Clock{Compression: 1000}
	client, err := fast.Client(run.URL, newCounter(), 0)
	if err != nil {
		b.Fatal(err)
	}
	p := plan(b, ctx, client, in)
	for depth := 1; depth <= maxDepth(in.Graph); depth++ {
		errs := make(chan error, len(p.Resources))
		n := 0
		for _, r := range p.Resources {
			if r.Request == nil || depthOf(r.Node) != depth {
				continue
			}
			n++
			go func() {
				id, apiVersion, _ := strings.Cut(r.Request.URL, "?api-version=")
				op, err := client.Put(ctx, id, apiVersion, r.Request.Body)
				if err == nil {
					_, err = op.Wait(ctx)
				}
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
}

// depthOf is how many owners up a node's resource group is, counting itself.
func depthOf(n *graph.Node) int {
	d := 1
	for o := n.Owner; o != nil; o = o.Owner {
		d++
	}
	return d
}

func maxDepth(g *graph.Graph) int {
	d := 0
	for _, n := range g.Nodes {
		d = max(d, depthOf(n))
	}
	return d
}

// planCompression is the plan benchmark's time compression. Less than the
// apply's: the planner's own work (a few hundred milliseconds of CPU for
// 2,000 resources) is not compressed, and would count 20 times over.
const planCompression = 5

// BenchmarkPlanExisting plans 2,016 resources that all exist (42 resource
// groups of the landing zone) against the emulator throttling reads as ARM
// does, answering each after 100 ms, 5 times faster than Azure: with a GET
// for every resource (as before list reads), then with lists at azk's
// default and at --parallelism 10 and 1000. The bound is the time ARM's read
// bucket takes to let the plan's requests through and the last one's answer,
// or the chain of requests one after the other (an owner, then its
// children), whichever is longer.
//
//	go test ./bench -run '^$' -bench PlanExisting -benchtime 1x
func BenchmarkPlanExisting(b *testing.B) {
	clock := Clock{Compression: planCompression}
	in, err := LandingZone(b.TempDir(), 42, 0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	seed(b, run, in)
	resources := len(in.Graph.Nodes)

	var getBound time.Duration
	for _, mode := range []struct {
		name        string
		readEach    bool
		parallelism int
	}{
		{"reads=get", true, 0},
		{"reads=list", false, 0},
		{"reads=list/parallelism=10", false, 10},
		{"reads=list/parallelism=1000", false, 1000},
	} {
		b.Run(mode.name, func(b *testing.B) {
			var elapsed time.Duration
			var requests *counter
			failed := 0
			for range b.N {
				// Fresh buckets: each plan starts with ARM's full burst.
				run.Server.SetFaults(emulator.Faults{Latency: clock.Compress(latency)}.WithARMLimits(clock.Compression))
				requests = newCounter()
				client, err := clock.Client(run.URL, requests, mode.parallelism)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				began := time.Now()
				p, diags := planner.Make(ctx, in.Graph, planner.Options{Reader: client, ReadEach: mode.readEach})
				elapsed = clock.Azure(time.Since(began))
				b.StopTimer()
				failed = len(diags)
				if p != nil {
					failed += resources - p.Summary().NoChange
				}
				if failed > 0 {
					b.Logf("%s: %d errors or changes: %v; %s", mode.name, failed, diags.Err(), views.SummaryLine(p))
				}
			}
			// An owner's read before its children's, one level at a time;
			// or the bucket letting the last read go, and its answer.
			chain := time.Duration(maxDepth(in.Graph)) * latency
			bound := max(chain, spend(int(requests.total.Load()), arm.DefaultRateLimits.Reads)+latency)
			if mode.readEach {
				getBound = bound
			}
			b.Logf("%s: plan of %d resources in %s (bound %s), %d requests, %d 429s", mode.name, resources, elapsed.Round(100*time.Millisecond),
				bound.Round(100*time.Millisecond), requests.total.Load(), requests.throttled.Load())
			b.ReportMetric(elapsed.Seconds(), "makespan-s")
			b.ReportMetric(bound.Seconds(), "bound-s")
			b.ReportMetric(elapsed.Seconds()/bound.Seconds(), "ratio-to-bound")
			b.ReportMetric(float64(failed), "failed")
			b.ReportMetric(float64(requests.total.Load())/float64(resources), "requests/resource")
			b.ReportMetric(100*float64(requests.throttled.Load())/float64(requests.total.Load()), "throttled-pct")
			if !mode.readEach && getBound > 0 {
				b.ReportMetric(elapsed.Seconds()/getBound.Seconds(), "ratio-to-get-bound")
			}
		})
	}
}
