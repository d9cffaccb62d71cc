package arm

import (
	"net/http"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// pathRecorder keeps the escaped path and query of every request sent.
type pathRecorder struct {
	next *http.Client
	mu   sync.Mutex
	sent []string
}

func (p *pathRecorder) Do(req *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.sent = append(p.sent, req.Method+" "+req.URL.EscapedPath()+"?"+req.URL.RawQuery)
	p.mu.Unlock()
	return p.next.Do(req)
}

// TestEveryRequestPathIsParsed: a path that would carry its own query or
// fragment, or name another resource through escapes, is refused before
// anything is sent; a valid name is sent with its segment escaped.
func TestEveryRequestPathIsParsed(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	rec := &pathRecorder{next: emu.run.HTTPClient()}
	c := emu.client(t, func(o *Options) { o.Transport = rec })
	ctx := testContext(t)
	refuseEveryMethod(t, c, []string{
		rgID("victim-rg?api-version=2020-06-01&x="),
		rgID("victim-rg#x"),
		rgID("victim-rg%2F.."),
		rgID("victim-rg") + "/providers/Microsoft.Network/virtualNetworks/..",
		rgID("victim-rg") + "/providers/Microsoft.Network/virtualNetworks/a b",
		"/subscriptions/" + testSub + "?x=/resourceGroups/rg",
	})
	if len(rec.sent) > 0 {
		t.Fatalf("requests were sent: %q", rec.sent)
	}
	// A PUT is never sent to a collection or action path.
	if _, err := c.Put(ctx, rgID("rg")+"/resources", rgAPI, map[string]any{}); err == nil {
		t.Errorf("a PUT to a collection was sent: %q", rec.sent)
	}

	put(t, c, rgID("rg"), rgAPI, map[string]any{"location": "westus2"})
	site := rgID("rg") + "/providers/Microsoft.Web/sites/app-ü"
	put(t, c, site, "2022-03-01", map[string]any{"location": "westus2"})
	if got, want := rec.sent[len(rec.sent)-1], "PUT /subscriptions/"+testSub+"/resourceGroups/rg/providers/Microsoft.Web/sites/app-%C3%BC?api-version=2022-03-01"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
}
