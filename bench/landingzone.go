// Package bench measures azk plan and apply on realistic inputs, written as
// ASO manifests, against the in-process emulator throttling as ARM does and
// running each type's operations as long as the corpus recordings show,
// with time compressed. See landingzone_test.go.
package bench

import (
	"bytes"
	"embed"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/registry"
)

const subscription = "00000000-0000-0000-0000-000000000000"

//go:embed testdata/*.tmpl
var templates embed.FS

// apimCreate is how long creating an API Management service takes: no
// recording in the corpus shows one; Microsoft documents 30 to 40 minutes
// for a Developer tier service ("Create an API Management instance").
const apimCreate = 35 * time.Minute

// unrecorded are emulator rules for the types the benchmarks use that no
// recording times.
var unrecorded = []emulator.LRORule{{Type: "Microsoft.ApiManagement/service", Write: apimCreate}}

// Input is a landing zone written as manifests and resolved.
type Input struct {
	Dir   string
	Graph *graph.Graph
}

// endpoint is a private endpoint's target: a storage account and a service.
type endpoint struct {
	Account int
	Group   string
}

// LandingZone writes zones resource groups of 48 resources each (a network,
// subnets, security groups and rules, route tables and routes, private DNS
// zones and links, private endpoints, storage accounts and a Log Analytics
// workspace) into dir, and the long operations (AKS, PostgreSQL, Bastion,
// API Management) into the first longOps of them, then loads and resolves them.
func LandingZone(dir string, zones, longOps int) (*Input, error) {
	tmpl, err := templateSet()
	if err != nil {
		return nil, err
	}
	for z := range zones {
		data := zoneData(fmt.Sprintf("%02d", z), z)
		names := []string{"landingzone.yaml.tmpl"}
		if z < longOps {
			names = append(names, "longops.yaml.tmpl")
		}
		for _, name := range names {
			var b bytes.Buffer
			if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
				return nil, err
			}
			file := filepath.Join(dir, fmt.Sprintf("zone%02d-%s", z, strings.TrimSuffix(name, ".tmpl")))
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				return nil, err
			}
		}
	}
	res, diags := loader.Load(loader.Options{Paths: []string{dir}})
	g, more := graph.Build(res, graph.Options{Subscription: subscription})
	if err := append(diags, more...).Err(); err != nil {
		return nil, err
	}
	return &Input{Dir: dir, Graph: g}, nil
}

// Clock is time compression: everything that takes time in Azure (operations,
// Retry-After, the refill of ARM's buckets) runs Compression times faster.
type Clock struct{ Compression float64 }

// Compress turns a real-Azure duration into the benchmark's.
func (c Clock) Compress(d time.Duration) time.Duration {
	return time.Duration(float64(d) / c.Compression)
}

// Azure is a measured duration as it would be on Azure.
func (c Clock) Azure(d time.Duration) time.Duration {
	return time.Duration(float64(d) * c.Compression)
}

// Limits are ARM's default buckets, and the resource providers' counters
// the emulator keeps (Emulator with provider limits), refilled as the clock runs.
func (c Clock) Limits() arm.RateLimits {
	l := arm.DefaultRateLimits
	for _, r := range []*arm.RateLimit{&l.Reads, &l.Writes, &l.Deletes} {
		r.PerSecond *= c.Compression
	}
	l.Counters = map[string]arm.RateLimit{}
	for _, p := range (emulator.Faults{}).WithProviderLimits(c.Compression).ProviderLimits {
		l.Counters[p.Counter] = arm.RateLimit(p.Limit)
	}
	return l
}

// Emulator is the emulator options of a benchmark: ARM's throttling, the
// recorded operation durations and hints, on the clock.
func (c Clock) Emulator() emulator.Options {
	return emulator.Options{
		RecordedTiming: true, TimeCompression: c.Compression, LRO: unrecorded,
		Faults: emulator.Faults{}.WithARMLimits(c.Compression),
	}
}

// Client is azk's ARM client as the CLI makes it, on the clock: ARM's
// default buckets, the recorded durations, azk's default poll pace and
// retry bounds. parallelism is --parallelism (0: azk's default).
func (c Clock) Client(endpoint string, transport http.RoundTripper, parallelism int) (*arm.Client, error) {
	reg := registry.Default()
	return arm.New(arm.Options{
		Subscription: subscription, Endpoint: endpoint, AllowHTTP: true, Credential: arm.EmulatorCredential,
		Transport:   &http.Client{Transport: transport},
		Parallelism: parallelism,
		RateLimits:  c.Limits(),
		OperationDuration: func(method, armType string) time.Duration {
			d := reg.OperationDuration(method, armType)
			if d == 0 && method == http.MethodPut {
				d = ruleFor(armType)
			}
			return c.Compress(d)
		},
		PollFrequency: c.Compress(10 * time.Second),
		Retry:         arm.RetryOptions{Delay: c.Compress(time.Second), MaxDelay: c.Compress(time.Minute)},
	})
}

