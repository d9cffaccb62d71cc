package planner

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
)

// countingTransport counts the requests a plan sends.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// BenchmarkPlanExisting plans 2,000 resources that all exist (a resource
// group and 1,999 identities in it) against the emulator answering every
// request after 20 ms, at the default parallelism. It reports the wall time
// against the ideal requests × latency / parallelism, and the peak heap.
func BenchmarkPlanExisting(b *testing.B) {
	const (
		resources = 2000
		latency   = 20 * time.Millisecond
	)
	az := startAzure(b, emulator.Faults{})
	var doc strings.Builder
	doc.WriteString("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg-bench\nspec:\n  location: westus2\n")
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg-bench"
	az.put(b, rg, "2020-06-01", map[string]any{"location": "westus2"})
	for i := 1; i < resources; i++ {
		name := fmt.Sprintf("id-%04d", i)
		fmt.Fprintf(&doc, "---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: %s\nspec:\n  location: westus2\n  owner:\n    name: rg-bench\n  tags:\n    index: %q\n", name, name)
		az.put(b, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+name, "2023-01-31",
			map[string]any{"location": "westus2", "tags": map[string]any{"index": name}})
	}
	file := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(file, []byte(doc.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	g := loadScenario(b, file)
	az.run.Server.SetFaults(emulator.Faults{Latency: latency})

	counter := &countingTransport{next: http.DefaultTransport}
	client, err := arm.New(arm.Options{
		Credential: arm.EmulatorCredential, Subscription: testSub, Endpoint: az.run.URL, AllowHTTP: true,
		Transport: &http.Client{Transport: counter},
	})
	if err != nil {
		b.Fatal(err)
	}
	peak := watchHeap()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		p, diags := Make(context.Background(), g, Options{Reader: client})
		if diags.HasErrors() {
			b.Fatal(diags.Err())
		}
		if s := p.Summary(); s.NoChange != resources {
			b.Fatalf("want %d unchanged: %s", resources, p.SummaryLine())
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	b.StopTimer()
	requests := counter.n.Load() / int64(b.N)
	ideal := time.Duration(requests) * latency / arm.DefaultParallelism
	b.ReportMetric(float64(requests), "requests/op")
	b.ReportMetric(elapsed.Seconds()/ideal.Seconds(), "x-ideal")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// watchHeap samples the heap in use until the returned function is called,
// which reports the largest sample.
func watchHeap() func() uint64 {
	var (
		mu   sync.Mutex
		max  uint64
		done = make(chan struct{})
	)
	go func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			max = maxOf(max, ms.HeapInuse)
			mu.Unlock()
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() uint64 {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return max
	}
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
