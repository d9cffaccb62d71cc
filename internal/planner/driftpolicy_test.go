package planner_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// driftInput: a Namespace whose drift policy is merge with a group in it;
// a group in the default namespace; a network whose manifests set DNS
// servers Azure does not hold yet.
func driftInput(groupTags string) string {
	return `apiVersion: v1
kind: Namespace
metadata:
  name: merged
  annotations:
    azk.azkcli.io/drift: merge
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg-ns
  namespace: merged
spec:
  location: westus2
  tags: {env: dev}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg-drift
spec:
  location: westus2
  tags: ` + groupTags + `
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet-dns
spec:
  location: westus2
  owner: {name: rg-drift}
  addressSpace: {addressPrefixes: [10.0.0.0/16]}
  dhcpOptions: {dnsServers: [10.0.0.9]}
`
}

const rgDrift = "/subscriptions/" + testSub + "/resourceGroups/rg-drift"

func seedDrift(t *testing.T) *testAzure {
	t.Helper()
	az := startAzure(t, emulator.Faults{})
	az.Put(t, "/subscriptions/"+testSub+"/resourceGroups/rg-ns", "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev", "owner": "portal"}})
	az.Put(t, rgDrift, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev", "cost": "1", "owner": "portal"}})
	az.Put(t, rgDrift+"/providers/Microsoft.Network/virtualNetworks/vnet-dns", "2020-11-01", map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.1.0.0/16"}}}})
	return az
}

func writeInput(t *testing.T, docs string) *graph.Graph {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stack.yaml")
	if err := os.WriteFile(path, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadScenario(t, path)
}

func planWith(t *testing.T, az *testAzure, g *graph.Graph, opts planner.Options) map[string]*planner.Resource {
	t.Helper()
	opts.Reader = az.Client
	p, diags := planner.Make(context.Background(), g, opts)
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	out := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		out[r.Name] = r
	}
	return out
}

func paths[T any](items []T, path func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, path(it))
	}
	sort.Strings(out)
	return out
}

func changePath(c planner.Change) string   { return c.Path }
func valuePath(v planner.PathValue) string { return v.Path }

// The drift policy comes from the resource's annotation, else its
// Namespace's, else --drift-policy, else enforce; each says where from.
func TestDriftPolicyResolution(t *testing.T) {
	az := seedDrift(t)
	g := writeInput(t, driftInput("{env: dev, cost: \"1\"}"))
	byName := planWith(t, az, g, planner.Options{DriftPolicy: "reflect"})
	for name, want := range map[string]planner.Policy{
		"rg-ns":    {Value: "merge", Source: "annotation azk.azkcli.io/drift on Namespace merged"},
		"rg-drift": {Value: "reflect", Source: planner.DriftSourceFlag},
	} {
		if got := byName[name].DriftPolicy; got == nil || *got != want {
			t.Errorf("%s: driftPolicy %+v, want %+v", name, got, want)
		}
	}
	byName = planWith(t, az, g, planner.Options{})
	if got := byName["rg-drift"].DriftPolicy; got == nil || *got != (planner.Policy{Value: "enforce", Source: "default"}) {
		t.Errorf("rg-drift: driftPolicy %+v, want enforce by default", got)
	}
	if _, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, DriftPolicy: "enfroce"}); !diags.HasErrors() ||
		!strings.Contains(diags.Err().Error(), `--drift-policy: unknown drift policy "enfroce": use merge, enforce or reflect (did you mean "enforce"?)`) {
		t.Errorf("--drift-policy enfroce: %v", diags.Err())
	}
}

