package armcore

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/identity"
	"github.com/azkcli/azk/internal/emulator/store"
)

// TestPrincipalOfReachesInnerMiddleware: the inner middleware (where RBAC
// enforcement belongs) reads who a request acts as: the principal of a token
// the emulator issued, or the default principal for an opaque token, as
// ARM reads the caller from the token it verified.
func TestPrincipalOfReachesInnerMiddleware(t *testing.T) {
	st, err := store.Open("")
	if err != nil {
		t.Fatal(err)
	}
	c := New(st, Config{}, faults.NewState(0, faults.Config{}))
	t.Cleanup(func() { c.Close() })
	var seen Principal
	capture := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen, _ = PrincipalOf(r)
			next.ServeHTTP(w, r)
		})
	}
	h := c.Handler(nil, []Middleware{capture})
	app := identity.ForApplication("client-1")
	token, _, err := c.Issuer().Issue("https://emulator/"+Tenant+"/v2.0", app, "https://management.azure.com/")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token string
		want  Principal
	}{
		{token, app},
		{"azk-emulator", identity.Default},
	} {
		req := httptest.NewRequest(http.MethodGet, "/subscriptions/"+DefaultSubscription+"/resourcegroups?api-version=2021-04-01", nil)
		req.Header.Set("Authorization", "Bearer "+tc.token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || seen != tc.want {
			t.Errorf("token %.12s…: %d, principal %+v; want 200 and %+v", tc.token, rec.Code, seen, tc.want)
		}
	}
	wrongAudience, _, _ := c.Issuer().Issue("https://emulator/"+Tenant+"/v2.0", app, "https://storage.azure.com/")
	req := httptest.NewRequest(http.MethodGet, "/subscriptions?api-version=2022-12-01", nil)
	req.Header.Set("Authorization", "Bearer "+wrongAudience)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var body struct{ Error Error }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != http.StatusUnauthorized || body.Error.Code != "InvalidAuthenticationTokenAudience" {
		t.Errorf("a storage token at ARM: %d %s", rec.Code, body.Error.Code)
	}
}

// TestStrictJSON: request bodies are read as ARM's lenient reader reads
// them (comments, bare property names, trailing commas), as the Azure CLI's
// deployment requests need; strict JSON passes unchanged.
func TestStrictJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1}`: `{"a": 1}`,
		`{"properties": {"mode": "Incremental"}, template:{"x": [1,2,], // note
 /* c */ "y": 'q'}}`: `{"properties": {"mode": "Incremental"}, "template":{"x": [1,2], ` + "\n" + `   "y": "q"}}`,
		`{"s": "http://x//y", "t": "a /* b */"}`: `{"s": "http://x//y", "t": "a /* b */"}`,
		`{broken`:                                `{broken`,
	} {
		if got := string(strictJSON([]byte(in))); got != want {
			t.Errorf("strictJSON(%q) = %q, want %q", in, got, want)
		}
	}
}
