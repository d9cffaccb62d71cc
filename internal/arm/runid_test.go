package arm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunIDLayout: a run ID is a version-8 UUID starting a2c0a2c0, fresh each
// time, and IsAzkCorrelationID tells it from other correlation IDs.
func TestRunIDLayout(t *testing.T) {
	a, b := NewRunID(), NewRunID()
	if a == b {
		t.Fatalf("two run IDs are equal: %s", a)
	}
	for _, id := range []string{a, b, strings.ToUpper(a)} {
		if !IsAzkCorrelationID(id) {
			t.Errorf("IsAzkCorrelationID(%q) = false", id)
		}
		if !strings.HasPrefix(strings.ToLower(id), "a2c0a2c0-") || id[14] != '8' || !strings.ContainsRune("89abAB", rune(id[19])) {
			t.Errorf("%s is not a version-8 UUID starting a2c0a2c0", id)
		}
	}
	for _, id := range []string{
		"", "a2c0a2c0", "3f2b1c9e-8a51-4f8e-9a7c-0d6b2e4f1a3c", // someone else's
		"a2c0a2c0-1234-8123-9123-12345678901",   // one digit short
		"a2c0a2c0-1234-8123-9123-12345678901z",  // not hex
		"a2c0a2c0x1234-8123-9123-123456789012",  // no dash
		"a2c0a2c0-1234-8123-9123-1234567890123", // too long
	} {
		if IsAzkCorrelationID(id) {
			t.Errorf("IsAzkCorrelationID(%q) = true", id)
		}
	}
	if RunID() != RunID() || !IsAzkCorrelationID(RunID()) {
		t.Errorf("the process's run ID is not one stable azk run ID: %s, %s", RunID(), RunID())
	}
}

// TestRequestsCarryRunIDAndUserAgent: every request of a client, the write,
// its polls and reads, carries the run ID as x-ms-correlation-request-id and
// a User-Agent beginning azk/<version>, so Azure's records of them can be
// told apart as azk's.
func TestRequestsCarryRunIDAndUserAgent(t *testing.T) {
	const id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg"
	var (
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("x-ms-client-request-id") == "" {
			t.Errorf("%s %s carries no x-ms-client-request-id", r.Method, r.URL.Path)
		}
		seen = append(seen, r.Method+" "+r.Header.Get("x-ms-correlation-request-id")+" "+r.Header.Get("User-Agent"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPut {
			w.Header().Set("Azure-AsyncOperation", "http://"+r.Host+"/operations/1")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"properties": {"provisioningState": "Creating"}}`))
			return
		}
		w.Write([]byte(`{"status": "Succeeded", "properties": {"provisioningState": "Succeeded"}}`))
	}))
	defer srv.Close()

	for _, tt := range []struct {
		name           string
		opts           Options
		wantID, wantUA string
	}{
		{"the process's run ID", Options{Version: "v1.2.3"}, RunID(), "azk/v1.2.3 azsdk-go-azk/"},
		{"a given run ID, no version", Options{RunID: "a2c0a2c0-0000-8000-8000-000000000001"}, "a2c0a2c0-0000-8000-8000-000000000001", "azk/dev azsdk-go-azk/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			seen = nil
			mu.Unlock()
			o := tt.opts
			o.Credential, o.Endpoint, o.AllowHTTP, o.Retry, o.PollFrequency = EmulatorCredential, srv.URL, true, fastRetry, time.Millisecond
			c, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			op, err := c.Put(context.Background(), id, "2021-04-01", map[string]any{"location": "westeurope"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := op.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get(context.Background(), id, "2021-04-01"); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) < 3 {
				t.Fatalf("want a PUT, a poll and a GET, got %q", seen)
			}
			for _, s := range seen {
				method, rest, _ := strings.Cut(s, " ")
				gotID, ua, _ := strings.Cut(rest, " ")
				if gotID != tt.wantID || !strings.HasPrefix(ua, tt.wantUA) {
					t.Errorf("%s carried correlation ID %q and User-Agent %q, want %q and %q…", method, gotID, ua, tt.wantID, tt.wantUA)
				}
			}
		})
	}
}

func TestUserAgentIDFitsAzcore(t *testing.T) {
	if got := userAgentID("v0.0.0-20261202052203-0123456789ab"); got != "azk/v0.0.0-2026120205220" || len(got) > 24 {
		t.Errorf("userAgentID = %q, want azcore's 24 characters", got)
	}
}
