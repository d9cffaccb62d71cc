package arm

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// etagARM plays ARM for one resource that honours If-Match and If-None-Match.
// A write is accepted with 202 and a Location URL, whose poll answers the
// resource; every request's preconditions are recorded.
type etagARM struct {
	mu     sync.Mutex
	etag   string // "" while the resource does not exist
	n      int
	seen   []string // "METHOD path If-Match=... If-None-Match=..."
	before func(w http.ResponseWriter, r *http.Request) bool
}

func (a *etagARM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, fmt.Sprintf("%s %s If-Match=%s If-None-Match=%s", r.Method, r.URL.Path, r.Header.Get("If-Match"), r.Header.Get("If-None-Match")))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(headerCorrelationID, "corr-412")
	if a.before != nil && a.before(w, r) {
		return
	}
	if r.Method == http.MethodGet {
		fmt.Fprintf(w, `{"etag": %q, "properties": {"provisioningState": "Succeeded"}}`, a.etag)
		return
	}
	im, inm := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	if (im != "" && im != a.etag) || (inm == "*" && a.etag != "") {
		w.WriteHeader(http.StatusPreconditionFailed)
		w.Write([]byte(`{"error": {"code": "PreconditionFailed", "message": "The condition specified using HTTP conditional header(s) is not met."}}`))
		return
	}
	a.write()
	w.Header().Set("Location", "http://"+r.Host+"/operationResults/1")
	w.WriteHeader(http.StatusAccepted)
}

// write changes the resource, as a carried-out PUT does.
func (a *etagARM) write() {
	a.n++
	a.etag = fmt.Sprintf(`W/"%d"`, a.n)
}

func (a *etagARM) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func newETagARM(t *testing.T, a *etagARM) *Client {
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	c, err := New(Options{Credential: EmulatorCredential, Endpoint: srv.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func putWait(c *Client, t *testing.T, body any, opts ...WriteOption) error {
	ctx := testContext(t)
	op, err := c.Put(ctx, vnetID("rg", "v1"), networkAPI, body, opts...)
	if err == nil {
		_, err = op.Wait(ctx)
	}
	return err
}

// TestConditionalWrites: IfMatch and IfNoneMatch go on the request that
// starts the write, never on its polls; a 412 is IsPreconditionFailed and
// says plainly what happened, with ARM's code and correlation ID.
func TestConditionalWrites(t *testing.T) {
	a := &etagARM{}
	c := newETagARM(t, a)
	if err := putWait(c, t, vnetBody, IfNoneMatch()); err != nil {
		t.Fatalf("create only, while absent: %v", err)
	}
	err := putWait(c, t, vnetBody, IfNoneMatch())
	var re *ResponseError
	if !IsPreconditionFailed(err) || !errors.As(err, &re) || re.StatusCode != http.StatusPreconditionFailed || re.Code != "PreconditionFailed" {
		t.Fatalf("create only, once it exists: %v", err)
	}
	want := "PUT " + vnetID("rg", "v1") + ": the resource was created in Azure since it was found absent: make a new plan (412 PreconditionFailed, correlation ID corr-412)"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}

	err = putWait(c, t, vnetBody, IfMatch(`W/"stale"`))
	if !IsPreconditionFailed(err) || !strings.Contains(err.Error(), `the resource changed in Azure since it was read (ETag W/"stale" no longer matches): make a new plan (412 PreconditionFailed`) {
		t.Fatalf("stale ETag: %v", err)
	}
	if strings.Contains(err.Error(), "own earlier attempt") {
		t.Errorf("a write sent once called ambiguous: %v", err)
	}
	if err := putWait(c, t, vnetBody, IfMatch(`W/"1"`)); err != nil {
		t.Fatalf("current ETag: %v", err)
	}
	ctx := testContext(t)
	op, err := c.Patch(ctx, vnetID("rg", "v1"), networkAPI, map[string]any{"tags": map[string]string{"a": "b"}}, IfMatch(`W/"1"`))
	if !IsPreconditionFailed(err) {
		t.Fatalf("PATCH with a stale ETag: %v, %v", op, err)
	}
	op, err = c.Delete(ctx, vnetID("rg", "v1"), networkAPI, IfMatch(`W/"1"`))
	if !IsPreconditionFailed(err) || !strings.HasPrefix(err.Error(), "DELETE ") {
		t.Fatalf("DELETE with a stale ETag: %v, %v", op, err)
	}
	if err := putWait(c, t, vnetBody, IfMatch("")); err != nil {
		t.Fatalf("empty ETag: %v", err)
	}
	if IsPreconditionFailed(errors.New("412")) || IsPreconditionFailed(&ResponseError{StatusCode: 409}) {
		t.Error("IsPreconditionFailed of other errors")
	}

	path := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v1"
	wantSeen := []string{
		"PUT " + path + " If-Match= If-None-Match=*",
		"GET /operationResults/1 If-Match= If-None-Match=",
		"PUT " + path + " If-Match= If-None-Match=*",
		`PUT ` + path + ` If-Match=W/"stale" If-None-Match=`,
		`PUT ` + path + ` If-Match=W/"1" If-None-Match=`,
		"GET /operationResults/1 If-Match= If-None-Match=",
		`PATCH ` + path + ` If-Match=W/"1" If-None-Match=`,
		`DELETE ` + path + ` If-Match=W/"1" If-None-Match=`,
		"PUT " + path + " If-Match= If-None-Match=",
		"GET /operationResults/1 If-Match= If-None-Match=",
	}
	if got := a.requests(); strings.Join(got, "\n") != strings.Join(wantSeen, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSeen, "\n"))
	}
}

