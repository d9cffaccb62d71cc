package arm

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// stranger is a host that is not ARM: it records what reaches it.
type stranger struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

func newStranger(t *testing.T) *stranger {
	s := &stranger{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path+" authorization="+r.Header.Get("Authorization")+" body="+string(body))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status": "Succeeded", "properties": {"provisioningState": "Succeeded"}, "value": []}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stranger) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// TestTokenStaysWithARM: an answer naming another host to follow
// (Azure-AsyncOperation, Operation-Location, Location, at once or on a later
// poll; a nextLink) or redirecting there is an error naming the header, and
// the other host gets nothing: no poll, no token, no body (issue 22, item 5).
// Operation URLs on the endpoint are followed as before.
func TestTokenStaysWithARM(t *testing.T) {
	const id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"
	const api = "2021-04-01"
	for _, tt := range []struct {
		name string
		// answer plays ARM; elsewhere is the stranger's URL.
		answer func(w http.ResponseWriter, r *http.Request, elsewhere string)
		list   bool // a List rather than a Put
		want   string
	}{
		{"Azure-AsyncOperation", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Header().Set("Azure-AsyncOperation", elsewhere+"/operations/1?sig=secret")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"properties": {"provisioningState": "Creating"}}`))
		}, false, `the answer (201) names "` + "{elsewhere}" + `/operations/1" in its Azure-AsyncOperation header, not on the ARM endpoint`},
		{"Operation-Location", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Header().Set("Operation-Location", elsewhere+"/operations/1")
			w.WriteHeader(http.StatusAccepted)
		}, false, "in its Operation-Location header"},
		{"Location", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Header().Set("Location", elsewhere+"/operationResults/1")
			w.WriteHeader(http.StatusAccepted)
		}, false, "in its Location header"},
		{"Location on a later poll", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			if r.Method == http.MethodPut {
				w.Header().Set("Location", "http://"+r.Host+"/operationResults/1")
			} else {
				w.Header().Set("Location", elsewhere+"/operationResults/2")
			}
			w.WriteHeader(http.StatusAccepted)
		}, false, "following the operation: the answer (202) names"},
		{"redirect of a PUT", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Header().Set("Location", elsewhere+id)
			w.WriteHeader(http.StatusTemporaryRedirect)
		}, false, "the answer is a redirect (307) to"},
		{"nextLink", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Write([]byte(`{"value": [], "nextLink": "` + elsewhere + id + `/resources?page=2"}`))
		}, true, "nextLink leaves"},
		{"redirect of a list", func(w http.ResponseWriter, r *http.Request, elsewhere string) {
			w.Header().Set("Location", elsewhere+id)
			w.WriteHeader(http.StatusFound)
		}, true, "the answer is a redirect (302) to"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			other := newStranger(t)
			arm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.answer(w, r, other.URL)
			}))
			defer arm.Close()
			c, err := New(Options{Credential: EmulatorCredential, Endpoint: arm.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testContext(t)
			if tt.list {
				_, err = c.List(ctx, id+"/resources", api)
			} else {
				var op *Operation
				if op, err = c.Put(ctx, id, api, map[string]any{"location": "westus2", "tags": map[string]any{"canary": "put-body"}}); err == nil {
					_, err = op.Wait(ctx)
				}
			}
			if want := strings.ReplaceAll(tt.want, "{elsewhere}", other.URL); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v; want one containing %q", err, want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("the error quotes the URL's query: %v", err)
			}
			if got := other.received(); len(got) > 0 {
				t.Errorf("the other host received:\n%s", strings.Join(got, "\n"))
			}
		})
	}

	t.Run("on the endpoint", func(t *testing.T) {
		arm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				w.Header().Set("Location", "http://"+r.Host+"/operationResults/1")
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Write([]byte(`{"id": "` + id + `", "properties": {"provisioningState": "Succeeded"}}`))
		}))
		defer arm.Close()
		c, err := New(Options{Credential: EmulatorCredential, Endpoint: arm.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx := testContext(t)
		op, err := c.Put(ctx, id, api, map[string]any{"location": "westus2"})
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			t.Errorf("an operation followed on the endpoint: %v", err)
		}
	})
}