func ruleFor(armType string) time.Duration {
	for _, r := range unrecorded {
		if strings.EqualFold(r.Type, armType) {
			return r.Write
		}
	}
	return 0
}

// Bound is what no schedule of a plan's writes can beat, in Azure time:
// the longest chain of operations, and the time each subscription's buckets
// take to let its writes through (ARM's, and the counters of the resource
// providers that throttle them), and the reads that following the
// operations takes at least.
type Bound struct {
	CriticalPath, Writes, Reads, Providers time.Duration
	// WriteCount and ReadCount are the writes the plan needs and the fewest
	// reads that follow their operations to the end, over every subscription.
	WriteCount, ReadCount int
	// Subscriptions is how many subscriptions the writes go to.
	Subscriptions int
}

// Max is the bound.
func (b Bound) Max() time.Duration { return max(b.CriticalPath, b.Writes, b.Reads, b.Providers) }

// ApplyBound is the bound of applying the plan's resources.
func ApplyBound(resources []*planner.Resource) Bound {
	byAddress := map[string]*planner.Resource{}
	for _, r := range resources {
		byAddress[r.Address] = r
	}
	finish := map[string]time.Duration{}
	var end func(r *planner.Resource) time.Duration
	end = func(r *planner.Resource) time.Duration {
		if f, ok := finish[r.Address]; ok {
			return f
		}
		var start time.Duration
		for _, d := range r.DependsOn {
			if dr := byAddress[d]; dr != nil {
				start = max(start, end(dr))
			}
		}
		finish[r.Address] = start + durationOf(r)
		return finish[r.Address]
	}
	var b Bound
	writes, reads := map[string]int{}, map[string]int{}
	providers := map[string]int{} // by subscription and counter
	counters := emulator.Faults{}.WithProviderLimits(1).ProviderLimits
	for _, r := range resources {
		b.CriticalPath = max(b.CriticalPath, end(r))
		if !r.Writes() {
			continue
		}
		t, _ := armpath.Parse(r.ID())
		sub := strings.ToLower(t.Sub)
		writes[sub]++
		reads[sub] += fewestReads(r)
		for _, l := range counters {
			if !l.PerResource && l.Covers(http.MethodPut, t) {
				providers[sub+" "+l.Counter]++
				b.Providers = max(b.Providers, spend(providers[sub+" "+l.Counter], arm.RateLimit(l.Limit)))
			}
		}
	}
	l := arm.DefaultRateLimits
	for sub, n := range writes {
		b.WriteCount += n
		b.ReadCount += reads[sub]
		b.Writes = max(b.Writes, spend(n, l.Writes))
		b.Reads = max(b.Reads, spend(reads[sub], l.Reads))
	}
	b.Subscriptions = len(writes)
	return b
}

// spend is how long a bucket takes to let n requests through.
func spend(n int, l arm.RateLimit) time.Duration {
	return time.Duration(float64(max(n-l.Burst, 0)) / l.PerSecond * float64(time.Second))
}

// durationOf is how long the write of r lasts in the emulator (in Azure time).
func durationOf(r *planner.Resource) time.Duration {
	if !r.Writes() {
		return 0
	}
	if d := registry.Default().Duration(r.ARMType, registry.OpCreate); d > 0 {
		return d
	}
	return ruleFor(r.ARMType)
}

// fewestReads are the reads that following r's write takes at least: a
// poll after each Retry-After ARM gives, and one when the operation is
// expected to end if it stops giving them; and for an Azure-AsyncOperation
// the GET of the result.
func fewestReads(r *planner.Resource) int {
	t, ok := registry.Default().ARMType(r.ARMType)
	switch {
	case ok && t.CreateTiming != nil:
		n := 0
		for _, h := range t.CreateTiming.RetryAfter {
			if h == 0 {
				break
			}
			n++
		}
		if n < len(t.CreateTiming.RetryAfter) || n == 0 {
			n++
		}
		if t.Create != nil && t.Create.Async == "Azure-AsyncOperation" {
			n++
		}
		return n
	case ruleFor(r.ARMType) > 0:
		return 2 // one poll (the emulator hints the time left) and the result
	}
	return 0
}
