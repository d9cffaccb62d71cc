package applier_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

func TestApplyCreatesEveryResourceAfterItsDependencies(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "*", Write: 150 * time.Millisecond}}}, 10)
	g := load(t, quickstart)
	rec := &recorder{}
	rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, rec))
	if rep.Failed() {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("apply failed:\n%s", b.String())
	}
	if got, want := rep.Count(applier.OutcomeCreated), len(g.Nodes); got != want {
		t.Fatalf("created %d, want %d", got, want)
	}
	for _, n := range g.Nodes {
		if e.get(t, n.ID, n.Kind.APIVersion) == nil {
			t.Errorf("%s is not in the emulator after apply", n.ID)
		}
		started := rec.index(applier.EventStart, n.Address())
		for _, d := range n.DependsOn() {
			if ended := rec.index(applier.EventEnd, d.Address()); ended < 0 || ended > started {
				t.Errorf("%s started (event %d) before %s ended (event %d)", n.Address(), started, d.Address(), ended)
			}
		}
	}
	want := fmt.Sprintf("Apply complete! Resources: %d created, 0 updated, 0 failed.", len(g.Nodes))
	if rep.Summary() != want {
		t.Errorf("summary %q, want %q", rep.Summary(), want)
	}

	// Everything exists now: the plan of the same manifests is quiet, and
	// applying it writes nothing (e.apply checks no write is sent).
	again := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, &recorder{}))
	if again.Failed() || again.Count(applier.OutcomeUnchanged) != len(g.Nodes) {
		t.Fatalf("re-apply: %v", outcomes(again))
	}
}

