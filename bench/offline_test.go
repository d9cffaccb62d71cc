package bench

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// BenchmarkOffline100k measures the offline path at 100,000 resources:
// load, validate and graph of the corpus samples that resolve on their own,
// replicated into namespaces with a resource group each, in one file (as
// BenchmarkLoadValidateGraph10k in internal/graph, ten times over). It
// reports the seconds, the peak heap (in use, and the goroutines' stacks)
// and, with -benchmem, what was allocated.
//
//	go test ./bench -run '^$' -bench Offline100k -benchtime 1x -benchmem
func BenchmarkOffline100k(b *testing.B) {
	file := filepath.Join(b.TempDir(), "100k.yaml")
	n, err := corpus.WriteReplicatedSamples(corpus.Dir(b), file, 100000)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var elapsed time.Duration
	var heap uint64
	for range b.N {
		runtime.GC()
		peak := sampleHeap()
		b.StartTimer()
		began := time.Now()
		res, diags := loader.Load(loader.Options{Paths: []string{file}})
		g, more := graph.Build(res, graph.Options{Subscription: corpus.Subscription})
		elapsed = time.Since(began)
		b.StopTimer()
		heap = peak()
		if diags.HasErrors() || more.HasErrors() || len(g.Nodes) != n {
			b.Fatalf("%d nodes of %d: %v %v", len(g.Nodes), n, diags.Err(), more.Err())
		}
		runtime.KeepAlive(g)
	}
	b.ReportMetric(elapsed.Seconds(), "seconds")
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(n), "resources")
}