// Under merge a tag Azure holds and the manifests lack is kept, not
// removed; under enforce it is removed. In a three-way plan a tag this
// change removed from the manifests is removed under merge too.
func TestDriftPolicyMergeKeepsAndThreeWayRemoves(t *testing.T) {
	az := seedDrift(t)
	head := writeInput(t, driftInput("{env: prod}"))
	enforce := planWith(t, az, head, planner.Options{})["rg-drift"]
	if got := paths(enforce.Changes, changePath); !reflect.DeepEqual(got, []string{"tags.cost", "tags.env", "tags.owner"}) {
		t.Errorf("enforce: changes %v, want env changed, cost and owner removed", got)
	}
	merge := planWith(t, az, head, planner.Options{DriftPolicy: "merge"})["rg-drift"]
	if got := paths(merge.Changes, changePath); !reflect.DeepEqual(got, []string{"tags.env"}) {
		t.Errorf("merge: changes %v, want only env", got)
	}
	if got := paths(merge.Kept, valuePath); !reflect.DeepEqual(got, []string{"tags.cost", "tags.owner"}) {
		t.Errorf("merge: kept %v, want cost and owner", got)
	}
	if tags := merge.Desired["tags"].(map[string]any); tags["owner"] != "portal" || tags["cost"] != "1" || tags["env"] != "prod" {
		t.Errorf("merge: desired tags %v", tags)
	}
	// The body built again at apply carries what the plan merged in.
	rebuilt := planner.DeepCopy(enforce.Desired).(map[string]any)
	merge.CarryAzure(rebuilt)
	if !reflect.DeepEqual(rebuilt, merge.Desired) {
		t.Errorf("CarryAzure: %v, want the plan's body %v", rebuilt, merge.Desired)
	}

	base := writeInput(t, driftInput("{env: dev, cost: \"1\"}"))
	threeWay := planWith(t, az, head, planner.Options{DriftPolicy: "merge", Base: base, Inputs: planner.Inputs{Base: "base"}})["rg-drift"]
	if got := paths(threeWay.Changes, changePath); !reflect.DeepEqual(got, []string{"tags.cost", "tags.env"}) {
		t.Errorf("merge --base: changes %v, want env changed and cost removed (this change removed it)", got)
	}
	if got := paths(threeWay.Kept, valuePath); !reflect.DeepEqual(got, []string{"tags.owner"}) {
		t.Errorf("merge --base: kept %v, want owner only", got)
	}
}

// Under reflect every difference Azure holds is kept and listed, except a
// property Azure's object lacks (ARM may not return it: it is sent) and,
// in a three-way plan, what this change sets.
func TestDriftPolicyReflect(t *testing.T) {
	az := seedDrift(t)
	head := writeInput(t, driftInput("{env: prod}"))
	byName := planWith(t, az, head, planner.Options{DriftPolicy: "reflect"})
	rg := byName["rg-drift"]
	if rg.Action != planner.ActionNoChange || len(rg.Changes) != 0 {
		t.Errorf("rg-drift: %s with %v, want no-change: every difference reflected", rg.Action, rg.Changes)
	}
	if got := paths(rg.Reflected, changePath); !reflect.DeepEqual(got, []string{"tags.cost", "tags.env", "tags.owner"}) {
		t.Errorf("rg-drift: reflected %v", got)
	}
	if env := rg.Reflected[1]; env.Before != "dev" || env.After != "prod" {
		t.Errorf("tags.env reflected %+v, want Azure's dev over the manifests' prod", env)
	}
	vnet := byName["vnet-dns"]
	if got := paths(vnet.Changes, changePath); !reflect.DeepEqual(got, []string{"properties.dhcpOptions"}) {
		t.Errorf("vnet-dns: changes %v, want the DNS servers Azure lacks sent", got)
	}
	// Azure's default enableDdosProtection: false is reflected too: what
	// Azure holds that the manifests do not set.
	if got := paths(vnet.Reflected, changePath); !reflect.DeepEqual(got, []string{"properties.addressSpace.addressPrefixes", "properties.enableDdosProtection"}) {
		t.Errorf("vnet-dns: reflected %v, want the prefix and Azure's enableDdosProtection", got)
	}
	if !hasCode(vnet.OperatorDiffers, planner.OperatorEnforces) {
		t.Errorf("vnet-dns: operatorDiffers %+v lacks %s", vnet.OperatorDiffers, planner.OperatorEnforces)
	}

	base := writeInput(t, driftInput("{env: dev}"))
	rg = planWith(t, az, head, planner.Options{DriftPolicy: "reflect", Base: base, Inputs: planner.Inputs{Base: "base"}})["rg-drift"]
	if got := paths(rg.Changes, changePath); !reflect.DeepEqual(got, []string{"tags.env"}) || rg.Changes[0].Origin != planner.OriginChange {
		t.Errorf("reflect --base: changes %+v, want env, this change's", rg.Changes)
	}
	if got := paths(rg.Reflected, changePath); !reflect.DeepEqual(got, []string{"tags.cost", "tags.owner"}) {
		t.Errorf("reflect --base: reflected %v", got)
	}
}

func hasCode(ds []planner.OperatorDifference, code planner.OperatorDifferenceCode) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}
