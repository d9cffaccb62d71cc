package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

const sub = "00000000-0000-0000-0000-000000000000"

func group(name string) string { return "/subscriptions/" + sub + "/resourceGroups/" + name }

// identity is a plan resource creating a user-assigned identity in group.
func identity(rg, name string, deps ...*planner.Resource) *planner.Resource {
	id := group(rg) + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
	r := &planner.Resource{
		Address: "identity/" + rg + "/" + name, Name: name, ARMID: id, APIVersion: "2023-01-31", Action: planner.ActionCreate,
		Desired: map[string]any{"name": name, "location": "westus2", "tags": map[string]any{"n": name}},
	}
	for _, d := range deps {
		r.DependsOn = append(r.DependsOn, d.Address)
	}
	return r
}

func resourceGroup(name string) *planner.Resource {
	return &planner.Resource{Address: "rg/" + name, Name: name, ARMID: group(name), APIVersion: "2020-06-01", Action: planner.ActionCreate,
		Desired: map[string]any{"name": name, "location": "westus2"}}
}

// chain is n identities in rg, each depending on the one before.
func chain(rg string, n int, first ...*planner.Resource) []*planner.Resource {
	var out []*planner.Resource
	prev := first
	for i := range n {
		r := identity(rg, fmt.Sprintf("id%03d", i), prev...)
		out = append(out, r)
		prev = []*planner.Resource{r}
	}
	return out
}

