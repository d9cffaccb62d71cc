package deployment

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
)

// TestOperationErrorsAreRedacted: a deployment operation that failed with a
// message, and details, quoting a secret (a resource provider echoing the
// request) is reported with every part of its message scrubbed by the
// client's Redact.
func TestOperationErrorsAreRedacted(t *testing.T) {
	const secret = "s3cret-Op-Pa55word"
	var rewrote atomic.Int32
	var upstream atomic.Value // the emulator's http.Handler, set once the proxy starts
	client, emulator := followThrough(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !nestedOperations.MatchString(r.URL.Path) {
			return false
		}
		// ARM's list, with the identities' operations failed as a provider may fail them.
		rec := httptest.NewRecorder()
		upstream.Load().(http.Handler).ServeHTTP(rec, r)
		var list struct {
			Value []map[string]any `json:"value"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			t.Errorf("operations: %v", err)
			return false
		}
		for _, op := range list.Value {
			props, _ := op["properties"].(map[string]any)
			target, _ := props["targetResource"].(map[string]any)
			if typ, _ := target["resourceType"].(string); !strings.EqualFold(typ, "Microsoft.ManagedIdentity/userAssignedIdentities") {
				continue
			}
			props["provisioningState"] = "Failed"
			props["statusMessage"] = map[string]any{"error": map[string]any{
				"code": "InvalidParameter", "message": "The request with password " + secret + " is not valid.",
				"details": []any{map[string]any{"code": "PasswordEcho", "message": `{"password":"` + secret + `"}`}},
			}}
			rewrote.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
		return true
	})
	upstream.Store(emulator)
	redacting, err := arm.New(arm.Options{Subscription: sub, Endpoint: client.Endpoint(), AllowHTTP: true, Credential: arm.EmulatorCredential,
		PollFrequency: 10 * time.Millisecond, Retry: arm.RetryOptions{MaxAttempts: 2, Delay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond},
		Redact: func(s string) string { return strings.ReplaceAll(s, secret, "(redacted)") }})
	if err != nil {
		t.Fatal(err)
	}
	rep, _, _ := applyThrough(t, redacting, 0)
	text := reportText(rep)
	if rewrote.Load() == 0 {
		t.Fatalf("no operation was failed: the test proves nothing\n%s", text)
	}
	if rep.Count(applier.OutcomeFailed) == 0 || !strings.Contains(text, "InvalidParameter") || !strings.Contains(text, "PasswordEcho") {
		t.Fatalf("the failed operations are not reported with their error:\n%s", text)
	}
	if strings.Contains(text, secret) || !strings.Contains(text, "(redacted)") {
		t.Errorf("the report does not scrub the operations' messages:\n%s", text)
	}
}
