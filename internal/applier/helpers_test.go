package applier_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
)

const subscription = "00000000-0000-0000-0000-000000000000"

// env is an emulator over HTTPS and an ARM client pointed at it.
type env struct {
	run    *emulator.Running
	client *arm.Client
}

func start(t *testing.T, opts emulator.Options, parallelism int) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	run, err := emulator.Start(ctx, opts, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = run.Close() })
	client, err := arm.New(arm.Options{
		Subscription: subscription, Endpoint: run.URL, Credential: arm.EmulatorCredential,
		Transport: run.HTTPClient(), Parallelism: parallelism,
		PollFrequency: 20 * time.Millisecond, Retry: arm.RetryOptions{MaxAttempts: 3, Delay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{run: run, client: client}
}

// load reads manifests and resolves them; any error diagnostic fails the test.
func load(t *testing.T, paths ...string) *graph.Graph {
	t.Helper()
	res, diags := loader.Load(loader.Options{Paths: paths})
	g, more := graph.Build(res, graph.Options{Subscription: subscription})
	diags = append(diags, more...)
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// writeManifests writes docs to a file in a new directory and returns the file.
func writeManifests(t *testing.T, docs string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifests.yaml")
	if err := os.WriteFile(path, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decide makes the per-resource decisions the planner makes, from the
// emulator's current state, so that these tests exercise the applier alone:
// create when absent; when present, skip, update for an explicit policy, or
// adopt per reconcile-policy-if-exists.
func (e *env) decide(t *testing.T, g *graph.Graph) []*planner.Resource {
	t.Helper()
	ctx := context.Background()
	src := convert.Sources{
		LookupEnv: func(string) (string, bool) { return "", false },
		Get: func(id, apiVersion string) (map[string]any, error) {
			resp, err := e.client.Get(ctx, id, apiVersion)
			if arm.IsNotFound(err) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			var m map[string]any
			return m, json.Unmarshal(resp.Body, &m)
		},
	}
	var out []*planner.Resource
	for _, n := range g.Nodes {
		req, diags := convert.Convert(g, n, src)
		if err := diags.Err(); err != nil {
			t.Fatal(err)
		}
		_, err := e.client.Get(ctx, n.ID, n.Kind.APIVersion)
		exists := err == nil
		if err != nil && !arm.IsNotFound(err) {
			t.Fatal(err)
		}
		r := &planner.Resource{Address: n.Address(), ARMID: n.ID, APIVersion: n.Kind.APIVersion, Exists: exists, Node: n, Request: req, Desired: req.Body}
		annotations := n.Object.Node.GetAnnotations()
		explicit, isExplicit := annotations[graph.AnnotationReconcilePolicy]
		ifExists := annotations[graph.AnnotationReconcilePolicyIfExists]
		switch {
		case !exists:
			r.Action = planner.ActionCreate
		case explicit == graph.PolicySkip || (!isExplicit && ifExists == graph.PolicySkip):
			r.Action = planner.ActionSkip
		case isExplicit:
			r.Action = planner.ActionUpdate
		default:
			r.Action = planner.ActionAdopt
		}
		for _, d := range n.DependsOn() {
			r.DependsOn = append(r.DependsOn, d.Address())
		}
		out = append(out, r)
	}
	return out
}

// recorder keeps every event, in order.
type recorder struct {
	mu     sync.Mutex
	events []applier.Event
}

func (r *recorder) record(e applier.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []applier.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]applier.Event(nil), r.events...)
}

// index is the position of the first event of type typ for address, or -1.
func (r *recorder) index(typ applier.EventType, address string) int {
	for i, e := range r.all() {
		if e.Type == typ && e.Address == address {
			return i
		}
	}
	return -1
}

func outcomes(rep *applier.Report) map[string]applier.Outcome {
	out := map[string]applier.Outcome{}
	for _, r := range rep.Results {
		out[r.Address] = r.Outcome
	}
	return out
}

// get reads a resource body from the emulator; nil when it does not exist.
func (e *env) get(t *testing.T, id, apiVersion string) map[string]any {
	t.Helper()
	resp, err := e.client.Get(context.Background(), id, apiVersion)
	if arm.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *env) options(g *graph.Graph, rec *recorder) applier.Options {
	return applier.Options{Client: e.client, Graph: g, Parallelism: 10, Events: rec.record, LookupEnv: func(string) (string, bool) { return "", false }}
}

const quickstart = "../../examples/quickstart"
