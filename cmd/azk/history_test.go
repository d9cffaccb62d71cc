package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// historyStack is a resource group, a storage account and a network, as a
// platform team would keep them; tags set env.
func historyStack() string {
	return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: hist\nspec:\n  location: westus2\n---\n" +
		"apiVersion: storage.azure.com/v1api20230101\nkind: StorageAccount\nmetadata:\n  name: sthist\nspec:\n  location: westus2\n  owner: {name: hist}\n  kind: StorageV2\n  sku: {name: Standard_LRS}\n  tags: {env: prod}\n---\n" +
		"apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: net\nspec:\n  location: westus2\n  owner: {name: hist}\n  addressSpace: {addressPrefixes: [10.0.0.0/16]}\n  tags: {env: prod}\n"
}

const (
	histRG      = "/subscriptions/" + emulatorSubscription + "/resourceGroups/hist"
	histStorage = histRG + "/providers/Microsoft.Storage/storageAccounts/sthist"
	histVNet    = histRG + "/providers/Microsoft.Network/virtualNetworks/net"
)

// portalChanges are what a portal user did behind azk's back: public blob
// access on, the storage firewall opened to 0.0.0.0/0, the network's DNS
// servers and an owner tag. None is in the manifests.
var portalChanges = map[string]string{
	histStorage: `{"properties":{"allowBlobPublicAccess":true,"networkAcls":{"defaultAction":"Allow","ipRules":[{"value":"0.0.0.0/0","action":"Allow"}]}}}`,
	histVNet:    `{"tags":{"owner":"portal"},"properties":{"dhcpOptions":{"dnsServers":["10.9.9.9"]}}}`,
}

// appliedHistoryStack applies historyStack to a fresh emulator.
func appliedHistoryStack(t *testing.T) (*emulator.Running, func(...string) []string, string) {
	t.Helper()
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, historyStack())
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	return run, with, dir
}

// findingsOf are r's history findings by path.
func findingsOf(r *planner.Resource) map[string]planner.HistoryFinding {
	out := map[string]planner.HistoryFinding{}
	if r.History != nil {
		for _, f := range r.History.Findings {
			out[f.Path] = f
		}
	}
	return out
}

