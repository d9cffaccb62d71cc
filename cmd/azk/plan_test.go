package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
)

const (
	planManifest = "testdata/plan/app.yaml"
	planRG       = "/subscriptions/" + emulatorSubscription + "/resourceGroups/rg-cli"
	planIdentity = planRG + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-cli"
)

// planAzure is an in-process emulator over plain HTTP, the flags that point
// azk at it, and a client to seed it.
type planAzure struct {
	url    string
	flags  []string
	client *arm.Client
}

func startPlanAzure(t *testing.T) *planAzure {
	t.Helper()
	run, flags := startEmulator(t, emulator.Options{})
	client, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: emulatorSubscription,
		Endpoint: run.URL, AllowHTTP: true, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &planAzure{url: run.URL, flags: flags, client: client}
}

func (a *planAzure) put(t *testing.T, id, apiVersion string, body map[string]any) {
	t.Helper()
	putAndWait(t, a.client, id, apiVersion, body)
}

func (a *planAzure) plan(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return azk(t, "", append(append([]string{"plan"}, args...), a.flags...)...)
}

// TestPlanOutputsAndSavedPlan: every output format of a plan that creates,
// and azk show of the saved plan renders the same.
func TestPlanOutputsAndSavedPlan(t *testing.T) {
	az := startPlanAzure(t)
	saved := filepath.Join(t.TempDir(), "plan.azk")
	for _, format := range []string{"text", "json", "markdown"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := az.plan(t, planManifest, "-o", format, "--out", saved)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "Saved the plan to "+saved) {
				t.Errorf("stderr: %q", errOut)
			}
			// The emulator's port differs from run to run.
			golden(t, "plan-create."+format, strings.ReplaceAll(out, az.url, "http://EMULATOR"))
			shown, errOut, code := azk(t, "", "show", saved, "-o", format)
			if code != 0 || shown != out {
				t.Errorf("azk show: exit %d, %s; differs from the plan:\n%s", code, errOut, shown)
			}
		})
	}
	raw, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		FormatVersion int    `json:"formatVersion"`
		SecretSalt    string `json:"secretSalt"`
	}
	if err := json.Unmarshal(raw, &file); err != nil || file.FormatVersion != 2 || file.SecretSalt == "" {
		t.Errorf("saved plan: %v %+v", err, file)
	}
	if _, errOut, code := azk(t, "", "show", filepath.Join(t.TempDir(), "missing.azk")); code != 1 || !strings.Contains(errOut, "missing.azk") {
		t.Errorf("show of a missing file: exit %d, %q", code, errOut)
	}
}

// TestPlanExitCodes: without --detailed-exitcode, 0 unless an error; with
// it, 0 without changes, 2 with, 1 on error (anything blocked included).
func TestPlanExitCodes(t *testing.T) {
	az := startPlanAzure(t)
	exit := func(args ...string) int {
		t.Helper()
		_, _, code := az.plan(t, args...)
		return code
	}
	summary := func(args ...string) string {
		t.Helper()
		out, _, _ := az.plan(t, args...)
		out = strings.TrimSpace(out)
		return out[strings.LastIndex(out, "\n")+1:]
	}

	// Nothing in Azure: two creates.
	if got := exit(planManifest); got != 0 {
		t.Errorf("creates, plain: exit %d, want 0", got)
	}
	if got := exit(planManifest, "--detailed-exitcode"); got != 2 {
		t.Errorf("creates, --detailed-exitcode: exit %d, want 2", got)
	}

	// Both exist as written: nothing to do, whoever created them.
	az.put(t, planRG, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "prod"}})
	az.put(t, planIdentity, "2023-01-31", map[string]any{"location": "westus2"})
	if got := summary(planManifest); got != "Plan: 0 to create, 0 to update, 2 unchanged, 0 skipped, 0 blocked." {
		t.Errorf("existing without changes: %q", got)
	}
	if got := exit(planManifest, "--detailed-exitcode"); got != 0 {
		t.Errorf("existing without changes, --detailed-exitcode: exit %d, want 0", got)
	}
	// Adopted under if-exists skip: nothing is sent, but apply records the
	// decided policy in the manifest, which is a change.
	if got := exit(planManifest, "--detailed-exitcode", "--reconcile-policy-if-exists", "skip"); got != 2 {
		t.Errorf("skip, --detailed-exitcode: exit %d, want 2 (a policy to record)", got)
	}

	// A tag changed in Azure: the update changes it back.
	az.put(t, planRG, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "dev"}})
	if got := exit(planManifest, "--detailed-exitcode"); got != 2 {
		t.Errorf("update, --detailed-exitcode: exit %d, want 2", got)
	}
	if got := exit(planManifest); got != 0 {
		t.Errorf("update, plain: exit %d, want 0", got)
	}
	if got := exit(planManifest, "--drift", "--detailed-exitcode"); got != 2 {
		t.Errorf("drift report of a drifted tag: exit %d, want 2", got)
	}

	// The identity is elsewhere (deleted and made again there, since ARM
	// refuses to move a resource): replace required is an error either way.
	if op, err := az.client.Delete(context.Background(), planIdentity, "2023-01-31"); err != nil {
		t.Fatal(err)
	} else if _, err := op.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	az.put(t, planIdentity, "2023-01-31", map[string]any{"location": "eastus"})
	for _, args := range [][]string{{planManifest}, {planManifest, "--detailed-exitcode"}} {
		if got := exit(args...); got != 1 {
			t.Errorf("replace required %v: exit %d, want 1", args[1:], got)
		}
	}

	// Input errors and bad flags are errors too.
	if got := exit("testdata/plan/missing.yaml", "--detailed-exitcode"); got != 1 {
		t.Errorf("missing input: exit %d, want 1", got)
	}
	if got := exit(planManifest, "--reconcile-policy-if-exists", "sometimes", "--detailed-exitcode"); got != 1 {
		t.Errorf("bad policy: exit %d, want 1", got)
	}
	// Terraform's single-dash -out saves the plan too.
	saved := filepath.Join(t.TempDir(), "plan.azk")
	if _, errOut, code := az.plan(t, planManifest, "-out", saved); code != 1 || !strings.Contains(errOut, "Saved the plan to "+saved) {
		t.Errorf("-out: exit %d (want 1: the plan needs a replace), %q", code, errOut)
	}
}
