package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// savedHint is the command plan -out printed to apply the plan, as words.
func savedHint(t *testing.T, errOut string) []string {
	t.Helper()
	m := regexp.MustCompile(`apply it with (azk apply \S+)\n`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("plan -out printed no command to apply it:\n%s", errOut)
	}
	return strings.Fields(m[1])[1:]
}

// savedEndpoint reads the endpoint recorded in a saved plan file, as JSON.
func savedEndpoint(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Endpoint map[string]any `json:"endpoint"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Endpoint
}

// TestSavedPlanAppliesWhereItWasMade: plan --emulator -out prints a command
// that applies the plan as printed, in the emulator it was made in, even with
// AZURE_SUBSCRIPTION_ID naming another subscription (before, apply went to
// Azure, or failed with "no Azure subscription"); flags naming another
// endpoint are refused unless --allow-other-endpoint (issue 25, item 1).
func TestSavedPlanAppliesWhereItWasMade(t *testing.T) {
	dir := copyExample(t, "quickstart")
	t.Chdir(t.TempDir())
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
	t.Setenv(envSubscription, "")
	os.Unsetenv(envSubscription)
	t.Setenv(envEndpoint, "")
	os.Unsetenv(envEndpoint)

	_, errOut, code := azk(t, "", "plan", "--emulator", dir, "-out", "plan.azk")
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	hint := savedHint(t, errOut)
	state, _ := filepath.Abs(filepath.Join(".azk", "emulator"))
	want := map[string]any{"type": "emulator", "state": state, "subscription": emulatorSubscription}
	if got := savedEndpoint(t, "plan.azk"); !equalJSON(got, want) {
		t.Errorf("recorded endpoint %v, want %v", got, want)
	}
	mustContain(t, "plan -out", errOut, "(made against the in-process emulator (--emulator) with its state in "+state+", subscription "+emulatorSubscription+")")

	// Another emulator, named by flags, is refused: nothing is written there.
	other, otherFlags := startEmulator(t, emulator.Options{})
	out, errOut, code := azk(t, "", append(append([]string(nil), hint...), otherFlags...)...)
	if code != 1 || strings.Contains(out, "Creating...") {
		t.Fatalf("apply to another endpoint: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "refusal", errOut, "the saved plan was made against the in-process emulator", "the flags name the emulator at "+other.URL, "--allow-other-endpoint")

	// As printed, with the environment naming a real subscription.
	t.Setenv(envSubscription, "11111111-2222-3333-4444-555555555555")
	out, errOut, code = azk(t, "", hint...)
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 9 created") {
		t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(hint, " "), code, out, errOut)
	}
	mustContain(t, "apply", errOut, "Warning: AZURE_SUBSCRIPTION_ID is set but not used: the saved plan was made against the in-process emulator")
	os.Unsetenv(envSubscription)
	if out, errOut, code := azk(t, "", "plan", "--emulator", dir); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("re-plan after applying the saved plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestSavedPlanAtAnEndpoint: a plan made against an emulator at a URL
// (plain HTTP here) records it and applies there with no flag; another
// subscription named by flags is refused, and --allow-other-endpoint applies
// it to another emulator.
func TestSavedPlanAtAnEndpoint(t *testing.T) {
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
	run, flags := startEmulator(t, emulator.Options{})
	dir := copyExample(t, "quickstart")
	planFile := filepath.Join(t.TempDir(), "my plan.azk")
	_, errOut, code := azk(t, "", append([]string{"plan", dir, "-out", planFile}, flags...)...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	mustContain(t, "plan -out", errOut, "apply it with azk apply '"+planFile+"'\n")
	want := map[string]any{"type": "url", "url": run.URL, "subscription": emulatorSubscription}
	if got := savedEndpoint(t, planFile); !equalJSON(got, want) {
		t.Errorf("recorded endpoint %v, want %v", got, want)
	}

	_, errOut, code = azk(t, "", "apply", planFile, "--subscription", "11111111-2222-3333-4444-555555555555")
	if code != 1 || !strings.Contains(errOut, "the flags name subscription 11111111-2222-3333-4444-555555555555, not "+emulatorSubscription) {
		t.Errorf("apply in another subscription: exit %d\n%s", code, errOut)
	}

	other, otherFlags := startEmulator(t, emulator.Options{})
	out, errOut, code := azk(t, "", append([]string{"apply", planFile, "--allow-other-endpoint"}, otherFlags...)...)
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 9 created") {
		t.Fatalf("apply --allow-other-endpoint: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply --allow-other-endpoint", errOut, "Warning: applying a plan made against the emulator at "+run.URL)
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart"
	if body := getBody(t, other, rg, "2021-04-01"); body["name"] != "azk-quickstart" {
		t.Errorf("the other emulator has no resource group: %v", body)
	}

	// The plan is current for its own emulator too, and applies there with no flag.
	out, errOut, code = azk(t, "", "apply", planFile)
	if code != 0 || !strings.Contains(out, "Apply complete! Resources: 9 created") {
		t.Fatalf("apply PLANFILE: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestSavedAzurePlanRestoresItsAccount: a plan made in Azure gives apply its
// cloud, subscription and tenant where flags say nothing, and refuses flags
// naming others.
func TestSavedAzurePlanRestoresItsAccount(t *testing.T) {
	rec := &planner.Endpoint{Type: planner.EndpointAzure, Cloud: "AzureChinaCloud", Subscription: "sub-a", Tenant: "tenant-a"}
	run := func(args ...string) (*azureFlags, *globalOptions, string, error) {
		var stderr bytes.Buffer
		g := &globalOptions{stdout: &bytes.Buffer{}, stderr: &stderr}
		f := &azureFlags{}
		var allow bool
		var err error
		cmd := &cobra.Command{Use: "apply", RunE: func(cmd *cobra.Command, _ []string) error {
			err = useSavedEndpoint(cmd, g, f, &planner.Plan{Endpoint: rec}, allow)
			return nil
		}}
		cmd.Flags().StringVar(&g.subscription, "subscription", "", "")
		f.register(cmd)
		registerAllowOtherEndpoint(cmd, &allow)
		cmd.SetArgs(args)
		if e := cmd.Execute(); e != nil {
			t.Fatal(e)
		}
		return f, g, stderr.String(), err
	}
	t.Setenv(envEndpoint, "https://127.0.0.1:9999")
	t.Setenv(envTenant, "tenant-b")
	f, g, warnings, err := run()
	if err != nil || f.cloud != "AzureChinaCloud" || f.tenant != "tenant-a" || g.subscription != "sub-a" || f.endpoint != "" || f.emulator {
		t.Errorf("restored: %v, cloud %q tenant %q subscription %q endpoint %q", err, f.cloud, f.tenant, g.subscription, f.endpoint)
	}
	mustContain(t, "warnings", warnings, "Warning: AZK_ENDPOINT is set but not used", "Warning: AZURE_TENANT_ID is set but not used")
	for _, args := range [][]string{{"--cloud", "AzurePublic"}, {"--tenant", "tenant-b"}, {"--subscription", "sub-b"}, {"--emulator"}} {
		if _, _, _, err := run(args...); err == nil || !strings.Contains(err.Error(), "the saved plan was made against Azure (AzureChinaCloud), subscription sub-a, tenant tenant-a") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if f, g, _, err := run("--subscription", "SUB-A", "--cloud", "azurechinacloud"); err != nil || g.subscription != "SUB-A" || f.tenant != "tenant-a" {
		t.Errorf("matching flags: %v, subscription %q tenant %q", err, g.subscription, f.tenant)
	}
	if f, _, _, err := run("--tenant", "tenant-b", "--allow-other-endpoint"); err != nil || f.tenant != "tenant-b" {
		t.Errorf("--allow-other-endpoint: %v, tenant %q", err, f.tenant)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
