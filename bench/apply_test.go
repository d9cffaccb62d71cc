package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
)

const subscription = "00000000-0000-0000-0000-000000000000"

// shape1000 is the reference graph: 1,000 resources, chains 6 deep, each
// waiting on 2 of the layer before. Durations are whole seconds because ARM's
// Retry-After (which the emulator sends and azk honours) has a resolution of
// one second: the client then polls once, when the operation is done.
var shape1000 = Shape{
	Size: 1000, Depth: 6, FanIn: 2, Seed: 1,
	Types: []Type{
		{ARMType: "Microsoft.ManagedIdentity/userAssignedIdentities", APIVersion: "2023-01-31", Duration: 1 * time.Second, Weight: 6},
		{ARMType: "Microsoft.Network/networkSecurityGroups", APIVersion: "2020-11-01", Duration: 2 * time.Second, Weight: 3},
		{ARMType: "Microsoft.Storage/storageAccounts", APIVersion: "2023-01-01", Duration: 3 * time.Second, Weight: 1},
	},
}

// BenchmarkApply applies the reference graph at --parallelism 100 and at
// Terraform's default of 10, and reports the makespan against the larger of
// the two lower bounds (critical path, total work / parallelism), plus the
// peak heap of the whole process (emulator included).
//
//	go test ./bench -run '^$' -bench Apply -benchtime 1x
func BenchmarkApply(b *testing.B) {
	for _, parallelism := range []int{100, 10} {
		b.Run(fmt.Sprintf("resources=%d/parallelism=%d", shape1000.Size, parallelism), func(b *testing.B) {
			for range b.N {
				measure(b, shape1000, parallelism)
			}
		})
	}
}

func measure(b *testing.B, shape Shape, parallelism int) {
	b.StopTimer()
	rg := "/subscriptions/" + subscription + "/resourceGroups/bench"
	g := Build(shape, rg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{LRO: g.LRO}, "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	client, err := arm.New(arm.Options{
		Subscription: subscription, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential,
		Parallelism: parallelism, PollFrequency: 50 * time.Millisecond,
	})
	if err != nil {
		b.Fatal(err)
	}
	op, err := client.Put(ctx, rg, "2020-06-01", map[string]any{"location": "westus2"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := op.Wait(ctx); err != nil {
		b.Fatal(err)
	}

	runtime.GC()
	peak := sampleHeap()
	b.StartTimer()
	began := time.Now()
	rep := applier.Apply(ctx, g.Resources, applier.Options{Client: client, Parallelism: parallelism})
	makespan := time.Since(began)
	b.StopTimer()
	heap := peak()
	if rep.Failed() {
		b.Fatalf("apply failed: %s", rep.Summary())
	}
	perSlot := g.Work / time.Duration(parallelism)
	bound := max(g.CriticalPath, perSlot)
	b.ReportMetric(makespan.Seconds(), "makespan-s")
	b.ReportMetric(g.CriticalPath.Seconds(), "critical-path-s")
	b.ReportMetric(perSlot.Seconds(), "work/parallelism-s")
	b.ReportMetric(makespan.Seconds()/bound.Seconds(), "x-bound")
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
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
