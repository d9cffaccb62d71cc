package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// estateShape is the estate of BenchmarkEstate: 20 subscriptions of 20
// landing-zone resource groups and 20 role assignments each, with the hub
// peered with all 400 spokes: 20,402 resources.
var estateShape = EstateShape{Subscriptions: 20, Zones: 20, RoleAssignments: 20}

// Time compression of the estate's runs. The default apply runs at little
// compression and the plan at none: azk's own work for 20,000 resources (and
// the emulator's, in the same process) is not compressed and would count
// that many times over. The apply at --parallelism 10 takes hours of Azure
// time, so it runs at more.
const (
	estateCompression = 2
	// estatePlanCompression is the plan's: its CPU, not compressed, counts whole.
	estatePlanCompression = 1
	estateP10Compression  = 100
)

// TestEstateManifests: a small estate is valid manifests of the size it
// claims, every resource acting in its subscription as its credential,
// the hub peered with every spoke and back.
func TestEstateManifests(t *testing.T) {
	shape := EstateShape{Subscriptions: 3, Zones: 2, RoleAssignments: 2}
	in, err := Estate(t.TempDir(), shape)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(in.Graph.Nodes), shape.Resources(); got != want {
		t.Fatalf("%d resources, want %d", got, want)
	}
	bySub := map[string]int{}
	peerings := 0
	for _, n := range in.Graph.Nodes {
		if n.Credential == nil {
			t.Fatalf("%s acts as no credential", n.Address())
		}
		sub, _ := n.Credential.Value("AZURE_SUBSCRIPTION_ID")
		if !strings.HasPrefix(n.ID, "/subscriptions/"+sub+"/") {
			t.Errorf("%s (%s) is not in its credential's subscription %s", n.Address(), n.ID, sub)
		}
		bySub[sub]++
		if strings.HasSuffix(n.ID, "/virtualNetworkPeerings/"+n.ID[strings.LastIndexByte(n.ID, '/')+1:]) {
			peerings++
		}
	}
	if len(bySub) != shape.Subscriptions || peerings != 2*shape.Subscriptions*shape.Zones {
		t.Errorf("%d subscriptions (%v), %d peerings", len(bySub), bySub, peerings)
	}
}

// tally counts a client's requests by the subscription they go to: each
// kind (reads, writes, deletes) and each resource provider counter the
// emulator keeps per subscription.
type tally struct {
	*counter
	counters []emulator.ProviderLimit
	mu       sync.Mutex
	n        map[string]int // "{subscription} {kind or counter}"
}

func newTally() *tally {
	return &tally{counter: newCounter(), counters: emulator.Faults{}.WithProviderLimits(1).ProviderLimits, n: map[string]int{}}
}

func (t *tally) RoundTrip(r *http.Request) (*http.Response, error) {
	if sub, ok := graphQuery(r); ok {
		// A Resource Graph query (the plan's change history) reads, and
		// azk paces it by the subscription's read budget: counted as a read.
		t.mu.Lock()
		t.n[sub+" reads"]++
		t.mu.Unlock()
		return t.counter.RoundTrip(r)
	}
	target, ok := armpath.Parse(r.URL.Path)
	if ok {
		sub := strings.ToLower(target.Sub)
		t.mu.Lock()
		t.n[sub+" "+kindOf(r.Method)]++
		for _, l := range t.counters {
			if !l.PerResource && l.Covers(r.Method, target) {
				t.n[sub+" "+l.Counter]++
			}
		}
		t.mu.Unlock()
	}
	return t.counter.RoundTrip(r)
}

// graphQuery reports a Resource Graph query, and the subscription it reads.
func graphQuery(r *http.Request) (string, bool) {
	if r.Method != http.MethodPost || !strings.EqualFold(r.URL.Path, "/providers/Microsoft.ResourceGraph/resources") {
		return "", false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return "", false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var q struct {
		Subscriptions []string `json:"subscriptions"`
	}
	if json.Unmarshal(body, &q) != nil || len(q.Subscriptions) != 1 {
		return "", false
	}
	return strings.ToLower(q.Subscriptions[0]), true
}

func kindOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

// readBound is the time each subscription's read bucket, and each read
// counter of a provider, takes to let the reads counted through: the
// longest.
func (t *tally) readBound() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	var bound time.Duration
	for key, n := range t.n {
		_, what, _ := strings.Cut(key, " ")
		if what == "reads" {
			bound = max(bound, spend(n, arm.DefaultRateLimits.Reads))
		}
		for _, l := range t.counters {
			if what == l.Counter && containsMethod(l.Methods, http.MethodGet) {
				bound = max(bound, spend(n, arm.RateLimit(l.Limit)))
			}
		}
	}
	return bound
}

