package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/providers"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

const (
	rgApp    = "/subscriptions/" + emulatorSubscription + "/resourceGroups/rg-app"
	rgLocked = "/subscriptions/" + emulatorSubscription + "/resourceGroups/rg-locked"
	// contributor is the built-in Contributor role's ID.
	contributor   = "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"
	otherSub      = "11111111-1111-4111-8111-111111111111"
	operatorOID   = "0a0a0a0a-0000-4000-8000-00000000000a"
	authzVersion  = "2022-04-01"
	policyVersion = "2021-06-01"
)

// preflightStack is a stack with one resource for each pre-flight check to
// find fault with; ipRule is the storage account's network rule value
// ("" leaves it out, which ARM's validation refuses).
func preflightStack(t *testing.T, dir, ipRule string) {
	t.Helper()
	value := ""
	if ipRule != "" {
		value = "\n        value: " + ipRule
	}
	doc := `apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata: {name: pftaken}
spec:
  location: westus2
  kind: StorageV2
  sku: {name: Standard_LRS}
  owner: {armId: ` + rgApp + `}
---
apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata: {name: pfpolicy}
spec:
  location: westus2
  kind: StorageV2
  sku: {name: Standard_LRS}
  allowBlobPublicAccess: ` + map[bool]string{true: "false", false: "true"}[ipRule != ""] + `
  owner: {armId: ` + rgApp + `}
---
apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata: {name: pfinvalid}
spec:
  location: westus2
  kind: StorageV2
  sku: {name: Standard_LRS}
  networkAcls:
    defaultAction: Deny
    ipRules:
      - action: Allow` + value + `
  owner: {armId: ` + rgApp + `}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata: {name: pf-id}
spec:
  location: westus2
  owner: {armId: ` + rgApp + `}
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata: {name: pf-vnet}
spec:
  location: westus2
  addressSpace: {addressPrefixes: [10.0.0.0/16]}
  owner: {armId: ` + rgApp + `}
---
apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata: {name: pf-aks}
spec:
  location: westus2
  dnsPrefix: pfaks
  agentPoolProfiles:
    - {name: pool1, count: 3, vmSize: Standard_D2s_v3, osType: Linux, mode: System}
  identity: {type: SystemAssigned}
  owner: {armId: ` + rgApp + `}
---
apiVersion: network.azure.com/v1api20201101
kind: NetworkSecurityGroup
metadata: {name: pf-nsg}
spec:
  location: westus2
  owner: {armId: ` + rgLocked + `}
`
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// countWrites puts a proxy in front of the emulator that counts the
// requests that change something (every method but GET and HEAD, less
// the checks ARM documents as read-only) and returns azk's flags for it.
func countWrites(t *testing.T, run *emulator.Running, n *atomic.Int64) []string {
	front := proxyTo(t, run.URL, func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.HasPrefix(r.URL.Path, "/_emulator/") && !readOnlyCheck(r) {
			n.Add(1)
		}
		return false
	})
	return endpointFlags(front)
}

