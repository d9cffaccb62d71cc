package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/preflight"
)

// BenchmarkPreflightCost plans the landing zone (20 zones, 960 resources)
// with and without --preflight: against an empty subscription, where every
// resource is a create and the pre-flight has the most to ask (each body
// validated, each global name checked, each write's permission and policy
// evaluated), and once it all exists (nothing to write, little to ask); ARM answering each request after 100 ms and throttling as
// its default buckets do. The bound counts every request sent, the
// pre-flight's included: each subscription's read bucket for its GETs, its
// write bucket for its POSTs (ARM counts a POST action, validate or a name
// check, as a write), and the last answer's latency.
//
//	go test ./bench -run '^$' -bench PreflightCost -benchtime 1x
func BenchmarkPreflightCost(b *testing.B) {
	clock := Clock{Compression: planCompression}
	in, err := LandingZone(b.TempDir(), 20, 0)
	if err != nil {
		b.Fatal(err)
	}
	var without time.Duration
	for _, c := range []struct {
		existing, withPreflight bool
	}{{false, false}, {false, true}, {true, false}, {true, true}} {
		name := map[bool]string{false: "subscription=empty", true: "subscription=existing"}[c.existing] +
			map[bool]string{false: "/preflight=off", true: "/preflight=on"}[c.withPreflight]
		withPreflight := c.withPreflight
		b.Run(name, func(b *testing.B) {
			var (
				elapsed  time.Duration
				requests *tally
				errors   int
			)
			for range b.N {
				ctx, cancel := context.WithCancel(context.Background())
				run, err := emulator.Start(ctx, emulator.Options{Faults: emulator.Faults{Latency: clock.Compress(latency)}.WithARMLimits(clock.Compression)}, "127.0.0.1:0", false)
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				if c.existing {
					run.Server.SetFaults(emulator.Faults{})
					seed(b, run, in)
					run.Server.SetFaults(emulator.Faults{Latency: clock.Compress(latency)}.WithARMLimits(clock.Compression))
				}
				requests = newTally()
				client, err := clock.Client(run.URL, requests, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				began := time.Now()
				p, diags := planner.Make(ctx, in.Graph, planner.Options{Reader: client, LookupEnv: noEnv})
				if diags.HasErrors() {
					b.Fatal(diags.Err())
				}
				if withPreflight {
					p.Preflight = preflight.Run(ctx, client, p, preflight.Options{})
				}
				elapsed = clock.Azure(time.Since(began))
				b.StopTimer()
				errors = 0
				if p.Preflight != nil {
					errors = p.Preflight.Errors()
					for _, f := range p.Preflight.Findings {
						if f.Severity == planner.SeverityError {
							b.Logf("%s [%s %s] %s", f.Address, f.Check, f.Code, f.Message)
						}
					}
				}
				_ = run.Close()
				cancel()
			}
			bound := max(requests.readBound(), requests.bucketBound("writes", arm.DefaultRateLimits.Writes)) + latency
			b.Logf("%s: plan of %d resources: %s (bound %s), %d requests, %d 429s, %d pre-flight errors",
				name, len(in.Graph.Nodes), elapsed.Round(100*time.Millisecond), bound.Round(100*time.Millisecond), requests.total.Load(), requests.throttled.Load(), errors)
			b.ReportMetric(elapsed.Seconds(), "makespan-s")
			b.ReportMetric(bound.Seconds(), "bound-s")
			b.ReportMetric(elapsed.Seconds()/bound.Seconds(), "ratio-to-bound")
			b.ReportMetric(float64(requests.total.Load()), "requests")
			b.ReportMetric(float64(errors), "preflight-errors")
			if !withPreflight {
				without = elapsed
			} else if without > 0 {
				b.ReportMetric(elapsed.Seconds()/without.Seconds(), "ratio-to-plan")
			}
		})
	}
}

// bucketBound is the time each subscription's bucket of kind (reads,
// writes, deletes) takes to let the requests counted through: the longest.
func (t *tally) bucketBound(kind string, l arm.RateLimit) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var bound time.Duration
	for key, n := range t.n {
		if _, what, _ := strings.Cut(key, " "); what == kind {
			bound = max(bound, spend(n, l))
		}
	}
	return bound
}
