package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// BenchmarkLoadValidateGraph10k measures load + validate + graph of 10,000
// resources: the corpus samples that resolve on their own, replicated into
// namespaces with a resource group each, in one multi-document file.
func BenchmarkLoadValidateGraph10k(b *testing.B) {
	file := filepath.Join(b.TempDir(), "10k.yaml")
	n, err := corpus.WriteReplicatedSamples(corpus.Dir(b), file, 10000)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, diags := loader.Load(loader.Options{Paths: []string{file}})
		g, more := graph.Build(res, graph.Options{Subscription: corpus.Subscription})
		if diags.HasErrors() || more.HasErrors() || len(g.Nodes) != n {
			b.Fatalf("%d nodes of %d: %v %v", len(g.Nodes), n, diags.Err(), more.Err())
		}
	}
	b.ReportMetric(float64(n), "resources")
}

// TestReplicatedSamplesResolve keeps the benchmark's input honest: it must
// hold the resources it claims, all valid.
func TestReplicatedSamplesResolve(t *testing.T) {
	file := filepath.Join(t.TempDir(), "1k.yaml")
	n, err := corpus.WriteReplicatedSamples(corpus.Dir(t), file, 1000)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	g, more := graph.Build(res, graph.Options{Subscription: corpus.Subscription})
	if diags.HasErrors() || more.HasErrors() {
		t.Fatal(diags.Err(), more.Err())
	}
	if len(g.Nodes) != n || n < 1000 {
		t.Fatalf("%d nodes, %d written", len(g.Nodes), n)
	}
	if got := strings.Count(string(data), "\nkind: ResourceGroup"); got < 2 {
		t.Fatalf("%s resource groups", fmt.Sprint(got))
	}
}
