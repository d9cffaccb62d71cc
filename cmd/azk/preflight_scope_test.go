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
	"github.com/azkcli/azk/internal/emulator/identity"
	"github.com/azkcli/azk/internal/planner"
)

// Seeded faults of issue 38 (soft-deleted names, cross-subscription scopes,
// --as with a client ID): each is found against its resource at file:line
// with its code and recipe, and apply --preflight writes nothing.

const keyVaultVersion = "2023-07-01"

func writeStackIn(t *testing.T, dir, doc string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// findingAt is the one finding of code at address, failing the test when
// there is not exactly one or it has no file:line.
func findingAt(t *testing.T, p *planner.Plan, address, code string) planner.Finding {
	t.Helper()
	var got []planner.Finding
	for _, f := range p.Preflight.Findings {
		if f.Address == address && f.Code == code {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%s: %d %s findings, want 1: %+v", address, len(got), code, p.Preflight.Findings)
	}
	if !strings.HasPrefix(got[0].Source, "stack.yaml:") && !strings.Contains(got[0].Source, "/stack.yaml:") {
		t.Errorf("%s: finding has no file:line: %+v", address, got[0])
	}
	return got[0]
}

// refusesWithoutWriting runs apply --preflight and wants its refusal with
// no write sent.
func refusesWithoutWriting(t *testing.T, flags []string, dir string, writes *atomic.Int64, errors int) {
	t.Helper()
	writes.Store(0)
	_, errOut, code := azk(t, "", append([]string{"apply", dir, "--preflight", "--auto-approve"}, flags...)...)
	want := "the pre-flight found " + plural(errors, "error")
	if code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("apply --preflight exited %d, want 1 with %q\n%s", code, want, errOut)
	}
	if n := writes.Load(); n != 0 {
		t.Fatalf("apply --preflight sent %d writes before refusing", n)
	}
}

func vaultDoc(name, createMode string) string {
	mode := ""
	if createMode != "" {
		mode = "\n    createMode: " + createMode
	}
	return `apiVersion: keyvault.azure.com/v1api20230701
kind: Vault
metadata: {name: ` + name + `}
spec:
  location: westus2
  owner: {armId: ` + rgApp + `}
  properties:
    tenantId: ` + identity.Tenant + `
    enableRbacAuthorization: true` + mode + `
    sku: {family: A, name: standard}
`
}

// TestPreflightSoftDeletedVaultName: vaults deleted through ARM keep their
// names; a create of either name is SoftDeletedName with the recipe (purge,
// or until when purge protection keeps it), not "taken by someone else";
// apply without the pre-flight meets ARM's conflict; createMode recover passes.
func TestPreflightSoftDeletedVaultName(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, rgApp, "2021-04-01", map[string]any{"location": "westus2"})
	for name, protect := range map[string]bool{"pf-kv-gone": false, "pf-kv-kept": true} {
		id := rgApp + "/providers/Microsoft.KeyVault/vaults/" + name
		putAndWait(t, c, id, keyVaultVersion, map[string]any{"location": "westus2", "properties": map[string]any{
			"tenantId": identity.Tenant, "sku": map[string]any{"family": "A", "name": "standard"}, "enablePurgeProtection": protect,
		}})
		del(t, c, id, keyVaultVersion)
	}
	dir := t.TempDir()
	writeStackIn(t, dir, vaultDoc("pf-kv-gone", "")+"---\n"+vaultDoc("pf-kv-kept", ""))

	p, errOut, code := preflightOf(t, flags, dir)
	if code != 1 || p.Preflight.Errors() != 2 {
		t.Fatalf("plan --preflight: exit %d, findings %+v\n%s", code, p.Preflight.Findings, errOut)
	}
	gone := findingAt(t, p, "keyvault.azure.com/Vault/default/pf-kv-gone", "SoftDeletedName")
	mustContain(t, "the purgeable vault's finding", gone.Message, "createMode: recover", "az keyvault purge --name pf-kv-gone --location westus2", "choose another name")
	kept := findingAt(t, p, "keyvault.azure.com/Vault/default/pf-kv-kept", "SoftDeletedName")
	mustContain(t, "the protected vault's finding", kept.Message, "cannot be purged: purge protection keeps it until 20")
	if strings.Contains(kept.Message, "az keyvault purge") {
		t.Errorf("a protected vault is told to purge: %s", kept.Message)
	}
	for _, f := range p.Preflight.Findings {
		if f.Code == "NameAlreadyTaken" {
			t.Errorf("the name check's finding is left in: %+v", f)
		}
	}
	refusesWithoutWriting(t, flags, dir, &writes, 2)

	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--auto-approve"}, flags...)...)
	if code != 1 || !strings.Contains(out+errOut, "ConflictError") {
		t.Fatalf("apply without the pre-flight: exit %d, want ARM's ConflictError\n%s\n%s", code, out, errOut)
	}

	writeStackIn(t, dir, vaultDoc("pf-kv-gone", "recover")+"---\n"+vaultDoc("pf-kv-kept", "createOrRecover"))
	p, errOut, code = preflightOf(t, flags, dir)
	if code != 0 || p.Preflight.Errors() != 0 {
		t.Fatalf("plan --preflight of the recovering vaults: exit %d, findings %+v\n%s", code, p.Preflight.Findings, errOut)
	}
	for _, name := range []string{"pf-kv-gone", "pf-kv-kept"} {
		f := findingAt(t, p, "keyvault.azure.com/Vault/default/"+name, "SoftDeletedRecovered")
		mustContain(t, "the recovery notice", f.Message, "apply recovers the deleted")
	}
	out, errOut, code = azk(t, "", append([]string{"apply", dir, "--preflight", "--auto-approve"}, flags...)...)
	if code != 0 {
		t.Fatalf("apply --preflight of the recovering vaults: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestPreflightCrossSubscriptionCosmosScope: a Cosmos SQL role assignment
// whose scope is an account of another subscription is CrossScopeRefused
// (once, validate's BadRequest folded into it); apply without the
// pre-flight meets Cosmos's refusal after writing the account.
func TestPreflightCrossSubscriptionCosmosScope(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, rgApp, "2021-04-01", map[string]any{"location": "westus2"})
	elsewhere := "/subscriptions/" + otherSub + "/resourceGroups/data/providers/Microsoft.DocumentDB/databaseAccounts/pf-cosmos-other"
	dir := t.TempDir()
	writeStackIn(t, dir, `apiVersion: documentdb.azure.com/v1api20231115
kind: DatabaseAccount
metadata: {name: pf-cosmos}
spec:
  location: westus2
  owner: {armId: `+rgApp+`}
  databaseAccountOfferType: Standard
  locations:
    - {locationName: westus2, failoverPriority: 0}
---
apiVersion: documentdb.azure.com/v1api20231115
kind: SqlRoleAssignment
metadata: {name: pf-reader}
spec:
  azureName: 6f1c6b7e-0000-4000-8000-0000000000c1
  owner: {name: pf-cosmos}
  principalId: `+operatorOID+`
  roleDefinitionId: `+rgApp+`/providers/Microsoft.DocumentDB/databaseAccounts/pf-cosmos/sqlRoleDefinitions/00000000-0000-0000-0000-000000000001
  scope: `+elsewhere+`
`)
	p, errOut, code := preflightOf(t, flags, dir)
	if code != 1 || p.Preflight.Errors() != 1 {
		t.Fatalf("plan --preflight: exit %d, findings %+v\n%s", code, p.Preflight.Findings, errOut)
	}
	f := findingAt(t, p, "documentdb.azure.com/SqlRoleAssignment/default/pf-reader", "CrossScopeRefused")
	mustContain(t, "the finding", f.Message, elsewhere, "outside the Cosmos DB account", "set spec.scope to the account's ID")
	if f.Severity != planner.SeverityError {
		t.Errorf("severity %s, want error", f.Severity)
	}
	refusesWithoutWriting(t, flags, dir, &writes, 1)

	out, errOut, code := azk(t, "", append([]string{"apply", dir, "--auto-approve"}, flags...)...)
	if code != 1 || !strings.Contains(out+errOut, "BadRequest") || writes.Load() == 0 {
		t.Fatalf("apply without the pre-flight: exit %d after %d writes, want Cosmos's BadRequest after the account\n%s\n%s", code, writes.Load(), out, errOut)
	}
}

// TestPreflightAsClientID: --as refuses what is not a GUID with the hint;
// a user-assigned identity's client ID is mapped to its principal ID (a
// notice naming both), whose role assignments decide, at the scope each
// write lands on.
func TestPreflightAsClientID(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	var writes atomic.Int64
	flags := countWrites(t, run, &writes)
	c := clientFor(t, run, emulatorSubscription)
	for _, rg := range []string{rgApp, rgLocked} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	operatorID := rgApp + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/operator"
	putAndWait(t, c, operatorID, "2023-01-31", map[string]any{"location": "westus2"})
	resp, err := c.Get(context.Background(), operatorID, "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	var uai struct {
		Properties struct{ ClientID, PrincipalID string } `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &uai); err != nil || uai.Properties.ClientID == "" || uai.Properties.PrincipalID == "" || uai.Properties.ClientID == uai.Properties.PrincipalID {
		t.Fatalf("the identity's IDs: %+v %v", uai, err)
	}
	assignRole(t, c, rgApp, "6f1c6b7e-0000-4000-8000-0000000000a1", contributor, uai.Properties.PrincipalID)
	dir := t.TempDir()
	preflightStack(t, dir, "203.0.113.7")

	out, errOut, code := azk(t, "", append([]string{"plan", dir, "--preflight", "--as", "not-a-guid"}, flags...)...)
	if code == 0 || !strings.Contains(errOut, `"not-a-guid" is not an object ID`) || !strings.Contains(errOut, "--query principalId") {
		t.Fatalf("--as not-a-guid: exit %d\n%s\n%s", code, out, errOut)
	}

	p, errOut, code := preflightOf(t, flags, dir, "--as", uai.Properties.ClientID)
	got := findingCodes(p, planner.SeverityError)
	if code != 1 || len(got) != 1 || got["network.azure.com/NetworkSecurityGroup/default/pf-nsg"] != "PermissionMissing " {
		t.Fatalf("--as the client ID: exit %d, findings %+v\n%s", code, p.Preflight.Findings, errOut)
	}
	findingAt(t, p, "network.azure.com/NetworkSecurityGroup/default/pf-nsg", "PermissionMissing")
	var notice *planner.Finding
	for i, f := range p.Preflight.Findings {
		if f.Code == "PrincipalFromClientID" {
			notice = &p.Preflight.Findings[i]
		}
		if f.Code == "PermissionMissing" {
			mustContain(t, "the permission finding", f.Message, "the operator's identity "+uai.Properties.PrincipalID, "in resource group rg-locked, where this write lands")
		}
	}
	if notice == nil || notice.Severity != planner.SeverityInfo {
		t.Fatalf("no notice of the mapping: %+v", p.Preflight.Findings)
	}
	mustContain(t, "the notice", notice.Message, uai.Properties.ClientID, uai.Properties.PrincipalID, operatorID)
	if p.Preflight.As != uai.Properties.PrincipalID {
		t.Errorf("preflight.as = %q, want the principal ID", p.Preflight.As)
	}
	writes.Store(0)
	_, errOut, code = azk(t, "", append([]string{"apply", dir, "--preflight", "--auto-approve", "--as", uai.Properties.ClientID}, flags...)...)
	if code != 1 || !strings.Contains(errOut, "the pre-flight found 1 error") || writes.Load() != 0 {
		t.Fatalf("apply --preflight --as the client ID: exit %d, %d writes\n%s", code, writes.Load(), errOut)
	}

	p, _, _ = preflightOf(t, flags, dir, "--as", operatorOID)
	unconfirmed := 0
	for _, f := range p.Preflight.Findings {
		if f.Code == "PrincipalUnconfirmed" && strings.Contains(f.Message, operatorOID+" is evaluated as an object ID as given") {
			unconfirmed++
		}
	}
	if unconfirmed != 1 {
		t.Errorf("--as an unknown GUID: %d notices that it is evaluated as given: %+v", unconfirmed, p.Preflight.Findings)
	}
}