func containsMethod(methods []string, m string) bool {
	for _, x := range methods {
		if x == m {
			return true
		}
	}
	return len(methods) == 0
}

// estateEmulator is the emulator of the estate's runs: ARM's buckets per
// subscription, the providers' counters, the recorded durations, on the clock.
func estateEmulator(clock Clock) emulator.Options {
	opts := clock.Emulator()
	opts.Faults = opts.Faults.WithProviderLimits(clock.Compression)
	return opts
}

// BenchmarkEstate applies an enterprise estate (estateShape: 20
// subscriptions of the landing zone, a hub peered with all 400 spokes,
// role assignments at each subscription's scope; 20,402 resources, each
// subscription's as its own credential) against the emulator throttling as
// ARM does per subscription and as Compute and Storage do per provider
// counter, operations lasting as recorded, time compressed: at
// --parallelism 10 and at azk's default; then plans it once it all exists.
// Times are Azure times. The apply's bound is the longest of the critical
// path and each subscription's buckets letting its writes (and the reads
// that follow them) through; the plan's, each subscription's read bucket
// letting the plan's reads through, and the last one's answer.
//
//	go test ./bench -run '^$' -bench Estate -benchtime 1x -timeout 60m
func BenchmarkEstate(b *testing.B) {
	in, err := Estate(b.TempDir(), estateShape)
	if err != nil {
		b.Fatal(err)
	}
	var p10 applyRun
	b.Run("parallelism=10", func(b *testing.B) {
		for range b.N {
			clock := Clock{Compression: estateP10Compression}
			p10 = measureApply(b, in, clock, estateEmulator(clock), 10)
		}
		p10.report(b)
	})
	b.Run("default", func(b *testing.B) {
		var r applyRun
		for range b.N {
			clock := Clock{Compression: estateCompression}
			r = measureApply(b, in, clock, estateEmulator(clock), 0)
		}
		r.report(b)
		if p10.makespan > 0 {
			b.ReportMetric(p10.makespan.Seconds()/r.makespan.Seconds(), "speedup-vs-p10")
		}
	})
	b.Run("plan", func(b *testing.B) {
		benchEstatePlan(b, in)
	})
}

// benchEstatePlan plans the estate once every resource exists, ARM
// answering each read after 100 ms, throttling reads per subscription.
func benchEstatePlan(b *testing.B, in *Input) {
	clock := Clock{Compression: estatePlanCompression}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	seed(b, run, in)
	resources := len(in.Graph.Nodes)
	var (
		elapsed  time.Duration
		requests *tally
		failed   int
		heapMB   float64
	)
	for range b.N {
		// Fresh buckets: each plan starts with ARM's full burst.
		run.Server.SetFaults(emulator.Faults{Latency: clock.Compress(latency)}.WithARMLimits(clock.Compression).WithProviderLimits(clock.Compression))
		requests = newTally()
		client, err := clock.Client(run.URL, requests, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := client.RouteCredentials(in.Graph); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		peak := sampleHeap()
		b.StartTimer()
		began := time.Now()
		p, diags := planner.Make(ctx, in.Graph, planner.Options{Reader: client, LookupEnv: noEnv, History: client})
		elapsed = clock.Azure(time.Since(began))
		b.StopTimer()
		heapMB = float64(peak()) / (1 << 20)
		failed = len(diags)
		if p != nil {
			failed += resources - p.Summary().NoChange
		}
		if failed > 0 {
			b.Logf("%d errors or changes: %v; %s", failed, diags.Err(), views.SummaryLine(p))
		}
		runtime.KeepAlive(p)
	}
	// The last read goes out once the buckets let it through, and its
	// answer comes one latency later.
	chain := time.Duration(maxDepth(in.Graph)) * latency
	bound := max(chain, requests.readBound()+latency)
	b.Logf("plan of %d resources in %d subscriptions, %g× compressed: %s (bound %s), %d requests, %d 429s, peak heap %.0f MB",
		resources, estateShape.Subscriptions, clock.Compression, elapsed.Round(100*time.Millisecond), bound.Round(100*time.Millisecond),
		requests.total.Load(), requests.throttled.Load(), heapMB)
	b.ReportMetric(elapsed.Seconds(), "makespan-s")
	b.ReportMetric(bound.Seconds(), "bound-s")
	b.ReportMetric(elapsed.Seconds()/bound.Seconds(), "ratio-to-bound")
	b.ReportMetric(float64(failed), "failed")
	b.ReportMetric(100*float64(requests.throttled.Load())/float64(requests.total.Load()), "throttled-pct")
	b.ReportMetric(heapMB, "peak-heap-MB")
	b.ReportMetric(float64(requests.total.Load()), "requests")
}
