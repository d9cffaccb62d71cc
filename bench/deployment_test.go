package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// shape2000 is the reference graph at twice the size: 2,000 resources in
// one resource group, more than two templates' worth (ARM takes 800
// resources per template).
var shape2000 = Shape{Size: 2000, Depth: 6, FanIn: 2, Seed: 1, Types: shape1000.Types}

// BenchmarkDeploymentEngine applies the 2,000-resource graph through ARM
// deployments (azk apply --engine deployment) and, for comparison, with the
// direct engine at --parallelism 10 (the default) and 100. It reports the
// makespan, the top-level templates and the nested deployments they hold.
//
//	go test ./bench -run '^$' -bench DeploymentEngine -benchtime 1x -timeout 30m
func BenchmarkDeploymentEngine(b *testing.B) {
	b.Run(fmt.Sprintf("resources=%d/engine=deployment", shape2000.Size), func(b *testing.B) {
		for range b.N {
			measureEngine(b, shape2000, 0)
		}
	})
	for _, parallelism := range []int{10, 100} {
		b.Run(fmt.Sprintf("resources=%d/engine=direct/parallelism=%d", shape2000.Size, parallelism), func(b *testing.B) {
			for range b.N {
				measureEngine(b, shape2000, parallelism)
			}
		})
	}
}

// measureEngine applies the shape through deployments (parallelism 0) or
// directly at the given parallelism.
func measureEngine(b *testing.B, shape Shape, parallelism int) {
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
		Parallelism: max(parallelism, arm.DefaultParallelism), PollFrequency: 50 * time.Millisecond,
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
	var set *deployment.Set
	if parallelism == 0 {
		if set, err = deployment.Build(&planner.Plan{Resources: g.Resources}, deployment.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	b.StartTimer()
	began := time.Now()
	var rep *applier.Report
	if set != nil {
		rep, _ = deployment.Apply(ctx, &planner.Plan{Resources: g.Resources}, set, deployment.RunOptions{Client: client, Prefix: "bench"})
	} else {
		rep = applier.Apply(ctx, g.Resources, applier.Options{Client: client, Parallelism: parallelism})
	}
	makespan := time.Since(began)
	b.StopTimer()
	if rep.Failed() {
		b.Fatalf("apply failed: %s", rep.Summary())
	}
	b.ReportMetric(makespan.Seconds(), "makespan-s")
	b.ReportMetric(g.CriticalPath.Seconds(), "critical-path-s")
	if set != nil {
		nested := 0
		for _, t := range set.Templates {
			data, err := t.JSON()
			if err != nil {
				b.Fatal(err)
			}
			nested += strings.Count(string(data), `"type": "Microsoft.Resources/deployments"`)
		}
		b.ReportMetric(float64(len(set.Templates)), "templates")
		b.ReportMetric(float64(nested), "nested-deployments")
	}
}
