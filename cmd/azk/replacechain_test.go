package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// chainStack is an app's identity and what is built from its principal, as
// a workload-identity stack writes them: a federated credential under it,
// two role assignments naming its principal (principalIdFromConfig), and a
// vault whose access policy names it (objectIdFromConfig, which ARM
// updates in place).
func chainStack() string {
	return `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: chain
spec:
  location: westeurope
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: gallery-web
spec:
  owner:
    name: chain
  location: westeurope
  operatorSpec:
    configMaps:
      principalId:
        name: gallery-web-identity
        key: principalId
      tenantId:
        name: gallery-web-identity
        key: tenantId
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: FederatedIdentityCredential
metadata:
  name: gallery-web-aks
spec:
  owner:
    name: gallery-web
  issuer: https://westeurope.oic.prod-aks.azure.com/00000000-0000-0000-0000-000000000000/11111111-1111-1111-1111-111111111111/
  subject: system:serviceaccount:gallery:web
  audiences:
    - api://AzureADTokenExchange
---
apiVersion: keyvault.azure.com/v1api20230701
kind: Vault
metadata:
  name: azk-chain-kv
spec:
  owner:
    name: chain
  location: westeurope
  properties:
    tenantId: 00000000-0000-0000-0000-000000000000
    enableRbacAuthorization: false
    createMode: createOrRecover
    sku:
      family: A
      name: standard
    accessPolicies:
      - tenantId: 00000000-0000-0000-0000-000000000000
        objectIdFromConfig:
          name: gallery-web-identity
          key: principalId
        permissions:
          secrets: [get, list]
---
apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: gallery-web-reader
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: chain
  principalIdFromConfig:
    name: gallery-web-identity
    key: principalId
  principalType: ServicePrincipal
  roleDefinitionReference:
    wellKnownName: Reader
---
apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: gallery-web-secrets
spec:
  owner:
    group: keyvault.azure.com
    kind: Vault
    name: azk-chain-kv
  principalIdFromConfig:
    name: gallery-web-identity
    key: principalId
  principalType: ServicePrincipal
  roleDefinitionReference:
    wellKnownName: Key Vault Secrets User
`
}

const (
	// principalFact is where the fact that ARM never changes a role
	// assignment's principal comes from, as plans name it.
	principalFact        = "identity: ARM answers RoleAssignmentUpdateNotPermitted"
	chainIdentityAddress = "managedidentity.azure.com/UserAssignedIdentity/default/gallery-web"
	chainIdentityAPI     = "2023-01-31"
	chainRoleAPI         = "2022-04-01"
	chainVaultAPI        = "2023-07-01"
)

// chainIDs are the ARM IDs of chainStack's identity, vault and role
// assignments, read from a plan.
type chainIDs struct{ identity, vault, reader, secrets string }

func chainIDsOf(t *testing.T, byName map[string]*planner.Resource) chainIDs {
	t.Helper()
	ids := chainIDs{}
	for name, at := range map[string]*string{"UserAssignedIdentity/gallery-web": &ids.identity, "Vault/azk-chain-kv": &ids.vault, "RoleAssignment/gallery-web-reader": &ids.reader, "RoleAssignment/gallery-web-secrets": &ids.secrets} {
		r := byName[name]
		if r == nil || r.ARMID == "" {
			t.Fatalf("the plan has no %s", name)
		}
		*at = r.ARMID
	}
	return ids
}

// principals are the identity's principal and the one each consumer names.
func (ids chainIDs) principals(t *testing.T, run *emulator.Running) (identity, reader, secrets, vault string) {
	t.Helper()
	read := func(id, apiVersion string, path ...any) string {
		body := getBody(t, run, id, apiVersion)
		if body == nil {
			t.Fatalf("%s does not exist", id)
		}
		return testkit.At[string](t, body, path...)
	}
	return read(ids.identity, chainIdentityAPI, "properties", "principalId"),
		read(ids.reader, chainRoleAPI, "properties", "principalId"),
		read(ids.secrets, chainRoleAPI, "properties", "principalId"),
		read(ids.vault, chainVaultAPI, "properties", "accessPolicies", 0, "objectId")
}