func decode(t *testing.T, tmpl *Template) map[string]any {
	t.Helper()
	data, err := tmpl.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// deployed counts the plan resources a template document deploys, nested included.
func deployed(t *testing.T, doc map[string]any) int {
	t.Helper()
	n := 0
	for i, r := range testkit.At[[]any](t, doc, "resources") {
		if testkit.At[map[string]any](t, r)["type"] == "Microsoft.Resources/deployments" {
			n += deployed(t, testkit.At[map[string]any](t, doc, "resources", i, "properties", "template"))
			continue
		}
		n++
	}
	return n
}

func TestSplitsAtARMsLimits(t *testing.T) {
	p := &planner.Plan{Resources: chain("rg1", 25)}
	set, err := Build(p, Options{MaxResources: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) != 1 {
		t.Fatalf("%d templates, want one with nested deployments", len(set.Templates))
	}
	doc := decode(t, set.Templates[0])
	if set.Templates[0].Scope != (Scope{Subscription: sub, ResourceGroup: "rg1"}) || !strings.Contains(testkit.At[string](t, doc, "$schema"), "/deploymentTemplate.json") {
		t.Errorf("scope %v, schema %v: all its resources are in rg1", set.Templates[0].Scope, doc["$schema"])
	}
	top := testkit.At[[]any](t, doc, "resources")
	if len(top) > 10 || deployed(t, doc) != 25 {
		t.Fatalf("%d top-level resources deploying %d: want at most 10, deploying 25", len(top), deployed(t, doc))
	}
	var nested []map[string]any
	for _, r := range top {
		if m := testkit.At[map[string]any](t, r); m["type"] == "Microsoft.Resources/deployments" {
			nested = append(nested, m)
		}
	}
	if len(nested) < 2 {
		t.Fatalf("%d nested deployments", len(nested))
	}
	if deps := fmt.Sprint(nested[1]["dependsOn"]); deps != "[[resourceId('Microsoft.Resources/deployments', concat(deployment().name, '-1'))]]" {
		t.Errorf("the second chunk waits for %s", deps)
	}
	// A byte budget below the three chunks makes more top-level templates, in order.
	set, err = Build(p, Options{MaxResources: 10, MaxBytes: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) < 2 {
		t.Fatalf("%d templates under a 4 kB budget", len(set.Templates))
	}
	total := 0
	for i, tmpl := range set.Templates {
		total += deployed(t, decode(t, tmpl))
		if i > 0 && (len(tmpl.After) != 1 || tmpl.After[0] != set.Templates[i-1]) {
			t.Errorf("template %d waits for %v, want the one before", i, tmpl.After)
		}
	}
	if total != 25 {
		t.Errorf("the templates deploy %d resources, want 25", total)
	}
}

// TestScopesInterleave makes a resource in rg1 wait for one in rg2 that
// waits for another in rg1: three nested deployments in a chain, no cycle,
// under one subscription template that also creates the groups.
func TestScopesInterleave(t *testing.T) {
	rg1, rg2 := resourceGroup("rg1"), resourceGroup("rg2")
	a := identity("rg1", "a", rg1)
	b := identity("rg2", "b", rg2, a)
	c := identity("rg1", "c", rg1, b)
	set, err := Build(&planner.Plan{Resources: []*planner.Resource{rg1, rg2, a, b, c}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) != 1 || set.Templates[0].Scope != (Scope{Subscription: sub}) {
		t.Fatalf("templates %v", set.Templates)
	}
	doc := decode(t, set.Templates[0])
	var nested []map[string]any
	for _, r := range testkit.At[[]any](t, doc, "resources") {
		if m := testkit.At[map[string]any](t, r); m["type"] == "Microsoft.Resources/deployments" {
			nested = append(nested, m)
		}
	}
	if len(nested) != 3 {
		t.Fatalf("%d nested deployments, want a, b, c apart", len(nested))
	}
	if deps := fmt.Sprint(nested[2]["dependsOn"]); !strings.Contains(deps, "resourceId('rg2', 'Microsoft.Resources/deployments', concat(deployment().name, '-3'))") {
		t.Errorf("c's deployment waits for %s, want b's", deps)
	}
	runInEmulator(t, set, &planner.Plan{Resources: []*planner.Resource{rg1, rg2, a, b, c}}, 5)
}

// TestSplitSetDeploys runs a set split into several templates and nested
// deployments in the emulator: everything is created, in order.
func TestSplitSetDeploys(t *testing.T) {
	rg := resourceGroup("rg1")
	resources := append([]*planner.Resource{rg}, chain("rg1", 30, rg)...)
	p := &planner.Plan{Resources: resources}
	set, err := Build(p, Options{MaxResources: 8, MaxBytes: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) < 2 {
		t.Fatalf("%d templates", len(set.Templates))
	}
	runInEmulator(t, set, p, 31)
}

func runInEmulator(t *testing.T, set *Set, p *planner.Plan, want int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	client, err := arm.New(arm.Options{Subscription: sub, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential, PollFrequency: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := Apply(ctx, p, set, RunOptions{Client: client, Prefix: "test", Poll: 20 * time.Millisecond})
	if rep.Failed() || rep.Count(applier.OutcomeCreated) != want {
		var b strings.Builder
		rep.WriteText(&b)
		t.Fatalf("apply: %s", b.String())
	}
}

func TestBodiesAsTemplatesHold(t *testing.T) {
	r := identity("rg1", "a")
	r.Desired["properties"] = map[string]any{"expr": "[not an expression]", "open": "[starts only", "list": []any{"[x]"}}
	set, err := Build(&planner.Plan{Resources: []*planner.Resource{r}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	props := testkit.At[map[string]any](t, decode(t, set.Templates[0]), "resources", 0, "properties")
	if props["expr"] != "[[not an expression]" || props["open"] != "[starts only" || testkit.At[string](t, props, "list", 0) != "[[x]" {
		t.Errorf("literals that look like expressions: %v", props)
	}
}

func TestRefusesWhatATemplateCannotCarry(t *testing.T) {
	named := identity("rg1", "named")
	named.ARMID = ""
	keyword := identity("rg1", "keyword")
	keyword.Desired["dependsOn"] = []any{}
	late := identity("rg1", "late")
	late.Desired["properties"] = map[string]any{"principalId": convert.Unknown{Reason: "a role name resolved against Azure"}}
	for _, c := range []struct {
		r    *planner.Resource
		want string
	}{
		{named, "its Azure name is known only after another resource is applied"},
		{keyword, `the body's top-level "dependsOn" is a template keyword`},
		{late, "properties.principalId is known only after apply (a role name resolved against Azure), and a template cannot compute it"},
	} {
		_, err := Build(&planner.Plan{Resources: []*planner.Resource{c.r}}, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.r.Address, err, c.want)
		}
	}
}

// TestLeavesOutWhatTheDeploymentDoesNotWrite: unchanged and skipped
// resources are not in the templates (unless asked, for a stack); a write
// waiting for a blocked resource is held back.
func TestLeavesOutWhatTheDeploymentDoesNotWrite(t *testing.T) {
	same := identity("rg1", "same")
	same.Action = planner.ActionNoChange
	skipped := identity("rg1", "skipped")
	skipped.Action = planner.ActionSkip
	blocked := identity("rg1", "blocked")
	blocked.Action = planner.ActionBlocked
	waits := identity("rg1", "waits", blocked)
	changed := identity("rg1", "changed", same)
	changed.Action = planner.ActionUpdate
	p := &planner.Plan{Resources: []*planner.Resource{same, skipped, blocked, waits, changed}}
	set, err := Build(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := addresses(set); got != "identity/rg1/changed" {
		t.Errorf("the template carries %s, want only the update", got)
	}
	if set.Held[waits.Address] != blocked.Address {
		t.Errorf("held %v", set.Held)
	}
	set, err = Build(p, Options{Unchanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := addresses(set); got != "identity/rg1/same identity/rg1/changed" {
		t.Errorf("for a stack the template carries %s", got)
	}
}

func addresses(set *Set) string {
	var out []string
	for _, tmpl := range set.Templates {
		for _, r := range tmpl.Resources {
			out = append(out, r.Address)
		}
	}
	return strings.Join(out, " ")
}
