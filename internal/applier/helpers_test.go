package applier_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

const subscription = "00000000-0000-0000-0000-000000000000"

// env is an emulator over HTTPS and an ARM client pointed at it, whose
// writes are logged.
type env struct {
	run    *emulator.Running
	client *arm.Client
	writes *writeLog
}

func start(t *testing.T, opts emulator.Options, parallelism int) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	run, err := emulator.Start(ctx, opts, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = run.Close() })
	writes := &writeLog{next: run.HTTPClient(), seen: map[string]bool{}, bodies: map[string][]byte{}}
	client, err := arm.New(arm.Options{
		Subscription: subscription, Endpoint: run.URL, Credential: arm.EmulatorCredential,
		Transport: writes, Parallelism: parallelism,
		PollFrequency: 20 * time.Millisecond, Retry: arm.RetryOptions{MaxAttempts: 3, Delay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{run: run, client: client, writes: writes}
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

// decide makes the real plan of g against the emulator's current state and
// returns its decisions, so that every apply of these tests is the apply of
// a plan, checked against it (see apply).
func (e *env) decide(t *testing.T, g *graph.Graph, opts ...func(*planner.Options)) []*planner.Resource {
	t.Helper()
	o := planner.Options{Reader: e.client, LookupEnv: func(string) (string, bool) { return "", false }}
	for _, f := range opts {
		f(&o)
	}
	p, diags := planner.Make(testkit.Context(t), g, o)
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	return p.Resources
}

// apply applies the decisions and checks the contract between plan and
// apply: the writes sent (PUT, PATCH, DELETE, POST) are exactly those the
// plan announced (a PUT per create, update and replace, a DELETE per delete
// and replace ARM does not cascade), for every resource that was attempted.
func (e *env) apply(t *testing.T, ctx context.Context, resources []*planner.Resource, opts applier.Options) *applier.Report {
	t.Helper()
	e.writes.reset()
	began := time.Now()
	ctx = testkit.Bound(t, ctx)
	rep := applier.Apply(ctx, resources, opts)
	if testkit.TimedOut(ctx) {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Fatalf("apply was still running after %s, waiting for something that never came:\n%s", time.Since(began).Round(time.Second), b.String())
	}
	attempted := map[string]bool{}
	for _, r := range rep.Results {
		attempted[r.Address] = r.Outcome != applier.OutcomeNotAttempted
	}
	announced, reads := map[string]bool{}, map[string]bool{}
	for _, r := range resources {
		// Secret reads (listKeys and its kin) the plan announced for the
		// resources that export secrets; only actions their kind's exporter
		// names as reads.
		for _, path := range r.SecretReads {
			if action, ok := strings.CutPrefix(path, r.ARMID+"/"); ok && extensions.IsSecretRead(r.ARMType, action) {
				reads["POST "+strings.ToLower(path)] = true
			}
		}
		if !attempted[r.Address] {
			continue
		}
		if r.Writes() {
			id := r.ARMID
			if id == "" && r.Node != nil {
				id = r.Node.ID
			}
			announced["PUT "+strings.ToLower(id)] = true
		}
		if r.Deletes() {
			announced["DELETE "+strings.ToLower(r.ARMID)] = true
		}
		if r.Request != nil {
			for _, w := range r.Request.Before {
				announced[w.Method+" "+strings.ToLower(w.Path)] = true
			}
		}
	}
	sent := e.writes.all()
	for w := range sent {
		if !announced[w] && !reads[w] {
			t.Errorf("apply sent %s, which the plan did not announce", w)
		}
	}
	for w := range announced {
		if !sent[w] {
			t.Errorf("the plan announced %s, which apply did not send", w)
		}
	}
	return rep
}

// writeLog records the writes a client sends (method and lower-cased
// path), and the last body of each.
type writeLog struct {
	next   policy.Transporter
	mu     sync.Mutex
	seen   map[string]bool
	bodies map[string][]byte
}

func (l *writeLog) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		var body []byte
		if req.Body != nil {
			body, _ = io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		k := req.Method + " " + strings.ToLower(req.URL.Path)
		l.mu.Lock()
		l.seen[k] = true
		l.bodies[k] = body
		l.mu.Unlock()
	}
	return l.next.Do(req)
}

// body is the last body sent with method to the resource id.
func (l *writeLog) body(method, id string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bodies[method+" "+strings.ToLower(id)]
}

func (l *writeLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = map[string]bool{}
}

func (l *writeLog) all() map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.seen)
}

// editBody rewrites a JSON answer's body with edit, as a provider would
// have answered.
func editBody(resp *http.Response, edit func(body map[string]any)) *http.Response {
	var body map[string]any
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &body)
	edit(body)
	data, _ = json.Marshal(body)
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	resp.Header.Del("Content-Length")
	return resp
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
	resp, err := e.client.Get(testkit.Context(t), id, apiVersion)
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
