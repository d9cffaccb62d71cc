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

// shape2000 is 2,000 resources in one resource group, more than two
// templates' worth (ARM takes 800 resources per template), in chains 6 deep,
// each waiting on 2 of the layer before. Durations are whole seconds
// because ARM's Retry-After, which the emulator sends and azk honours, has a
// resolution of one second.
var shape2000 = Shape{
	Size: 2000, Depth: 6, FanIn: 2, Seed: 1,
	Types: []Type{
		{ARMType: "Microsoft.ManagedIdentity/userAssignedIdentities", APIVersion: "2023-01-31", Duration: 1 * time.Second, Weight: 6},
		{ARMType: "Microsoft.Network/networkSecurityGroups", APIVersion: "2020-11-01", Duration: 2 * time.Second, Weight: 3},
		{ARMType: "Microsoft.Storage/storageAccounts", APIVersion: "2023-01-01", Duration: 3 * time.Second, Weight: 1},
	},
}

// BenchmarkDeploymentEngine applies the 2,000-resource graph through ARM
// deployments (azk apply --engine deployment) and, for comparison, with the
// direct engine at its default (no bound on operations, ARM's rate budget)
// and at --parallelism 10. It reports the makespan, the top-level templates
// and the nested deployments they hold.
//
//	go test ./bench -run '^$' -bench DeploymentEngine -benchtime 1x -timeout 30m
func BenchmarkDeploymentEngine(b *testing.B) {
	b.Run(fmt.Sprintf("resources=%d/engine=deployment", shape2000.Size), func(b *testing.B) {
		for range b.N {
			measureEngine(b, shape2000, true, 0)
		}
	})
	for _, parallelism := range []int{0, 10} {
		name := fmt.Sprintf("resources=%d/engine=direct/parallelism=%d", shape2000.Size, parallelism)
		if parallelism == 0 {
			name = fmt.Sprintf("resources=%d/engine=direct/default", shape2000.Size)
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				measureEngine(b, shape2000, false, parallelism)
			}
		})
	}
}

// measureEngine applies the shape through deployments, or directly with at
// most parallelism operations at once (0: no bound).
func measureEngine(b *testing.B, shape Shape, deployments bool, parallelism int) {
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
	var set *deployment.Set
	if deployments {
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