// -replace of an identity carries through what is built from its
// principal, as Terraform's replacement does: the role assignments (whose
// principal ARM never changes) are replaced with it, deleted before it and
// created after it with the new principal; the vault's access policy is
// updated in place; the federated credential goes with its owner. The
// next plan has nothing to do.
func TestReplaceCarriesThroughTheGraph(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, chainStack())
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}

	out, errOut, code := azk(t, "", with("plan", "-replace=UserAssignedIdentity/gallery-web", "-o", "json", dir)...)
	if code != 0 {
		t.Fatalf("plan -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, summary := decodePlan(t, out)
	ids := chainIDsOf(t, byName)
	old, reader, secrets, vault := ids.principals(t, run)
	if reader != old || secrets != old || vault != old {
		t.Fatalf("after the first apply the consumers name %s, %s, %s; the identity is %s", reader, secrets, vault, old)
	}
	if r := byName["UserAssignedIdentity/gallery-web"]; r.Action != planner.ActionRecreate || r.Reason != planner.ReasonReplaceRequested {
		t.Errorf("the identity: %s %s, want replace_because_requested", r.Action, r.Reason)
	}
	if r := byName["FederatedIdentityCredential/gallery-web-aks"]; r == nil || r.Action != planner.ActionRecreate || r.Reason != planner.ReasonOwnerReplaced || r.CascadedBy != chainIdentityAddress {
		t.Errorf("the federated credential: %+v, want replace_because_owner_replaced by the identity", r)
	}
	for _, name := range []string{"RoleAssignment/gallery-web-reader", "RoleAssignment/gallery-web-secrets"} {
		r := byName[name]
		if r.Action != planner.ActionRecreate || r.Reason != planner.ReasonInputReplaced || r.CascadedBy != "" {
			t.Errorf("%s: %s %s (cascaded by %q), want replace_because_input_replaced with a DELETE of its own", name, r.Action, r.Reason, r.CascadedBy)
		}
		if in := r.ReplacedInputs; len(in) != 1 || in[0].Path != "properties.principalId" || in[0].From != chainIdentityAddress || !strings.Contains(in[0].CreateOnly, principalFact) {
			t.Errorf("%s: replaced inputs %+v, want properties.principalId from the identity, create-only by %q", name, in, principalFact)
		}
	}
	r := byName["Vault/azk-chain-kv"]
	if r.Action != planner.ActionUpdate || r.Reason != planner.ReasonInputReplacedUpdate {
		t.Errorf("the vault: %s %s, want update_because_input_replaced", r.Action, r.Reason)
	}
	want := planner.ReplacedInput{Path: "properties.accessPolicies[0].objectId", From: chainIdentityAddress}
	if len(r.ReplacedInputs) != 1 || r.ReplacedInputs[0] != want {
		t.Errorf("the vault: replaced inputs %+v, want %+v", r.ReplacedInputs, want)
	}
	if c := changeAt(r, "properties.accessPolicies[0].objectId"); c == nil || !c.Unknown || c.Before != old {
		t.Errorf("the vault's change at the access policy's objectId: %+v, want %s to a value known after apply", c, old)
	}
	if summary.Replace != 4 || summary.Update != 1 || summary.NoChange != 1 {
		t.Errorf("summary %+v, want 4 to replace (the identity, its credential, both assignments), 1 to update (the vault), 1 unchanged", summary)
	}

	text, _, _ := azk(t, "", with("plan", "-replace=UserAssignedIdentity/gallery-web", dir)...)
	mustContain(t, "text plan", text,
		"-/+ RoleAssignment default/gallery-web-reader will be replaced with "+chainIdentityAddress+": deleted before it, created after it",
		"input:  properties.principalId comes from "+chainIdentityAddress+", which is replaced: known after apply; Azure accepts it only at creation (",
		principalFact+")\n",
		"~ Vault default/azk-chain-kv will be updated with the values of "+chainIdentityAddress+", which is replaced",
		"input:  properties.accessPolicies[0].objectId comes from "+chainIdentityAddress+", which is replaced: known after apply\n",
		"note:   authorization.azure.com/RoleAssignment/default/gallery-web-secrets reads what it exports, and is replaced too: deleted before it, created again after it",
		"Plan: 0 to create, 1 to update, 4 to replace, 1 unchanged")
	md, _, _ := azk(t, "", with("plan", "-replace=UserAssignedIdentity/gallery-web", "-o", "markdown", dir)...)
	mustContain(t, "markdown plan", md, "will be replaced with "+chainIdentityAddress+": deleted before it, created after it",
		"input:  properties.principalId comes from "+chainIdentityAddress)

	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "-replace=UserAssignedIdentity/gallery-web", dir)...)
	if code != 0 {
		t.Fatalf("apply -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply -replace", out, "Apply complete! Resources: 0 created, 1 updated, 4 replaced, 0 failed.")
	identity, reader, secrets, vault := ids.principals(t, run)
	if identity == old {
		t.Fatalf("the identity kept its principal %s: it was not created again", old)
	}
	if reader != identity || secrets != identity || vault != identity {
		t.Errorf("after -replace the consumers name %s, %s, %s; the new identity is %s (the old one %s)", reader, secrets, vault, identity, old)
	}
	if fic := byName["FederatedIdentityCredential/gallery-web-aks"]; getBody(t, run, fic.ARMID, chainIdentityAPI) == nil {
		t.Error("the federated credential is not there again under the new identity")
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("re-plan: exit %d, want 0 and No changes\n%s\n%s", code, out, errOut)
	}
}

