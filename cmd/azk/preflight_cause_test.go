package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// TestPreflightOneFindingPerUnregisteredProvider: a stack of three
// identities whose provider the subscription has not registered. The
// pre-flight gives one finding for that cause (the providers check's,
// listing the three), not one more per resource ARM's validation refuses;
// with --register-providers it is a warning, so apply --preflight
// registers the provider and applies.
func TestPreflightOneFindingPerUnregisteredProvider(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, pfApp, "2021-04-01", map[string]any{"location": "westus2"})
	post(t, c, "/subscriptions/"+emulatorSubscription+"/providers/Microsoft.ManagedIdentity/unregister", "2021-04-01", nil)
	dir := t.TempDir()
	names := []string{"cause-a", "cause-b", "cause-c"}
	if err := os.WriteFile(filepath.Join(dir, "identities.yaml"), []byte(identityDocs(map[string]string{"cause-a": pfApp, "cause-b": pfApp, "cause-c": pfApp}, names...)), 0o644); err != nil {
		t.Fatal(err)
	}
	// causes are the findings about something to fix: all but the plan's
	// steady-state write cost, which every pre-flight reports.
	causes := func(p *planner.Plan) []planner.Finding {
		var out []planner.Finding
		for _, f := range p.Preflight.Findings {
			if f.Check != "steady-state" {
				out = append(out, f)
			}
		}
		return out
	}
	affectsAll := func(f planner.Finding) bool {
		for _, n := range names {
			if !strings.Contains(f.Message, "managedidentity.azure.com/UserAssignedIdentity/default/"+n) {
				return false
			}
		}
		return true
	}

	p, errOut, code := preflightOf(t, flags, dir)
	got := causes(p)
	if code != 1 || len(got) != 1 || got[0].Code != "ProviderNotRegistered" || got[0].Severity != planner.SeverityError || !affectsAll(got[0]) {
		t.Fatalf("plan --preflight: exit %d, findings %+v; want exactly one ProviderNotRegistered error listing the three identities\n%s", code, got, errOut)
	}

	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--preflight", "--register-providers", "--auto-approve"}, flags...)...)
	if code != 0 {
		t.Fatalf("apply --preflight --register-providers: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply --preflight --register-providers", out, "[providers ProviderWillBeRegistered]", "Pre-flight: 0 errors, 1 warning", "Apply complete! Resources: 3 created")
	if strings.Contains(out, "MissingSubscriptionRegistration]") {
		t.Errorf("validate's refusal of each identity is told besides its cause:\n%s", out)
	}
	mustContain(t, "apply stderr", errOut, "Registered the resource provider Microsoft.ManagedIdentity")
	// The emulator refuses the identities' PUTs while the provider is not
	// registered: the apply's creates show it registered; ARM's list says so.
	items, err := c.List(context.Background(), "/subscriptions/"+emulatorSubscription+"/providers", "2021-04-01")
	if err != nil {
		t.Fatal(err)
	}
	registered := false
	for _, it := range items {
		var p struct{ Namespace, RegistrationState string }
		registered = registered || json.Unmarshal(it, &p) == nil && p.Namespace == "Microsoft.ManagedIdentity" && p.RegistrationState == "Registered"
	}
	if !registered {
		t.Error("Microsoft.ManagedIdentity is not registered after the apply")
	}
}
