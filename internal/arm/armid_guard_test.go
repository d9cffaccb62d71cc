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
	ctx := testContext(t)
	put(t, c, rgID("rg"), rgAPI, map[string]any{"location": "westus2"})
	rec.sent = nil
	for _, id := range []string{
		vnetID("rg", "victim#x"),
		vnetID("rg", "victim") + "/subnets/web#x",
		vnetID("rg", "victim#") + "/subnets/web",
		rgID("rg") + "/providers/Microsoft.Storage/storageAccounts/sa/providers/Microsoft.Authorization/roleAssignments/ra#x",
	} {
		if _, err := c.Get(ctx, id, networkAPI); err == nil || !strings.Contains(err.Error(), "refusing to send a request") {
			t.Errorf("GET %q: %v", id, err)
		}
		if _, err := c.Put(ctx, id, networkAPI, map[string]any{"location": "westus2"}); err == nil {
			t.Errorf("PUT %q was sent", id)
		}
		if _, err := c.Delete(ctx, id, networkAPI); err == nil {
			t.Errorf("DELETE %q was sent", id)
		}
		if _, err := c.List(ctx, id+"/subnets", networkAPI); err == nil {
			t.Errorf("LIST %q was sent", id)
		}
		if _, err := c.Post(ctx, id+"/listKeys", networkAPI, nil); err == nil {
			t.Errorf("POST %q was sent", id)
		}
	}
	if len(rec.sent) > 0 {
		t.Errorf("%d requests were sent, the first %q", len(rec.sent), rec.sent[0])
	}
}