// A replacement in a chain whose DELETE succeeds and whose create fails is
// reported with ARM's code, what waits for it is not attempted, and the
// next apply converges: the missing resources are created with the
// identity's principal.
func TestReplacementChainFailureReconverges(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, chainStack())
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", After: 20 * time.Millisecond, Code: "QuotaExceeded", Message: "the identity quota of the region is used up"}}})
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "-replace=UserAssignedIdentity/gallery-web", dir)...)
	run.Server.SetFaults(emulator.Faults{})
	if code != 1 {
		t.Fatalf("apply -replace with the identity's create failing: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "failed apply", out+errOut, "managedidentity.azure.com/UserAssignedIdentity/default/gallery-web: QuotaExceeded: the identity quota of the region is used up",
		"authorization.azure.com/RoleAssignment/default/gallery-web-reader (deleted, not created again: waits for "+chainIdentityAddress+")",
		"Apply failed! Resources: 0 created, 0 updated, 1 failed, 4 not attempted.")
	_, byName, _ := decodePlan(t, mustPlanJSON(t, with("plan", "-o", "json", dir)))
	for _, name := range []string{"RoleAssignment/gallery-web-reader", "RoleAssignment/gallery-web-secrets"} {
		if r := byName[name]; r.Exists || r.Action != planner.ActionCreate {
			t.Errorf("%s after the failed replacement: exists %v, %s; want missing (its DELETE went first, its PUT waited for the identity) and created", name, r.Exists, r.Action)
		}
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply after the failure: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ = decodePlan(t, mustPlanJSON(t, with("plan", "-o", "json", dir)))
	identity, reader, secrets, vault := chainIDsOf(t, byName).principals(t, run)
	if reader != identity || secrets != identity || vault != identity {
		t.Errorf("after re-converging the consumers name %s, %s, %s; the identity is %s", reader, secrets, vault, identity)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("re-plan: exit %d, want 0\n%s\n%s", code, out, errOut)
	}

	// -o json says which resources Azure lacks after such a failure.
	run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", After: 20 * time.Millisecond, Code: "QuotaExceeded", Message: "the identity quota of the region is used up"}}})
	out, _, code = azk(t, "", with("apply", "--auto-approve", "-o", "json", "-replace=UserAssignedIdentity/gallery-web", dir)...)
	run.Server.SetFaults(emulator.Faults{})
	if code != 1 || !strings.Contains(out, `{"address":"authorization.azure.com/RoleAssignment/default/gallery-web-reader","outcome":"not-attempted","blockedBy":"`+chainIdentityAddress+`","deletedFirst":true}`) {
		t.Errorf("apply -o json with the identity's create failing: exit %d, want 1 and the role assignment deleted first\n%s", code, out)
	}
}

// mustPlanJSON runs a plan that must succeed and returns its JSON.
func mustPlanJSON(t *testing.T, args []string) string {
	t.Helper()
	out, errOut, code := azk(t, "", args...)
	if code != 0 && code != 2 {
		t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// A move Azure cannot make in place (the identity's location) is
// replace-required, and what is built from it waits; resolved with
// -replace in a saved plan, the replacement carries through as it does for
// a plain -replace, and the identity and its readers end in the new region
// with the new principal.
func TestReplaceRequiredResolvedWithReplaceCarriesThrough(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, chainStack())
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	moved := strings.Replace(chainStack(), "    name: chain\n  location: westeurope\n  operatorSpec:", "    name: chain\n  location: northeurope\n  operatorSpec:", 1)
	if moved == chainStack() {
		t.Fatal("the identity's location was not found in the stack")
	}
	dir2 := writeStack(t, moved)
	out, _, code := azk(t, "", with("plan", dir2)...)
	if code != 1 {
		t.Fatalf("plan of the move: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "plan of the move", out, "! UserAssignedIdentity default/gallery-web needs replacing: azk applies it only with -replace",
		"depends on "+chainIdentityAddress+", which needs replacing")

	saved := filepath.Join(t.TempDir(), "chain.azk")
	if out, errOut, code := azk(t, "", with("plan", "-replace=UserAssignedIdentity/gallery-web", "-out", saved, dir2)...); code != 0 {
		t.Fatalf("plan -replace -out: exit %d\n%s\n%s", code, out, errOut)
	}
	shown, errOut, code := azk(t, "", "show", "-json", saved)
	if code != 0 {
		t.Fatalf("show: exit %d\n%s", code, errOut)
	}
	_, byName, summary := decodePlan(t, shown)
	if r := byName["RoleAssignment/gallery-web-reader"]; r.Reason != planner.ReasonInputReplaced || len(r.ReplacedInputs) != 1 {
		t.Errorf("the saved plan's role assignment: %s %+v, want replace_because_input_replaced with its input", r.Reason, r.ReplacedInputs)
	}
	if summary.Replace != 4 || summary.Update != 1 || summary.ReplaceRequired != 0 {
		t.Errorf("saved plan summary %+v, want 4 to replace, 1 to update, none replace-required", summary)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", saved)...); code != 0 {
		t.Fatalf("apply of the saved plan: exit %d\n%s\n%s", code, out, errOut)
	}
	ids := chainIDsOf(t, byName)
	if loc := testkit.At[string](t, getBody(t, run, ids.identity, chainIdentityAPI), "location"); loc != "northeurope" {
		t.Errorf("the identity is in %s, want northeurope", loc)
	}
	identity, reader, secrets, vault := ids.principals(t, run)
	if reader != identity || secrets != identity || vault != identity {
		t.Errorf("the consumers name %s, %s, %s; the identity is %s", reader, secrets, vault, identity)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir2)...); code != 0 {
		t.Errorf("re-plan: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
}

// A Secret a replaced resource exports is new too: the container app that
// sends the storage account's key and connection string is updated with
// the new ones (ARM never returns them, so nothing else would send them
// again).
func TestReplacedSecretExporterUpdatesItsReaders(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "storage-key-to-app")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, mustPlanJSON(t, with("plan", "-replace=StorageAccount/azkkeysdata", "-o", "json", dir)))
	app := byName["ContainerApp/azk-keys-app"]
	if app == nil || app.Action != planner.ActionUpdate || app.Reason != planner.ReasonInputReplacedUpdate {
		t.Fatalf("the container app: %+v, want update_because_input_replaced", app)
	}
	var paths []string
	for _, in := range app.ReplacedInputs {
		if in.From != "storage.azure.com/StorageAccount/default/azkkeysdata" || in.CreateOnly != "" {
			t.Errorf("replaced input %+v, want one from the storage account, updatable", in)
		}
		paths = append(paths, in.Path)
	}
	if len(paths) != 2 {
		t.Errorf("replaced inputs at %q, want the two secrets it sends", paths)
	}
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "-replace=StorageAccount/azkkeysdata", dir)...)
	if code != 0 {
		t.Fatalf("apply -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply -replace", out, "app.azure.com/ContainerApp/default/azk-keys-app: Update complete")
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("re-plan: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
}