// varying are the parts of a drift report that differ from run to run:
// the emulator's clock.
var varying = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// Portal changes after a clean apply are drift, whether or not the
// manifests set what they changed: the report says who made each, when and
// through what, and --detailed-exitcode exits 2. What Azure set at creation
// is no "may reset" and no drift.
func TestHistoryAttributesPortalChanges(t *testing.T) {
	run, with, dir := appliedHistoryStack(t)
	out, errOut, code := azk(t, "", with("plan", "--drift", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Fatalf("drift report after a clean apply: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "clean drift report", out, "Drift: 0 of 3 existing resources changed in Azure.")
	for id, patch := range portalChanges {
		if err := run.Server.Drift(id, []byte(patch)); err != nil {
			t.Fatal(err)
		}
	}
	md, errOut, code := azk(t, "", with("plan", "--drift", "--detailed-exitcode", "-o", "markdown", dir)...)
	if code != 2 {
		t.Fatalf("drift report after portal changes: exit %d, want 2\n%s\n%s", code, md, errOut)
	}
	golden(t, "history-drift.md", varying.ReplaceAllString(md, "(time)"))
	mustContain(t, "drift markdown", md, "| `properties.allowBlobPublicAccess` | `true` | portal-user@contoso.example | Azure Portal |",
		"| `properties.dhcpOptions` | `{\"dnsServers\":[\"10.9.9.9\"]}` | portal-user@contoso.example | Azure Portal |", "| `tags.owner` | `\"portal\"` | portal-user@contoso.example | Azure Portal |", "0.0.0.0/0")

	out, errOut, code = azk(t, "", with("plan", "--drift", "-o", "json", dir)...)
	if code != 0 {
		t.Fatalf("drift report -o json: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, summary := decodePlan(t, out)
	if summary.Drifted != 2 {
		t.Errorf("drifted %d, want the storage account and the network", summary.Drifted)
	}
	for name, paths := range map[string][]string{
		"StorageAccount/sthist": {"properties.allowBlobPublicAccess", "properties.networkAcls.ipRules[0].value"},
		"VirtualNetwork/net":    {"tags.owner", "properties.dhcpOptions"},
	} {
		found := findingsOf(byName[name])
		for _, p := range paths {
			f, ok := found[p]
			switch {
			case !ok:
				t.Errorf("%s: no history finding at %s: %+v", name, p, byName[name].History)
			case f.Class != planner.ClassChangedOutside || f.ChangedBy != "portal-user@contoso.example" || f.ClientType != "Azure Portal" || f.Timestamp == nil || !strings.HasSuffix(f.Operation, "/write"):
				t.Errorf("%s %s: %+v, want changedOutside by the portal user through Azure Portal", name, p, f)
			}
		}
		for p, f := range found {
			if f.Class != planner.ClassChangedOutside && f.Class != planner.ClassDefault {
				t.Errorf("%s %s: class %s", name, p, f.Class)
			}
		}
	}
	if rg := byName["ResourceGroup/hist"]; rg.Drifted() || len(rg.History.ChangedOutside()) > 0 {
		t.Errorf("the untouched group drifted: %+v", rg.History)
	}

	// The plan to revert it names who changed what.
	text, errOut, code := azk(t, "", with("plan", dir)...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, text, errOut)
	}
	mustContain(t, "plan", text, "changed-outside: changed outside azk since azk's last write at", "by portal-user@contoso.example through Azure Portal")

	// With nothing retained the history cannot tell: each resource says
	// so, and the report follows the usual rules, blind to what the
	// manifests do not set.
	if err := run.AdminClient().SetHistoryRetention(t.Context(), emulator.HistoryRetention{}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = azk(t, "", with("plan", "--drift", "--detailed-exitcode", dir)...)
	if code != 2 || strings.Contains(out, "sthist has drifted") || strings.Contains(out, "portal-user") {
		t.Errorf("drift report with nothing retained: exit %d, want 2 for the network's tag alone (the usual rules; the storage account's changes unseen)\n%s\n%s", code, out, errOut)
	}
	if n := strings.Count(out, "history: unknown"); n != 1 || !strings.Contains(out, "dhcpOptions") {
		t.Errorf("the report says unknown %d times, want once, for the network with values beyond the manifests:\n%s", n, out)
	}
}

// resetLines are the "!" lines of a text plan: what the PUT may reset.
func resetLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "! ") {
			out = append(out, l)
		}
	}
	return out
}

// A password rotation plans the PUT without the "may reset" lines of the
// values the provider set when it created the server: the history shows
// they are Azure's own, and --show-defaults lists them.
func TestHistoryPasswordRotationShowsNoProviderDefaults(t *testing.T) {
	_, with, commit := appliedPRStack(t)
	commit(prStack("dev", prRotated, false))
	without, errOut, code := azk(t, "", with("plan", "--history=false", "--base", "HEAD~1", "-o", "json", "manifests")...)
	if code != 0 {
		t.Fatalf("plan --history=false: exit %d\n%s\n%s", code, without, errOut)
	}
	_, before, _ := decodePlan(t, without)
	if before["FlexibleServer/db1"].History != nil {
		t.Errorf("--history=false read the history")
	}
	if len(before["FlexibleServer/db1"].AzureOnly) == 0 {
		t.Fatalf("without the history the rotation lists nothing as may reset: nothing to tell apart")
	}
	out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "json", "manifests")...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	db := byName["FlexibleServer/db1"]
	if db.Action != planner.ActionUpdate || db.Reason != planner.ReasonSecretChanged {
		t.Fatalf("the server: %s (%s), want an update for the rotated password", db.Action, db.Reason)
	}
	if len(db.AzureOnly) != 0 || db.History == nil || len(db.History.Defaults) != len(before["FlexibleServer/db1"].AzureOnly) {
		t.Errorf("azureOnly %+v, defaults %+v: want every one of the %d values the provider set as a default", db.AzureOnly, db.History, len(before["FlexibleServer/db1"].AzureOnly))
	}
	text, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...)
	if strings.Contains(text, "may reset") || strings.Contains(text, "resets these") || len(resetLines(text)) > 0 {
		t.Errorf("the rotation's plan lists values Azure set at creation as reset:\n%s", text)
	}
	shown, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "--show-defaults", "manifests")...)
	mustContain(t, "plan --show-defaults", shown, "defaults: Azure set these at creation or at azk's write, and nobody changed them since")
}

