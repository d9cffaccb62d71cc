package planfile

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

func TestEndpointMismatch(t *testing.T) {
	azure := planner.Endpoint{Type: planner.EndpointAzure, Cloud: "AzurePublic", Subscription: "AAAA", Tenant: "tttt"}
	for _, c := range []struct {
		asked planner.Endpoint
		want  []string
	}{
		{planner.Endpoint{}, nil},
		{planner.Endpoint{Subscription: "aaaa", Tenant: "TTTT"}, nil},
		{planner.Endpoint{Type: planner.EndpointAzure, Cloud: "azurepublic"}, nil},
		{planner.Endpoint{Subscription: "bbbb"}, []string{"subscription bbbb, not AAAA"}},
		{planner.Endpoint{Type: planner.EndpointAzure, Cloud: "AzureChinaCloud", Tenant: "uuuu"}, []string{"cloud AzureChinaCloud, not AzurePublic", "tenant uuuu, not tttt"}},
		{planner.Endpoint{Type: planner.EndpointURL, URL: "https://127.0.0.1:8443", Subscription: "AAAA"},
			[]string{"the emulator at https://127.0.0.1:8443, subscription AAAA, not Azure (AzurePublic), subscription AAAA, tenant tttt"}},
	} {
		if got := azure.Mismatch(c.asked); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Mismatch(%+v) = %q, want %q", c.asked, got, c.want)
		}
	}
	// A plan made with no tenant took the sign-in's: naming one is no difference.
	if got := (planner.Endpoint{Type: planner.EndpointAzure, Cloud: "AzurePublic", Subscription: "s"}).Mismatch(planner.Endpoint{Tenant: "t"}); got != nil {
		t.Errorf("no recorded tenant: %q", got)
	}
	emu := planner.Endpoint{Type: planner.EndpointEmulator, State: "/work/.azk/emulator", Subscription: "s"}
	if got := emu.Mismatch(planner.Endpoint{Type: planner.EndpointEmulator, State: "/elsewhere/.azk/emulator"}); len(got) != 1 || !strings.Contains(got[0], "emulator state in /elsewhere/.azk/emulator, not /work/.azk/emulator") {
		t.Errorf("another state folder: %q", got)
	}
}

// TestSavedPlanKeepsItsEndpoint: the endpoint survives Save and Load, is
// covered by the file's digest, and holds only its description.
func TestSavedPlanKeepsItsEndpoint(t *testing.T) {
	e := &planner.Endpoint{Type: planner.EndpointURL, URL: "https://127.0.0.1:8443", CertSHA256: "ab12", Subscription: "s"}
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := Save(file, &planner.Plan{FormatVersion: planner.FormatVersion, Subscription: "s", Endpoint: e}); err != nil {
		t.Fatal(err)
	}
	p, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if p.Endpoint == nil || *p.Endpoint != *e {
		t.Errorf("loaded endpoint %+v, saved %+v", p.Endpoint, e)
	}
	edited := editPlan(t, file, false, func(tree map[string]any) {
		tree["endpoint"].(map[string]any)["url"] = "https://attacker.example"
	})
	if _, err := Load(edited); err == nil || !strings.Contains(err.Error(), "changed after azk wrote it") {
		t.Errorf("an edited endpoint was loaded: %v", err)
	}
	keys := reflect.TypeOf(planner.Endpoint{})
	for i := range keys.NumField() {
		if name := strings.ToLower(keys.Field(i).Name); strings.Contains(name, "token") || strings.Contains(name, "secret") || strings.Contains(name, "key") {
			t.Errorf("Endpoint.%s: an endpoint is described, never credentialed", keys.Field(i).Name)
		}
	}
}
