package providers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/store"
)

const sub = "/subscriptions/00000000-0000-0000-0000-000000000001"

// client sends requests to an ARM core serving the providers (and nothing
// more: no deployments, no faults), over HTTP.
type client struct {
	t    *testing.T
	base string
}

func start(t *testing.T) *client {
	t.Helper()
	p := New()
	st, err := store.Open("", p.Indexes()...)
	if err != nil {
		t.Fatal(err)
	}
	c := armcore.New(st, armcore.Config{}, faults.NewState(0, faults.Config{}))
	p.Register(c)
	srv := httptest.NewServer(c.Handler(nil, nil))
	t.Cleanup(func() { srv.Close(); c.Close() })
	return &client{t: t, base: srv.URL}
}

// do sends a request without a body and decodes the JSON answer.
func (c *client) do(method, path string, _ any) (*http.Response, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		c.t.Fatalf("%s %s: body is not JSON: %v", method, path, err)
	}
	return resp, m
}

func mustStatus(t *testing.T, resp *http.Response, body map[string]any, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %v", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}

func TestRoleDefinitions(t *testing.T) {
	c := start(t)
	for _, scope := range []string{"", sub} {
		resp, page := c.do(http.MethodGet, scope+"/providers/Microsoft.Authorization/roleDefinitions?api-version=2022-04-01&$filter="+
			"roleName%20eq%20'Storage%20Blob%20Data%20Reader'", nil)
		mustStatus(t, resp, page, http.StatusOK)
		v := page["value"].([]any)
		if len(v) != 1 {
			t.Fatalf("scope %q: %d matches", scope, len(v))
		}
		role := v[0].(map[string]any)
		if role["name"] != "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1" || role["id"] != scope+"/providers/Microsoft.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1" {
			t.Fatalf("scope %q: %v", scope, role)
		}
	}
	resp, page := c.do(http.MethodGet, "/providers/Microsoft.Authorization/roleDefinitions?api-version=2022-04-01", nil)
	mustStatus(t, resp, page, http.StatusOK)
	if len(page["value"].([]any)) != len(builtInRoles) {
		t.Fatalf("unfiltered list has %d roles", len(page["value"].([]any)))
	}
	resp, one := c.do(http.MethodGet, sub+"/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7?api-version=2022-04-01", nil)
	mustStatus(t, resp, one, http.StatusOK)
	if one["properties"].(map[string]any)["roleName"] != "Reader" {
		t.Fatalf("role by GUID: %v", one)
	}
	resp, bad := c.do(http.MethodGet, "/providers/Microsoft.Authorization/roleDefinitions?api-version=2022-04-01&$filter=type%20eq%20'x'", nil)
	mustStatus(t, resp, bad, http.StatusBadRequest)
}

// TestBuiltInRoleGUIDsMatchCorpus checks every seeded GUID against the role
// list real ARM returned in a corpus recording.
func TestBuiltInRoleGUIDsMatchCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "recordings", "Test_Authorization_v20220401_CreationAndDeletion.yaml"))
	if err != nil {
		t.Skipf("corpus recording not available: %v", err)
	}
	text := string(data)
	for _, r := range builtInRoles {
		i := strings.Index(text, `"roleName":"`+r.name+`","type":"BuiltInRole"`)
		if i < 0 {
			t.Errorf("%s: not in the recorded role list", r.name)
			continue
		}
		end := min(len(text), i+20000)
		if j := strings.Index(text[i:end], `"name":"`); j < 0 || !strings.HasPrefix(text[i+j+8:], r.guid) {
			t.Errorf("%s: recorded GUID differs from %s", r.name, r.guid)
		}
	}
}
