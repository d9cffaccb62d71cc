package arm

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// The emulator has no read replication lag, so this ARM behaviour is served
// by hand: a resource azk just created is not found by the first read.
func TestReadRightAfterOwnCreateRidesThroughLag(t *testing.T) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodPut:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"` + r.URL.Path + `","properties":{"provisioningState":"Succeeded"}}`))
		case http.MethodGet:
			if gets.Add(1) <= 2 {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"error":{"code":"ResourceNotFound","message":"not yet"}}`))
				return
			}
			_, _ = w.Write([]byte(`{"id":"` + r.URL.Path + `","etag":"W/\"1\""}`))
		}
	}))
	defer srv.Close()
	c, err := New(Options{Credential: EmulatorCredential, Endpoint: srv.URL, AllowHTTP: true, Retry: fastRetry, ReplicationWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	id := rgID("lag") + "/providers/Microsoft.Storage/storageAccounts/sa"

	// Not created by azk: the 404 is final.
	if _, err := c.Get(testContext(t), id, "2023-01-01"); !IsNotFound(err) {
		t.Fatalf("got %v, want 404", err)
	}
	put(t, c, id, "2023-01-01", map[string]any{"location": "westus2"})
	res, err := c.Get(testContext(t), id, "2023-01-01")
	if err != nil {
		t.Fatal(err)
	}
	if res.ETag != `W/"1"` || gets.Load() != 3 {
		t.Errorf("ETag %q after %d GETs, want the body's etag after 3", res.ETag, gets.Load())
	}
}
