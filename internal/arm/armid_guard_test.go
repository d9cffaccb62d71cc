package arm

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// TestNoRequestCarriesAFragmentInAName: a resource name holding # would make
// the request name the resource before it (the rest is a fragment, never
// sent). Such an ID is refused before anything goes out, for every method,
// whichever name segment holds it.
func TestNoRequestCarriesAFragmentInAName(t *testing.T) {
	emu := startEmulator(t, emulator.Options{})
	rec := &pathRecorder{next: emu.run.HTTPClient()}
	c := emu.client(t, func(o *Options) { o.Transport = rec })
	put(t, c, rgID("rg"), rgAPI, map[string]any{"location": "westus2"})
	rec.sent = nil
	refuseEveryMethod(t, c, []string{
		vnetID("rg", "victim#x"),
		vnetID("rg", "victim") + "/subnets/web#x",
		vnetID("rg", "victim#") + "/subnets/web",
		rgID("rg") + "/providers/Microsoft.Storage/storageAccounts/sa/providers/Microsoft.Authorization/roleAssignments/ra#x",
	})
	if len(rec.sent) > 0 {
		t.Errorf("%d requests were sent, the first %q", len(rec.sent), rec.sent[0])
	}
}

// refuseEveryMethod checks that c refuses each of ids, and the collection
// and action paths below them, for every method, before sending anything.
func refuseEveryMethod(t *testing.T, c *Client, ids []string) {
	t.Helper()
	ctx := testContext(t)
	for _, id := range ids {
		if _, err := c.Get(ctx, id, rgAPI); err == nil || !strings.Contains(err.Error(), "refusing to send a request") {
			t.Errorf("GET %q: %v", id, err)
		}
		if _, err := c.Put(ctx, id, rgAPI, map[string]any{"location": "westus2"}); err == nil {
			t.Errorf("PUT %q was sent", id)
		}
		if _, err := c.Delete(ctx, id, rgAPI); err == nil {
			t.Errorf("DELETE %q was sent", id)
		}
		if _, err := c.List(ctx, id+"/resources", rgAPI); err == nil {
			t.Errorf("LIST %q was sent", id)
		}
		if _, err := c.Post(ctx, id+"/purge", rgAPI, nil); err == nil {
			t.Errorf("POST %q was sent", id)
		}
	}
}
