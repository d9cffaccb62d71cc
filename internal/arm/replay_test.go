package arm

import (
	"encoding/json"
	"errors"
	"github.com/azkcli/azk/internal/corpus"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

const recordedHost = "https://management.azure.com"

// replayServer answers each request with the next unused recorded
// interaction of the same method and URL (host aside; query compared as
// values, signatures aside), with the recorded status, headers and body, ARM's host rewritten to
// its own. Interleaved recordings replay correctly as long as each resource's
// own requests come in recorded order.
type replayServer struct {
	t   *testing.T
	rec *corpus.Recording
	srv *httptest.Server

	mu       sync.Mutex
	used     []bool
	sequence []int
}

func newReplayServer(t *testing.T, rec *corpus.Recording) *replayServer {
	r := &replayServer{t: t, rec: rec, used: make([]bool, len(rec.Interactions))}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *replayServer) serve(w http.ResponseWriter, req *http.Request) {
	if !strings.HasPrefix(req.Header.Get("Authorization"), "Bearer ") {
		r.t.Errorf("%s %s without a bearer token", req.Method, req.URL)
	}
	raw, _ := io.ReadAll(req.Body)
	body := string(raw)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, it := range r.rec.Interactions {
		if r.used[i] || it.Request.Method != req.Method || !sameURL(it.Request.URL, req.URL) {
			continue
		}
		if it.Request.Body != "" && !jsonEqual(it.Request.Body, body) {
			r.t.Errorf("interaction %d: %s %s sent body %s, recorded %s", it.ID, req.Method, req.URL.Path, body, it.Request.Body)
		}
		r.used[i] = true
		r.sequence = append(r.sequence, it.ID)
		for k, vs := range it.Response.Headers {
			if strings.EqualFold(k, "Content-Length") {
				continue
			}
			for _, v := range vs {
				w.Header().Add(k, strings.ReplaceAll(v, recordedHost, r.srv.URL))
			}
		}
		w.WriteHeader(it.Response.Code)
		_, _ = w.Write([]byte(strings.ReplaceAll(it.Response.Body, recordedHost, r.srv.URL)))
		return
	}
	r.t.Errorf("no recorded interaction left for %s %s (answered so far: %v)", req.Method, req.URL.Path, r.sequence)
	http.Error(w, "not in the recording", http.StatusTeapot)
}

// sameURL compares path and query, leaving out the signature parameters of
// ARM's operation URLs (t, c, s, h): each 202 carries a freshly signed
// Location, and which of the equally valid ones a client polls is its choice.
func sameURL(recorded string, got *url.URL) bool {
	u, err := url.Parse(recorded)
	if err != nil || u.Path != got.Path {
		return false
	}
	unsigned := func(q url.Values) url.Values {
		for _, k := range []string{"t", "c", "s", "h"} {
			q.Del(k)
		}
		return q
	}
	return reflect.DeepEqual(unsigned(u.Query()), unsigned(got.Query()))
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// TestReplayCorpusRecording drives the client through real ARM responses
// recorded by the operator: a resource group, a configuration store created
// by a long-running operation (Azure-AsyncOperation, polled four times), the
// resource group's deletion followed through Location, and a delete that ARM
// refused with ResourceGroupNotFound.
func TestReplayCorpusRecording(t *testing.T) {
	path := filepath.Join(corpus.Dir(t), "recordings", "Test_Appconfiguration_v1api20220501_CreationAndDeletion.yaml")
	rec, err := corpus.ReadRecording(path)
	if err != nil {
		t.Skipf("recording not in the corpus: %v", err)
	}
	if len(rec.Interactions) != 15 {
		t.Fatalf("%s has %d interactions; this test follows the 15 of the recording it was written for", path, len(rec.Interactions))
	}
	at := func(i int) string { return strings.ReplaceAll(rec.Interactions[i].Response.Body, recordedHost, "") }

	replay := newReplayServer(t, rec)
	c, err := New(Options{
		Credential:    EmulatorCredential,
		Endpoint:      replay.srv.URL,
		Transport:     replay.srv.Client(),
		Retry:         RetryOptions{MaxAttempts: 3, Delay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
		PollFrequency: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	resourceID := func(i int) string {
		u, _ := url.Parse(rec.Interactions[i].Request.URL)
		return u.Path
	}
	apiVersion := func(i int) string {
		u, _ := url.Parse(rec.Interactions[i].Request.URL)
		return u.Query().Get("api-version")
	}
	rg, store := resourceID(0), resourceID(2)

	op, err := c.Put(ctx, rg, apiVersion(0), json.RawMessage(rec.Interactions[0].Request.Body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusCreated || !jsonEqual(string(res.Body), at(0)) {
		t.Errorf("resource group: %d %s", res.StatusCode, res.Body)
	}
	if _, err := c.Get(ctx, rg, apiVersion(1)); err != nil {
		t.Fatal(err)
	}

	op, err = c.Put(ctx, store, apiVersion(2), json.RawMessage(rec.Interactions[2].Request.Body))
	if err != nil {
		t.Fatal(err)
	}
	res, err = op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusCreated || !jsonEqual(string(res.Body), at(7)) || provisioningState(t, res.Body) != "Succeeded" {
		t.Errorf("configuration store: %d %s, want 201 and the final GET's body", res.StatusCode, res.Body)
	}
	got, err := c.Get(ctx, store, apiVersion(8))
	if err != nil {
		t.Fatal(err)
	}
	if want := rec.Interactions[8].Response.Headers["Etag"]; len(want) != 1 || got.ETag != want[0] {
		t.Errorf("ETag %q, recorded %v", got.ETag, want)
	}

	op, err = c.Delete(ctx, rg, apiVersion(9))
	if err != nil {
		t.Fatal(err)
	}
	res, err = op.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusAccepted || res.Body != nil {
		t.Errorf("resource group delete: %d %s", res.StatusCode, res.Body)
	}

	// azk deleted the group itself, so its absence is no replication lag: fail fast.
	_, err = c.Delete(ctx, store, apiVersion(14))
	var re *ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound || re.Code != CodeResourceGroupNotFound ||
		re.Message != "Resource group 'asotest-rg-pbkqmk' could not be found." || re.Attempts != 0 {
		t.Errorf("store delete: %v", err)
	}

	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	if !reflect.DeepEqual(replay.sequence, want) {
		t.Errorf("interactions answered %v, want %v", replay.sequence, want)
	}
}