// TestPreconditionFailedOnAResentWriteIsAmbiguous: when azcore's retry policy
// sends a conditional write again after an unclear answer (here a 500 from a
// write that was in fact carried out), the 412 may answer the run's own
// first try, and the error says so. So does a 412 to the request with which
// Wait starts an operation again after a transient failure, which carries the
// preconditions too.
func TestPreconditionFailedOnAResentWriteIsAmbiguous(t *testing.T) {
	first := true
	a := &etagARM{etag: `W/"0"`}
	a.before = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !first {
			return false
		}
		first = false
		a.write()
		w.WriteHeader(http.StatusInternalServerError)
		return true
	}
	c := newETagARM(t, a)
	err := putWait(c, t, vnetBody, IfMatch(`W/"0"`))
	if !IsPreconditionFailed(err) || !strings.Contains(err.Error(), `(ETag W/"0" no longer matches), or this may be this run's own earlier attempt, sent again after no clear answer: make a new plan`) {
		t.Fatalf("412 to a resent PUT: %v", err)
	}

	// The operation fails with RetryableError after changing the resource;
	// Wait starts it again, with its If-Match.
	polls := 0
	a.before = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet {
			return false
		}
		if polls++; polls == 1 {
			a.write()
			w.Write([]byte(`{"status": "Failed", "error": {"code": "RetryableError", "message": "try again"}}`))
			return true
		}
		return false
	}
	err = putWait(c, t, vnetBody, IfMatch(`W/"1"`))
	if !IsPreconditionFailed(err) || !strings.Contains(err.Error(), "may be this run's own earlier attempt") {
		t.Fatalf("412 to a restarted operation: %v", err)
	}
	got := a.requests()
	if last := got[len(got)-1]; !strings.HasPrefix(last, "PUT ") || !strings.Contains(last, `If-Match=W/"1"`) {
		t.Errorf("the restart was %q, want the PUT with its If-Match", last)
	}
}

// TestConditionalWritesOnTheEmulator: the emulator holds a resource's ETag as
// ARM does; a stale one is refused with 412 and the resource stays.
func TestConditionalWritesOnTheEmulator(t *testing.T) {
	emu := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: vnetType, Write: 20 * time.Millisecond}}})
	c := emu.client(t, nil)
	put(t, c, rgID("etag"), rgAPI, map[string]any{"location": "westus2"})
	id := vnetID("etag", "vnet")
	created := put(t, c, id, networkAPI, vnetBody)
	ctx := testContext(t)
	stale := created.ETag
	if stale == "" {
		t.Fatal("no ETag after a create")
	}
	op, err := c.Put(ctx, id, networkAPI, vnetBody, IfMatch(stale))
	if err != nil {
		t.Fatalf("PUT with the current ETag: %v", err)
	}
	updated, err := op.Wait(ctx)
	if err != nil || updated.ETag == "" || updated.ETag == stale {
		t.Fatalf("PUT with the current ETag: %v, ETag %q (was %q)", err, updated.ETag, stale)
	}
	if _, err := c.Put(ctx, id, networkAPI, vnetBody, IfMatch(stale)); !IsPreconditionFailed(err) {
		t.Fatalf("PUT with a stale ETag: %v", err)
	}
	if _, err := c.Patch(ctx, id, networkAPI, map[string]any{"tags": map[string]string{"a": "b"}}, IfMatch(stale)); !IsPreconditionFailed(err) {
		t.Fatalf("PATCH with a stale ETag: %v", err)
	}
	if _, err := c.Put(ctx, id, networkAPI, vnetBody, IfNoneMatch()); !IsPreconditionFailed(err) || !strings.Contains(err.Error(), "created in Azure since it was found absent") {
		t.Fatalf("create only, once it exists: %v", err)
	}
	if _, err := c.Delete(ctx, id, networkAPI, IfMatch(stale)); !IsPreconditionFailed(err) {
		t.Fatalf("DELETE with a stale ETag: %v", err)
	}
	got, err := c.Get(ctx, id, networkAPI)
	if err != nil || got.ETag != updated.ETag {
		t.Fatalf("after the refused writes: %v, ETag %q, want %q", err, got.ETag, updated.ETag)
	}
	op, err = c.Delete(ctx, id, networkAPI, IfMatch(updated.ETag))
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("DELETE with the current ETag: %v", err)
	}
	if _, err := c.Get(ctx, id, networkAPI); !IsNotFound(err) {
		t.Fatalf("after the DELETE: %v", err)
	}
}