func clientFor(t *testing.T, run *emulator.Running, sub string) *arm.Client {
	t.Helper()
	c, err := arm.New(arm.Options{Subscription: sub, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func post(t *testing.T, c *arm.Client, path, version string, body any) {
	t.Helper()
	op, err := c.Post(context.Background(), path, version, body)
	if err == nil {
		_, err = op.Wait(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
}

func del(t *testing.T, c *arm.Client, id, version string) {
	t.Helper()
	op, err := c.Delete(context.Background(), id, version)
	if err == nil {
		_, err = op.Wait(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// assignRole gives principal role at scope, through ARM's own API.
func assignRole(t *testing.T, c *arm.Client, scope, name, role, principal string) string {
	id := scope + "/providers/Microsoft.Authorization/roleAssignments/" + name
	putAndWait(t, c, id, authzVersion, map[string]any{"properties": map[string]any{"roleDefinitionId": role, "principalId": principal, "principalType": "ServicePrincipal"}})
	return id
}

// preflightOf runs azk plan --preflight -o json and returns the plan and exit code.
func preflightOf(t *testing.T, flags []string, dir string, extra ...string) (*planner.Plan, string, int) {
	t.Helper()
	args := append([]string{"plan", dir, "--preflight", "-o", "json"}, extra...)
	out, errOut, code := azk(t, "", append(args, flags...)...)
	var p planner.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan -o json: %v\n%s\n%s", err, out, errOut)
	}
	if p.Preflight == nil {
		t.Fatalf("the plan has no pre-flight:\n%s", out)
	}
	return &p, errOut, code
}

func findingCodes(p *planner.Plan, severity planner.Severity) map[string]string {
	out := map[string]string{}
	for _, f := range p.Preflight.Findings {
		if f.Severity == severity {
			out[f.Address] += f.Code + " "
		}
	}
	return out
}

// TestPreflightFindsWhatApplyWouldMeet seeds, through ARM's own APIs where
// ARM has them and the admin API otherwise, one fault for each check, and
// shows that plan --preflight reports each against its resource with its
// code and exits 1, that apply --preflight writes nothing, and that with
// the seeds removed both pass and apply converges.
func TestPreflightFindsWhatApplyWouldMeet(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	other := clientFor(t, run, otherSub)
	ctx := context.Background()
	admin := run.AdminClient()

	for _, rg := range []string{rgApp, rgLocked} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	// A storage account name another subscription holds.
	putAndWait(t, other, "/subscriptions/"+otherSub+"/resourceGroups/other", "2021-04-01", map[string]any{"location": "westus2"})
	takenID := "/subscriptions/" + otherSub + "/resourceGroups/other/providers/Microsoft.Storage/storageAccounts/pftaken"
	putAndWait(t, other, takenID, "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
	// An unregistered provider.
	post(t, c, "/subscriptions/"+emulatorSubscription+"/providers/Microsoft.ManagedIdentity/unregister", "2021-04-01", nil)
	// A location where virtual networks are not offered.
	if err := admin.SetOfferings(ctx, []providers.Offering{{Type: "Microsoft.Network/virtualNetworks", Locations: []string{"East US"}}}); err != nil {
		t.Fatal(err)
	}
	// The caller may write rg-app only.
	grant := assignRole(t, c, rgApp, "6f1c6b7e-0000-4000-8000-000000000001", contributor, providers.DefaultPrincipal)
	// A policy denying public blob access in rg-app.
	defID := "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.Authorization/policyDefinitions/deny-public-blob"
	putAndWait(t, c, defID, policyVersion, map[string]any{"properties": map[string]any{
		"mode": "All", "displayName": "No public blob access",
		"policyRule": map[string]any{
			"if": map[string]any{"allOf": []any{
				map[string]any{"field": "type", "equals": "Microsoft.Storage/storageAccounts"},
				map[string]any{"field": "Microsoft.Storage/storageAccounts/allowBlobPublicAccess", "equals": true},
			}},
			"then": map[string]any{"effect": "[parameters('effect')]"},
		},
		"parameters": map[string]any{"effect": map[string]any{"type": "String", "defaultValue": "Deny"}},
	}})
	assignmentID := rgApp + "/providers/Microsoft.Authorization/policyAssignments/deny-public-blob"
	putAndWait(t, c, assignmentID, policyVersion, map[string]any{"properties": map[string]any{"policyDefinitionId": defID}})
	// Fewer regional vCPUs than the AKS pool needs (3 × 2).
	if err := admin.SetQuotas(ctx, []providers.Quota{{Namespace: "Microsoft.Compute", Location: "westus2", Name: "cores", Limit: 4}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	preflightStack(t, dir, "")

	p, errOut, code := preflightOf(t, flags, dir)
	if code != 1 {
		t.Fatalf("plan --preflight exited %d, want 1\n%s", code, errOut)
	}
	got := findingCodes(p, planner.SeverityError)
	want := map[string]string{
		"storage.azure.com/StorageAccount/default/pftaken":             "NameAlreadyTaken",
		"managedidentity.azure.com/UserAssignedIdentity/default/pf-id": "ProviderNotRegistered",
		"network.azure.com/VirtualNetwork/default/pf-vnet":             "LocationNotOffered",
		"network.azure.com/NetworkSecurityGroup/default/pf-nsg":        "PermissionMissing",
		"storage.azure.com/StorageAccount/default/pfpolicy":            "PolicyDenied",
		"containerservice.azure.com/ManagedCluster/default/pf-aks":     "QuotaExceeded",
		"storage.azure.com/StorageAccount/default/pfinvalid":           "InvalidRequestContent",
	}
	for addr, code := range want {
		if got[addr] != code+" " {
			t.Errorf("%s: findings %q, want %s", addr, got[addr], code)
		}
	}
	if w := findingCodes(p, planner.SeverityWarning); len(w) > 0 {
		t.Errorf("warnings: %v", w) // every check could ask
	}
	if len(got) != len(want) {
		t.Errorf("errors on %d resources, want %d: %v", len(got), len(want), got)
	}
	for _, f := range p.Preflight.Findings {
		if f.Severity == planner.SeverityError && !strings.Contains(f.Source, "stack.yaml:") {
			t.Errorf("%s: finding has no file:line: %+v", f.Address, f)
		}
	}
	text, _, _ := azk(t, "", append([]string{"plan", dir, "--preflight"}, flags...)...)
	mustContain(t, "text plan", text, "Pre-flight", "NameAlreadyTaken", "taken by someone else", "7 errors")
	if n := writes.Load(); n != 0 {
		t.Fatalf("plan --preflight sent %d writes", n)
	}

	_, errOut, code = azk(t, "", append([]string{"apply", dir, "--preflight", "--auto-approve"}, flags...)...)
	if code != 1 || !strings.Contains(errOut, "the pre-flight found 7 errors") {
		t.Fatalf("apply --preflight exited %d, want 1 with the refusal\n%s", code, errOut)
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("apply --preflight sent %d writes before refusing", n)
	}

	// The seeds removed (and the refused body fixed): both pass, apply converges.
	del(t, other, takenID, "2023-01-01")
	post(t, c, "/subscriptions/"+emulatorSubscription+"/providers/Microsoft.ManagedIdentity/register", "2021-04-01", nil)
	if err := admin.SetOfferings(ctx, nil); err != nil {
		t.Fatal(err)
	}
	del(t, c, grant, authzVersion)
	del(t, c, assignmentID, policyVersion)
	if err := admin.SetQuotas(ctx, nil); err != nil {
		t.Fatal(err)
	}
	preflightStack(t, dir, "203.0.113.7")
	writes.Store(0)
	p, errOut, code = preflightOf(t, flags, dir)
	if code != 0 || p.Preflight.Errors() != 0 {
		t.Fatalf("plan --preflight after the fixes exited %d with %v\n%s", code, p.Preflight.Findings, errOut)
	}
	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--preflight", "--auto-approve"}, flags...)...)
	if code != 0 {
		t.Fatalf("apply --preflight exited %d\n%s\n%s", code, out, errOut)
	}
	if n := writes.Load(); n != 7 {
		t.Errorf("apply sent %d writes, want the 7 creates", n)
	}
	out, _, code = azk(t, "", append([]string{"plan", dir}, flags...)...)
	if code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Fatalf("the re-plan is not quiet (exit %d):\n%s", code, out)
	}
}

// TestEnforceRBACRefusesWhatPreflightTells: on an emulator enforcing role
// assignments, the apply the pre-flight warns about fails with ARM's 403
// halfway, and the pre-flight names that resource before any write.
func TestEnforceRBACRefusesWhatPreflightTells(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{EnforceRBAC: true})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	for _, rg := range []string{rgApp, rgLocked} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	assignRole(t, c, rgApp, "6f1c6b7e-0000-4000-8000-000000000002", contributor, providers.DefaultPrincipal)
	dir := t.TempDir()
	preflightStack(t, dir, "203.0.113.7")

	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--auto-approve"}, flags...)...)
	if code != 1 || !strings.Contains(out+errOut, "AuthorizationFailed") || !strings.Contains(out+errOut, "Microsoft.Network/networkSecurityGroups/write") {
		t.Fatalf("apply without pre-flight: exit %d, want 1 with AuthorizationFailed (403)\n%s\n%s", code, out, errOut)
	}
	if writes.Load() == 0 {
		t.Fatal("the apply wrote nothing before failing: it should have got halfway")
	}
	writes.Store(0)
	p, _, code := preflightOf(t, flags, dir)
	if code != 1 || findingCodes(p, planner.SeverityError)["network.azure.com/NetworkSecurityGroup/default/pf-nsg"] != "PermissionMissing " {
		t.Fatalf("plan --preflight: exit %d, findings %v", code, p.Preflight.Findings)
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("plan --preflight sent %d writes", n)
	}
}

// TestPreflightAsOperatorIdentity: --as evaluates the role assignments of
// the operator's identity, not the caller's.
func TestPreflightAsOperatorIdentity(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	for _, rg := range []string{rgApp, rgLocked} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	reader := "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	assignRole(t, c, "/subscriptions/"+emulatorSubscription, "6f1c6b7e-0000-4000-8000-000000000003", reader, operatorOID)
	assignRole(t, c, rgApp, "6f1c6b7e-0000-4000-8000-000000000004", contributor, operatorOID)
	dir := t.TempDir()
	preflightStack(t, dir, "203.0.113.7")

	p, _, code := preflightOf(t, flags, dir)
	if code != 0 {
		t.Fatalf("the caller (Owner of a fresh emulator) may write everything: exit %d, %v", code, p.Preflight.Findings)
	}
	p, _, code = preflightOf(t, flags, dir, "--as", operatorOID)
	got := findingCodes(p, planner.SeverityError)
	if code != 1 || len(got) != 1 || got["network.azure.com/NetworkSecurityGroup/default/pf-nsg"] != "PermissionMissing " {
		t.Fatalf("--as %s: exit %d, findings %v", operatorOID, code, p.Preflight.Findings)
	}
	for _, f := range p.Preflight.Findings {
		if f.Code == "PermissionMissing" && !strings.Contains(f.Message, "the operator's identity "+operatorOID+" cannot Microsoft.Network/networkSecurityGroups/write in resource group rg-locked") {
			t.Errorf("message: %s", f.Message)
		}
	}
	if p.Preflight.As != operatorOID {
		t.Errorf("preflight.as = %q", p.Preflight.As)
	}
}
