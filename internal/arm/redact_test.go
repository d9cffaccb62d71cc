package arm

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestErrorMessagesAreRedactedAsRead: a resource provider that quotes the
// request body in its error, at once (400) or when the operation fails
// (Azure-AsyncOperation status Failed), has the message scrubbed by
// Options.Redact before any error carries it.
func TestErrorMessagesAreRedactedAsRead(t *testing.T) {
	const secret = "hunter2-is-weak"
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/at-once"):
			body, _ := io.ReadAll(r.Body)
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":"InvalidParameter","message":"bad body ` + strings.ReplaceAll(string(body), `"`, `\"`) + `"}}`))
		case r.Method == http.MethodPut:
			w.Header().Set("Azure-AsyncOperation", srv.URL+"/operations/1")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"properties":{"provisioningState":"Accepted"}}`))
		case strings.HasPrefix(r.URL.Path, "/operations/"):
			_, _ = w.Write([]byte(`{"status":"Failed","error":{"code":"Conflict","message":"password ` + secret + ` was refused"}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "(redacted)") }
	c, err := New(Options{Credential: EmulatorCredential, Endpoint: srv.URL, AllowHTTP: true, Retry: fastRetry, PollFrequency: 1, Redact: redact})
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"properties": map[string]any{"password": secret}}
	for _, name := range []string{"at-once", "later"} {
		id := rgID("rg") + "/providers/Microsoft.Example/things/" + name
		ctx := testContext(t)
		op, err := c.Put(ctx, id, "2023-01-01", body)
		if err == nil {
			_, err = op.Wait(ctx)
		}
		var re *ResponseError
		if !errors.As(err, &re) {
			t.Fatalf("%s: got %v, want a *ResponseError", name, err)
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(re.Message, secret) || !strings.Contains(re.Message, "(redacted)") {
			t.Errorf("%s: the message is not redacted: %v", name, err)
		}
		if !strings.Contains(err.Error(), id) {
			t.Errorf("%s: the error lost the resource's ID: %v", name, err)
		}
	}
	if got := c.Redacted("x " + secret); got != "x (redacted)" {
		t.Errorf("Redacted = %q", got)
	}
}
