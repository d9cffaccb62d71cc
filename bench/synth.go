package bench

// Synthetic dependency graphs for BenchmarkDeploymentEngine: the in-process
// emulator's long-running-operation rules make each resource type take its
// duration.

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// Type is a simulated resource type: every write of it takes Duration.
type Type struct {
	ARMType    string // e.g. "Microsoft.Network/networkSecurityGroups"
	APIVersion string
	Duration   time.Duration
	// Weight is the type's share of the resources, relative to the others.
	Weight int
}

// Shape describes a synthetic graph: Size resources in Depth layers; each
// resource past the first layer depends on FanIn resources of the layer before
// (so the longest dependency chain has Depth resources).
type Shape struct {
	Size, Depth, FanIn int
	Types              []Type
	Seed               int64
}

// Graph is a synthetic plan and what bounds its makespan.
type Graph struct {
	Resources []*planner.Resource
	// CriticalPath is the longest chain of operation durations: no schedule
	// finishes sooner.
	CriticalPath time.Duration
	// Work is the sum of all operation durations; divided by the parallelism
	// it is the other lower bound.
	Work time.Duration
	// LRO are the emulator rules that make each type take its duration.
	LRO []emulator.LRORule
}

// Build makes the graph: every resource lives in resourceGroup (an ARM ID that
// must exist) and is a create.
func Build(s Shape, resourceGroup string) *Graph {
	rng := rand.New(rand.NewSource(s.Seed))
	total := 0
	for _, t := range s.Types {
		total += t.Weight
	}
	g := &Graph{}
	for _, t := range s.Types {
		g.LRO = append(g.LRO, emulator.LRORule{Type: t.ARMType, Write: t.Duration})
	}
	finish := map[string]time.Duration{} // earliest finish with unbounded parallelism
	var layers [][]*planner.Resource
	for i := range s.Size {
		layer := i * s.Depth / s.Size
		if layer == len(layers) {
			layers = append(layers, nil)
		}
		t := pick(s.Types, rng.Intn(total))
		id := fmt.Sprintf("%s/providers/%s/r%05d", resourceGroup, t.ARMType, i)
		r := &planner.Resource{
			Address:    fmt.Sprintf("bench/%s/r%05d", t.ARMType, i),
			ARMID:      id,
			APIVersion: t.APIVersion,
			Action:     planner.ActionCreate,
			Request:    &convert.Request{Method: "PUT", URL: id + "?api-version=" + t.APIVersion, Body: map[string]any{"location": "westus2"}},
		}
		var start time.Duration
		if layer > 0 {
			prev := layers[layer-1]
			for _, k := range rng.Perm(len(prev))[:min(s.FanIn, len(prev))] {
				r.DependsOn = append(r.DependsOn, prev[k].Address)
				start = max(start, finish[prev[k].Address])
			}
		}
		finish[r.Address] = start + t.Duration
		g.CriticalPath = max(g.CriticalPath, finish[r.Address])
		g.Work += t.Duration
		layers[layer] = append(layers[layer], r)
		g.Resources = append(g.Resources, r)
	}
	return g
}

func pick(types []Type, n int) Type {
	for _, t := range types {
		if n < t.Weight {
			return t
		}
		n -= t.Weight
	}
	return types[len(types)-1]
}