// forcingProxy plays a provider that forces a setting on for every vault
// azk writes, whatever the body says (RBAC authorization, which no rule of
// the differ knows about: soft delete, which Key Vault does force, is a
// one-way setting the REST spec documents, so the differ's rule already
// reads it as no change).
func forcingProxy(t *testing.T, target string) string {
	t.Helper()
	return proxyTo(t, target, func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || !strings.Contains(strings.ToLower(r.URL.Path), "/microsoft.keyvault/vaults/") {
			return false
		}
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("vault PUT body: %v", err)
			return false
		}
		if props, ok := body["properties"].(map[string]any); ok {
			props["enableRbacAuthorization"] = true
		}
		raw, _ = json.Marshal(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
		return false
	})
}

func vaultStack() string {
	return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: kvg\nspec:\n  location: westus2\n---\n" +
		"apiVersion: keyvault.azure.com/v1api20230701\nkind: Vault\nmetadata:\n  name: kvhist\nspec:\n  location: westus2\n  owner: {name: kvg}\n" +
		"  properties:\n    tenantId: 00000000-0000-0000-0000-000000000000\n    sku: {family: A, name: standard}\n    enableRbacAuthorization: false\n    accessPolicies: []\n"
}

// A value the provider forces in answer to azk's own write, which nobody
// changed since, re-plans as azureKeeps (with the value to write into the
// manifests), not as a change; with the retention set to zero the history
// reaches back to nothing and the same plan says so and follows the usual
// rules.
func TestHistoryForcedValueAndZeroRetention(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	flags := endpointFlags(forcingProxy(t, run.URL))
	with := func(args ...string) []string { return append(args, flags...) }
	repo, _ := gitRepo(t, vaultStack())
	t.Chdir(repo)
	const dir, base = "manifests", "HEAD" // the manifests as applied
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := azk(t, "", with("plan", "--base", base, "-o", "json", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Fatalf("re-plan against the applied manifests: exit %d, want 0 (no change)\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	kv := byName["Vault/kvhist"]
	if kv.Action != planner.ActionNoChange || len(kv.Changes) != 0 {
		t.Errorf("the vault: %s with changes %+v, want no-change", kv.Action, kv.Changes)
	}
	if f := findingsOf(kv)["properties.enableRbacAuthorization"]; f.Class != planner.ClassAzureKeeps || f.Value != true {
		t.Errorf("enableRbacAuthorization: %+v, want azureKeeps of true", f)
	}
	text, _, _ := azk(t, "", with("plan", "--base", base, dir)...)
	mustContain(t, "plan", text, "Azure keeps properties.enableRbacAuthorization = true where the manifests say false: write properties.enableRbacAuthorization = true into the manifests")
	// Without a base azk cannot tell a forced value from an edited
	// manifest: the difference stays a change.
	out, _, _ = azk(t, "", with("plan", "-o", "json", dir)...)
	if _, byName, _ := decodePlan(t, out); changeAt(byName["Vault/kvhist"], "properties.enableRbacAuthorization") == nil {
		t.Errorf("without --base the forced value is not a change: %+v", byName["Vault/kvhist"])
	}

	if err := run.AdminClient().SetHistoryRetention(t.Context(), emulator.HistoryRetention{}); err != nil {
		t.Fatal(err)
	}
	usual, _, _ := azk(t, "", with("plan", "--history=false", "--base", base, "-o", "json", dir)...)
	_, rules, _ := decodePlan(t, usual)
	out, errOut, code = azk(t, "", with("plan", "--base", base, "-o", "json", dir)...)
	if code != 0 {
		t.Fatalf("plan with nothing retained: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ = decodePlan(t, out)
	kv = byName["Vault/kvhist"]
	if kv.Action != planner.ActionUpdate || changeAt(kv, "properties.enableRbacAuthorization") == nil || kv.History == nil ||
		!strings.Contains(kv.History.Unknown, "no change record or Activity Log event reaches back") || findingsOf(kv)["properties.enableRbacAuthorization"].Class != planner.ClassUnknown {
		t.Errorf("the vault with nothing retained: %s, changes %+v, history %+v; want the usual update and unknown", kv.Action, kv.Changes, kv.History)
	}
	if want := rules["Vault/kvhist"]; !reflect.DeepEqual(kv.AzureOnly, want.AzureOnly) || !reflect.DeepEqual(kv.Changes, want.Changes) {
		t.Errorf("with nothing retained: azureOnly %+v, changes %+v; the usual rules give %+v, %+v", kv.AzureOnly, kv.Changes, want.AzureOnly, want.Changes)
	}
	text, _, _ = azk(t, "", with("plan", "--base", base, dir)...)
	if n := strings.Count(text, "history: unknown"); n != 1 {
		t.Errorf("the plan says unknown %d times, want once for the vault:\n%s", n, text)
	}
}