func TestApplyRunsIndependentResourcesInParallelUpToTheLimit(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.ManagedIdentity/*", Write: 300 * time.Millisecond}}}, 10)
	var docs strings.Builder
	docs.WriteString("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: par\nspec:\n  location: westus2\n")
	for i := range 9 {
		docs.WriteString("---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id" + string(rune('a'+i)) + "\nspec:\n  location: westus2\n  owner:\n    name: par\n")
	}
	g := load(t, writeManifests(t, docs.String()))
	rec := &recorder{}
	var mu sync.Mutex
	running, peak := 0, 0
	opts := e.options(g, rec)
	opts.Parallelism = 3
	opts.Events = func(ev applier.Event) {
		mu.Lock()
		switch ev.Type {
		case applier.EventStart:
			running++
			peak = max(peak, running)
		case applier.EventEnd:
			running--
		}
		mu.Unlock()
		rec.record(ev)
	}
	began := time.Now()
	rep := e.apply(t, testkit.Context(t), e.decide(t, g), opts)
	elapsed := time.Since(began)
	if rep.Failed() {
		t.Fatalf("apply failed: %v", outcomes(rep))
	}
	if peak != 3 {
		t.Errorf("at most %d resources were in flight at once, want exactly --parallelism 3", peak)
	}
	// Nine 300 ms operations three at a time take three rounds, not nine.
	if elapsed > 2500*time.Millisecond {
		t.Errorf("apply took %s: the identities did not run in parallel", elapsed)
	}
}

// Adoption, the operator's way: under a reconcile-policy-if-exists other
// than manage, apply records the decided reconcile-policy in the manifest
// (manage for what it creates, the if-exists policy for what it finds), so
// that the next run does not take a created resource for a found one.
func TestApplyAdoptsUnderEachPolicyAndRecordsIt(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	ctx := testkit.Context(t)
	rg := "/subscriptions/" + subscription + "/resourceGroups/adopt"
	for _, id := range []string{rg, rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/managed", rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/detached", rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/skipped"} {
		version := "2023-01-31"
		if id == rg {
			version = "2021-04-01" // a resource group's own api-version, as ARM requires
		}
		op, err := e.client.Put(ctx, id, version, map[string]any{"location": "westus2", "tags": map[string]any{"owner": "portal"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	identity := func(name, ifExists string) string {
		return `---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: ` + name + `
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: ` + ifExists + `
spec:
  location: westus2
  owner: {name: adopt}
  tags: {owner: azk}
`
	}
	docs := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: adopt
spec:
  location: westus2
  tags: {owner: portal}
` + identity("managed", "manage") + identity("detached", "detach-on-delete") + identity("skipped", "skip") + identity("created", "skip")
	file := writeManifests(t, docs)
	g := load(t, file)
	resources := e.decide(t, g)
	rep := e.apply(t, ctx, resources, e.options(g, &recorder{}))
	got := outcomes(rep)
	const prefix = "managedidentity.azure.com/UserAssignedIdentity/default/"
	want := map[string]applier.Outcome{
		"resources.azure.com/ResourceGroup/default/adopt": applier.OutcomeUnchanged,
		prefix + "managed":  applier.OutcomeUpdated,
		prefix + "detached": applier.OutcomeUpdated,
		prefix + "skipped":  applier.OutcomeSkipped,
		prefix + "created":  applier.OutcomeCreated,
	}
	for addr, o := range want {
		if got[addr] != o {
			t.Errorf("%s: %s, want %s", addr, got[addr], o)
		}
	}
	tagOf := func(name string) any {
		body := e.get(t, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+name, "2023-01-31")
		if body == nil {
			return "(no such identity)"
		}
		owner, _ := armjson.Lookup(body, []string{"tags", "owner"})
		return owner
	}
	for name, want := range map[string]string{"managed": "azk", "detached": "azk", "skipped": "portal", "created": "azk"} {
		if got := tagOf(name); got != want {
			t.Errorf("%s: tag owner=%v after apply, want %s", name, got, want)
		}
	}
	if s := rep.Summary(); s != "Apply complete! Resources: 1 created, 2 updated, 0 failed." {
		t.Errorf("summary %q", s)
	}

	// The manifest now says what was decided (under if-exists manage,
	// the default, nothing needs recording); re-read, nothing is left to
	// record, the created identity is managed (its if-exists skip no longer
	// applies) and nothing changes.
	again := load(t, file)
	policies := map[string]string{}
	for _, n := range again.Nodes {
		a := n.Object.Node.GetAnnotations()
		if _, left := a[graph.AnnotationReconcilePolicyIfExists]; left && n.Object.Name != "managed" {
			t.Errorf("%s still has %s", n.Address(), graph.AnnotationReconcilePolicyIfExists)
		}
		policies[n.Object.Name] = a[graph.AnnotationReconcilePolicy]
	}
	if want := map[string]string{"adopt": "", "managed": "", "detached": "detach-on-delete", "skipped": "skip", "created": "manage"}; !maps.Equal(policies, want) {
		t.Errorf("recorded policies %v, want %v", policies, want)
	}
	for _, r := range e.decide(t, again) {
		if r.RecordPolicy != nil || r.Writes() {
			t.Errorf("second plan: %s %s, record %v", r.Address, r.Action, r.RecordPolicy)
		}
	}
}

func TestApplyUpdatesAndLeavesUnchangedAlone(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	ctx := testkit.Context(t)
	doc := func(tag string) string {
		return `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: upd
  annotations:
    serviceoperator.azure.com/reconcile-policy: manage
spec:
  location: westus2
  tags: {env: ` + tag + `}
`
	}
	g := load(t, writeManifests(t, doc("dev")))
	if rep := e.apply(t, ctx, e.decide(t, g), e.options(g, &recorder{})); rep.Count(applier.OutcomeCreated) != 1 {
		t.Fatalf("create: %v", outcomes(rep))
	}
	g = load(t, writeManifests(t, doc("prod")))
	rep := e.apply(t, ctx, e.decide(t, g), e.options(g, &recorder{}))
	if rep.Count(applier.OutcomeUpdated) != 1 || rep.Failed() {
		t.Fatalf("update: %v", outcomes(rep))
	}
	if tag := testkit.At[any](t, e.get(t, g.Nodes[0].ID, "2020-06-01"), "tags", "env"); tag != "prod" {
		t.Errorf("tag env=%v after update, want prod", tag)
	}
	etag := e.get(t, g.Nodes[0].ID, "2020-06-01")["etag"]
	resources := e.decide(t, g)
	if resources[0].Action != planner.ActionNoChange {
		t.Fatalf("after the update the plan is %s, want no-change", resources[0].Action)
	}
	rec := &recorder{}
	rep = e.apply(t, ctx, resources, e.options(g, rec))
	if rep.Count(applier.OutcomeUnchanged) != 1 || len(rec.all()) != 0 {
		t.Fatalf("no change: %v, events %v", outcomes(rep), rec.all())
	}
	if got := e.get(t, g.Nodes[0].ID, "2020-06-01")["etag"]; got != etag {
		t.Errorf("a no-change apply wrote the resource: etag %v -> %v", etag, got)
	}
}

func TestApplyFailureStopsDependentsOnlyAndReRunConverges(t *testing.T) {
	e := start(t, emulator.Options{
		LRO: []emulator.LRORule{{Type: "Microsoft.Network/*", Write: 200 * time.Millisecond}},
		Faults: emulator.Faults{Failures: []emulator.FailureRule{{
			Type: "Microsoft.Storage/storageAccounts", After: 50 * time.Millisecond, Code: "StorageAccountQuotaExceeded", Message: "too many storage accounts",
		}}},
	}, 10)
	g := load(t, quickstart)
	rec := &recorder{}
	rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, rec))
	got := outcomes(rep)
	const account = "storage.azure.com/StorageAccount/default/azkquickstartsa"
	if got[account] != applier.OutcomeFailed {
		t.Fatalf("storage account: %s, want failed", got[account])
	}
	for _, addr := range []string{"storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob", "storage.azure.com/StorageAccountsBlobServicesContainer/default/artifacts"} {
		if got[addr] != applier.OutcomeNotAttempted {
			t.Errorf("%s: %s, want not attempted", addr, got[addr])
		}
		if rec.index(applier.EventStart, addr) >= 0 {
			t.Errorf("%s was started although the storage account failed", addr)
		}
	}
	for _, addr := range []string{"network.azure.com/VirtualNetworksSubnet/default/web", "network.azure.com/NetworkSecurityGroupsSecurityRule/default/allow-https"} {
		if got[addr] != applier.OutcomeCreated {
			t.Errorf("independent branch %s: %s, want created", addr, got[addr])
		}
	}
	var failure *arm.ResponseError
	for _, r := range rep.Results {
		if r.Address == account && !errors.As(r.Err, &failure) {
			t.Fatalf("failure is %T %v, want *arm.ResponseError", r.Err, r.Err)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{
		account + ": StorageAccountQuotaExceeded: too many storage accounts (correlation ID " + failure.CorrelationID + ")",
		"storage.azure.com/StorageAccountsBlobServicesContainer/default/artifacts (waits for " + account + ")",
		"Apply failed! Resources: 6 created, 0 updated, 1 failed, 2 not attempted.",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	if failure.CorrelationID == "" {
		t.Error("the failure has no correlation ID")
	}

	// Fix the cause and run again: the rest is created, what exists is rewritten to the same.
	e.run.Server.SetFaults(emulator.Faults{})
	again := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, &recorder{}))
	if again.Failed() {
		t.Fatalf("re-run after the fix: %v", outcomes(again))
	}
	if n := again.Count(applier.OutcomeCreated); n != 2 {
		t.Errorf("re-run created %d, want the 2 not attempted before", n)
	}
}

func TestApplyChainsConfigMapsAndResolvesRoleNames(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.ContainerService/*", Write: 300 * time.Millisecond}}}, 10)
	g := load(t, "../../examples/aks-workload-identity")
	resources := e.decide(t, g)
	var assignment *planner.Resource
	for _, r := range resources {
		if r.Node.Kind.Kind == "RoleAssignment" {
			assignment = r
		}
	}
	if assignment == nil {
		t.Fatal("the example has no role assignment")
	}
	rep := e.apply(t, testkit.Context(t), resources, e.options(g, &recorder{}))
	if rep.Failed() {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("apply failed:\n%s", b.String())
	}
	var identity *planner.Resource
	for _, r := range resources {
		if r.Node.Kind.Kind == "UserAssignedIdentity" {
			identity = r
		}
	}
	principal := testkit.At[any](t, e.get(t, identity.ARMID, identity.APIVersion), "properties", "principalId")
	props := testkit.At[map[string]any](t, e.get(t, assignment.ARMID, assignment.APIVersion), "properties")
	if principal == nil || props["principalId"] != principal {
		t.Errorf("principalId %v: not the identity's (%v), read back after it was created", props["principalId"], principal)
	}
	if id, _ := props["roleDefinitionId"].(string); !strings.HasSuffix(id, "/roleDefinitions/4633458b-17de-408a-b874-0445c86b69e6") {
		t.Errorf("roleDefinitionId %q is not Key Vault Secrets User", id)
	}
}

func TestApplyInterrupt(t *testing.T) {
	docs := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: intr
spec:
  location: westus2
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: slow
spec:
  location: westus2
  owner: {name: intr}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: FederatedIdentityCredential
metadata:
  name: after-slow
spec:
  owner: {name: slow}
  audiences: [api://AzureADTokenExchange]
  issuer: https://issuer.example.com/
  subject: system:serviceaccount:demo:app
`
	lro := emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", Write: 400 * time.Millisecond}}}
	const slow = "managedidentity.azure.com/UserAssignedIdentity/default/slow"
	const after = "managedidentity.azure.com/FederatedIdentityCredential/default/after-slow"

	t.Run("first interrupt drains", func(t *testing.T) {
		e := start(t, lro, 10)
		g := load(t, writeManifests(t, docs))
		drain := make(chan struct{})
		opts := e.options(g, &recorder{})
		opts.Drain = drain
		opts.Events = func(ev applier.Event) {
			if ev.Type == applier.EventStart && ev.Address == slow {
				close(drain)
			}
		}
		rep := e.apply(t, testkit.Context(t), e.decide(t, g), opts)
		got := outcomes(rep)
		if got[slow] != applier.OutcomeCreated || got[after] != applier.OutcomeNotAttempted || !rep.Interrupted {
			t.Fatalf("outcomes %v, interrupted %v: want the in-flight identity finished and its credential not started", got, rep.Interrupted)
		}
		if !strings.HasPrefix(rep.Summary(), "Apply interrupted! ") {
			t.Errorf("summary %q", rep.Summary())
		}
	})
	t.Run("cancel stops waiting at once", func(t *testing.T) {
		e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", Write: time.Minute}}}, 10)
		g := load(t, writeManifests(t, docs))
		ctx, cancel := context.WithCancel(testkit.Context(t))
		opts := e.options(g, &recorder{})
		opts.Events = func(ev applier.Event) {
			if ev.Type == applier.EventStart && ev.Address == slow {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
		}
		began := time.Now()
		rep := e.apply(t, ctx, e.decide(t, g), opts)
		if time.Since(began) > 5*time.Second {
			t.Errorf("cancel took %s to stop a minute-long operation", time.Since(began))
		}
		got := outcomes(rep)
		if got[slow] != applier.OutcomeFailed || got[after] != applier.OutcomeNotAttempted {
			t.Fatalf("outcomes %v", got)
		}
		for _, r := range rep.Results {
			if r.Address == slow && (!errors.Is(r.Err, context.Canceled) || !strings.Contains(r.Err.Error(), "may still be running in Azure")) {
				t.Errorf("interrupted operation error %q does not say it may still run", r.Err)
			}
		}
	})
}

func TestApplyHeartbeat(t *testing.T) {
	e := start(t, emulator.Options{LRO: []emulator.LRORule{{Type: "*", Write: 500 * time.Millisecond}}}, 10)
	g := load(t, writeManifests(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: hb\nspec:\n  location: westus2\n"))
	var out, events bytes.Buffer
	opts := e.options(g, &recorder{})
	opts.Heartbeat = 150 * time.Millisecond
	text, jsonEvents := applier.TextProgress(&out), applier.JSONProgress(&events)
	opts.Events = func(ev applier.Event) { text(ev); jsonEvents(ev) }
	e.apply(t, testkit.Context(t), e.decide(t, g), opts)
	// -o json: a progress event carries every count, zeros included.
	if want := `{"type":"progress","progress":{"inFlight":1,"queued":0,"throttled":0}}`; !strings.Contains(events.String(), want+"\n") {
		t.Errorf("no %s among the JSON events:\n%s", want, events.String())
	}
	var lines, progress []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, "Progress: ") {
			progress = append(progress, l)
		} else {
			lines = append(lines, l)
		}
	}
	// With the heartbeat, the run's progress: one operation in flight.
	if len(progress) == 0 || !strings.HasPrefix(progress[0], "Progress: 1 in flight, 0 requests waiting for ARM's rate budget, 0 throttled") {
		t.Errorf("progress lines: %q", progress)
	}
	if len(lines) < 4 || lines[0] != "resources.azure.com/ResourceGroup/default/hb: Creating..." ||
		!strings.HasPrefix(lines[1], "resources.azure.com/ResourceGroup/default/hb: Still creating... [") ||
		!strings.HasPrefix(lines[len(lines)-1], "resources.azure.com/ResourceGroup/default/hb: Creation complete after ") {
		t.Errorf("progress:\n%s", out.String())
	}
}

// A blocked resource fails without a request and stops its dependents.
func TestApplyBlockedResourceIsAFailure(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	g := load(t, quickstart)
	resources := e.decide(t, g)
	var rg *graph.Node
	for _, r := range resources {
		if r.Node.Kind.Kind == "ResourceGroup" {
			r.Action, r.Reasons, rg = planner.ActionBlocked, []string{"secret missing"}, r.Node
		}
	}
	rep := e.apply(t, testkit.Context(t), resources, e.options(g, &recorder{}))
	if rep.Count(applier.OutcomeFailed) != 1 || rep.Count(applier.OutcomeNotAttempted) != len(g.Nodes)-1 {
		t.Fatalf("outcomes %v", outcomes(rep))
	}
	if e.get(t, rg.ID, rg.Kind.APIVersion) != nil {
		t.Error("a blocked resource was written")
	}
}
