package deployment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// The tests here put a proxy between azk and the emulator that answers some
// requests as ARM may: 404 for a deployment it has just started, a lost
// answer to the request that submits one, failing reads.

var (
	nestedOperations = regexp.MustCompile(`/deployments/test-01-[0-9]+/operations$`)
	topDeployment    = regexp.MustCompile(`/deployments/test-01$`)
)

// followThrough starts an emulator behind a proxy whose intercept answers
// the requests it wants to, and returns a client of the proxy and the
// emulator's handler (to pass a request on).
func followThrough(t *testing.T, intercept func(w http.ResponseWriter, r *http.Request) bool) (*arm.Client, http.Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	u, err := url.Parse(run.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	client, err := arm.New(arm.Options{Subscription: sub, Endpoint: srv.URL, AllowHTTP: true, Credential: arm.EmulatorCredential,
		PollFrequency: 10 * time.Millisecond, Retry: arm.RetryOptions{MaxAttempts: 2, Delay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return client, proxy
}

// notFound answers ARM's 404 for a deployment.
func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"error":{"code":"DeploymentNotFound","message":"Deployment could not be found."}}`))
}

// nestedPlan is a group and two identities in it: one subscription template,
// the identities in a nested deployment into the group.
func nestedPlan(t *testing.T) (*planner.Plan, *Set) {
	t.Helper()
	rg := resourceGroup("rg1")
	p := &planner.Plan{Resources: append([]*planner.Resource{rg}, chain("rg1", 2, rg)...)}
	set, err := Build(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) != 1 {
		t.Fatalf("%d templates, want 1", len(set.Templates))
	}
	return p, set
}

func applyThrough(t *testing.T, client *arm.Client, unreadable time.Duration) (*applier.Report, []Submitted, time.Duration) {
	t.Helper()
	p, set := nestedPlan(t)
	started := time.Now()
	rep, subs := Apply(context.Background(), p, set, RunOptions{Client: client, Prefix: "test", Poll: 20 * time.Millisecond, Unreadable: unreadable})
	return rep, subs, time.Since(started)
}

func reportText(rep *applier.Report) string {
	var b strings.Builder
	rep.WriteText(&b)
	return b.String()
}

// notFoundFor answers 404 to the requests match selects, from the first of
// them until window has passed.
func notFoundFor(match *regexp.Regexp, window time.Duration) (func(http.ResponseWriter, *http.Request) bool, func() int) {
	var mu sync.Mutex
	var first time.Time
	answered := 0
	return func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodGet || !match.MatchString(r.URL.Path) {
				return false
			}
			mu.Lock()
			defer mu.Unlock()
			if first.IsZero() {
				first = time.Now()
			}
			if window >= 0 && time.Since(first) >= window {
				return false
			}
			answered++
			notFound(w)
			return true
		}, func() int {
			mu.Lock()
			defer mu.Unlock()
			return answered
		}
}

// TestNestedDeploymentNotYetVisible: ARM lists the nested deployment in its
// parent's operations and answers 404 for its own operations for a while;
// azk takes it as not started yet and follows it to its end.
func TestNestedDeploymentNotYetVisible(t *testing.T) {
	intercept, answered := notFoundFor(nestedOperations, 400*time.Millisecond)
	client, _ := followThrough(t, intercept)
	rep, subs, _ := applyThrough(t, client, 0)
	if rep.Failed() || rep.Count(applier.OutcomeCreated) != 3 || subs[0].Running {
		t.Fatalf("apply:\n%s", reportText(rep))
	}
	if answered() == 0 {
		t.Fatal("the proxy answered no 404: the test tests nothing")
	}
}

// TestSubmittedDeploymentNotYetVisible: right after the PUT, ARM may answer
// 404 for the deployment itself; azk reads on.
func TestSubmittedDeploymentNotYetVisible(t *testing.T) {
	intercept, answered := notFoundFor(topDeployment, 300*time.Millisecond)
	client, _ := followThrough(t, intercept)
	rep, _, _ := applyThrough(t, client, 0)
	if rep.Failed() || rep.Count(applier.OutcomeCreated) != 3 {
		t.Fatalf("apply:\n%s", reportText(rep))
	}
	if answered() == 0 {
		t.Fatal("the proxy answered no 404: the test tests nothing")
	}
}

// TestNestedDeploymentNeverVisibleIsBounded: a nested deployment that stays
// 404 is waited for no longer than RunOptions.Unreadable; the resources it
// would describe fail with that reason, the others keep their outcome, and
// none is reported still running: ARM ended the deployment.
func TestNestedDeploymentNeverVisibleIsBounded(t *testing.T) {
	intercept, _ := notFoundFor(nestedOperations, -1)
	client, _ := followThrough(t, intercept)
	rep, subs, took := applyThrough(t, client, 300*time.Millisecond)
	if took > 5*time.Second {
		t.Errorf("azk waited %s for a deployment it cannot read, bound 300ms", took)
	}
	text := reportText(rep)
	if rep.Count(applier.OutcomeCreated) != 1 || rep.Count(applier.OutcomeFailed) != 2 || rep.Count(applier.OutcomeInProgress) != 0 || subs[0].Err == nil {
		t.Fatalf("apply:\n%s", text)
	}
	if !strings.Contains(text, "yet has answered 404 for it for") {
		t.Errorf("the failures do not say why:\n%s", text)
	}
}

// TestLostSubmitAnswerIsFollowed: ARM takes the deployment, but its answer
// is lost (502 from a gateway, and again for the retry, which never reaches
// ARM): azk reads the deployment, finds it and follows it; it was submitted
// once.
func TestLostSubmitAnswerIsFollowed(t *testing.T) {
	var mu sync.Mutex
	puts := 0
	var upstream http.Handler
	client, upstream := followThrough(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !topDeployment.MatchString(r.URL.Path) {
			return false
		}
		mu.Lock()
		puts++
		first := puts == 1
		mu.Unlock()
		if first {
			upstream.ServeHTTP(httptest.NewRecorder(), r) // ARM takes it; the answer is lost
		}
		w.WriteHeader(http.StatusBadGateway)
		return true
	})
	rep, subs, _ := applyThrough(t, client, 0)
	if rep.Failed() || rep.Count(applier.OutcomeCreated) != 3 || subs[0].Running {
		t.Fatalf("apply:\n%s", reportText(rep))
	}
	if puts < 2 {
		t.Fatalf("%d PUTs of the deployment: the lost answer was not retried, the test tests nothing", puts)
	}
}

// TestUnreadableDeploymentIsBounded: every read of the deployment fails
// after it was submitted; azk stops following it after RunOptions.Unreadable
// and reports its resources still running in Azure, with the reason.
func TestUnreadableDeploymentIsBounded(t *testing.T) {
	client, _ := followThrough(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/deployments/test-01") {
			return false
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	rep, subs, took := applyThrough(t, client, 300*time.Millisecond)
	if took > 5*time.Second {
		t.Errorf("azk read for %s a deployment it cannot read, bound 300ms", took)
	}
	if !subs[0].Running || subs[0].Err == nil || rep.Count(applier.OutcomeInProgress) != 3 {
		t.Fatalf("apply: %+v\n%s", subs[0], reportText(rep))
	}
}

// TestAwaitReadsAnEarlierDeployment: a run stops following its deployment
// (Drain), which goes on in Azure; the next run finds it with Unfinished,
// waits for it with Await, and learns from its operations what it wrote.
func TestAwaitReadsAnEarlierDeployment(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.ManagedIdentity/*", Write: 300 * time.Millisecond}}}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	client, err := arm.New(arm.Options{Subscription: sub, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	p, set := nestedPlan(t)
	drain := make(chan struct{})
	var once sync.Once
	rep, subs := Apply(ctx, p, set, RunOptions{Client: client, Prefix: "azk-earlier", Poll: 20 * time.Millisecond, Drain: drain,
		Events: func(e applier.Event) {
			if e.Type == applier.EventStart && strings.Contains(e.Address, "identity/") {
				once.Do(func() { close(drain) })
			}
		}})
	if !subs[0].Running || rep.Count(applier.OutcomeInProgress) == 0 {
		t.Fatalf("the first run did not leave its deployment running:\n%s", reportText(rep))
	}
	earlier, err := Unfinished(ctx, client, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(earlier) != 1 || earlier[0].Name != "azk-earlier-01" {
		t.Fatalf("Unfinished found %+v, want azk-earlier-01 (its nested deployment read with it)", earlier)
	}
	if err := Await(ctx, client, p, earlier, RunOptions{Poll: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, e := range earlier {
		if e.State != "Succeeded" {
			t.Errorf("%s ended %s", e.Name, e.State)
		}
		written = append(written, e.Written...)
	}
	if len(written) != 3 {
		t.Errorf("the earlier deployment wrote %v, want the group and both identities", written)
	}
	if again, err := Unfinished(ctx, client, set); err != nil || len(again) != 0 {
		t.Errorf("after it ended, Unfinished finds %+v, %v", again, err)
	}
}
