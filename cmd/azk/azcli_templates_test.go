package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/deploy/armfunc"
)

// TestAzureCLIDeploysQuickstartTemplates deploys the template runner's
// acceptance templates (internal/emulator/deploy/testdata/templates, the
// shapes of Bicep's quickstarts) with az deployment group what-if and
// create against `azk emulator`: what-if predicts exactly the resources
// ARM would create, and create creates exactly those, named as ARM names
// them (uniqueString, guid, copy loops, a condition, modules, a
// languageVersion 2.0 template). It skips when az is not installed.
func TestAzureCLIDeploysQuickstartTemplates(t *testing.T) {
	az := signedInAzureCLI(t)
	must := az.must

	templates := filepath.Join("..", "..", "internal", "emulator", "deploy", "testdata", "templates")
	group := func(name string) string {
		must("group", "create", "-n", name, "-l", "westus2", "-o", "none")
		return "/subscriptions/" + emulator.DefaultSubscription + "/resourceGroups/" + name
	}
	// whatIfCreates is what az deployment group what-if predicts to create.
	whatIfCreates := func(rg, file string, params ...string) []string {
		t.Helper()
		args := append([]string{"deployment", "group", "what-if", "-g", rg, "-n", "predict", "--template-file", filepath.Join(templates, file), "--no-pretty-print", "-o", "json"}, params...)
		var result struct {
			Changes []struct{ ResourceID, ChangeType string }
		}
		if err := json.Unmarshal([]byte(must(args...)), &result); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range result.Changes {
			if c.ChangeType == "Create" {
				out = append(out, lastTypeAndName(c.ResourceID))
			}
		}
		sort.Strings(out)
		return out
	}
	create := func(rg, file string, params ...string) map[string]any {
		t.Helper()
		args := append([]string{"deployment", "group", "create", "-g", rg, "-n", strings.TrimSuffix(file, ".json"), "--template-file", filepath.Join(templates, file), "-o", "json"}, params...)
		var result struct {
			Properties struct {
				ProvisioningState string
				Outputs           map[string]struct{ Value any }
			}
		}
		if err := json.Unmarshal([]byte(must(args...)), &result); err != nil {
			t.Fatal(err)
		}
		if result.Properties.ProvisioningState != "Succeeded" {
			t.Fatalf("%s: %s", file, result.Properties.ProvisioningState)
		}
		out := map[string]any{}
		for k, v := range result.Properties.Outputs {
			out[k] = v.Value
		}
		return out
	}
	resources := func(rg string) []string {
		t.Helper()
		var list []struct{ ID string }
		if err := json.Unmarshal([]byte(must("resource", "list", "-g", rg, "-o", "json")), &list); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range list {
			out = append(out, lastTypeAndName(r.ID))
		}
		sort.Strings(out)
		return out
	}
	same := func(what string, got []string, want ...string) {
		t.Helper()
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		}
	}
	const identity = "userAssignedIdentities/"

	rg := group("az-storage")
	account := "storageAccounts/store" + armfunc.UniqueString(rg)
	same("storage what-if", whatIfCreates("az-storage", "storage-account.json"), account)
	create("az-storage", "storage-account.json")
	same("storage resources", resources("az-storage"), account)

	rg = group("az-rbac")
	assignment := "roleAssignments/" + armfunc.GUID(rg, "id-app", "b24988ac-6180-42a0-ab88-20f7382dd24c")
	same("rbac what-if", whatIfCreates("az-rbac", "rbac-identity.json"), identity+"id-app", assignment)
	create("az-rbac", "rbac-identity.json")
	same("rbac resources", resources("az-rbac"), identity+"id-app", assignment)

	group("az-loop")
	loop := []string{identity + "app-1", identity + "app-2", identity + "app-last", "virtualNetworks/app-vnet"}
	same("loop what-if (dev)", whatIfCreates("az-loop", "loop-condition.json", "--parameters", "count=2"), loop...)
	create("az-loop", "loop-condition.json", "--parameters", "count=2")
	same("loop resources (dev)", resources("az-loop"), loop...)

	group("az-module")
	modules := []string{identity + "mod-inner", identity + "mod-outer", identity + "mod-after"}
	same("module what-if", whatIfCreates("az-module", "module.json"), modules...)
	if got := create("az-module", "module.json")["moduleIdentity"]; got != "mod-inner" {
		t.Errorf("moduleIdentity = %v", got)
	}
	same("module resources", resources("az-module"), modules...)

	rg = group("az-v2")
	must("identity", "create", "-g", "az-v2", "-n", "id-existing", "-o", "none")
	// A parameters file: az 2.45 reads a "$ref" parameter given inline as a string.
	paramsFile := filepath.Join(t.TempDir(), "v2.parameters.json")
	if err := os.WriteFile(paramsFile, []byte(`{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentParameters.json#",
  "contentVersion": "1.0.0.0", "parameters": {"config": {"value": {"name": "id-v2", "tier": "basic"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	config := []string{"--parameters", "@" + paramsFile}
	v2 := []string{identity + "id-v2", identity + "id-v2-extra0", identity + "id-v2-extra1", identity + "id-v2-module",
		"roleAssignments/" + armfunc.GUID(rg, "id-v2", "reader")}
	same("v2 what-if", whatIfCreates("az-v2", "symbolic-v2.json", config...), v2...)
	create("az-v2", "symbolic-v2.json", config...)
	same("v2 resources", resources("az-v2"), append(v2, identity+"id-existing")...)
}

// lastTypeAndName is the last type segment and name of a resource ID.
func lastTypeAndName(id string) string {
	segs := strings.Split(id, "/")
	return segs[len(segs)-2] + "/" + segs[len(segs)-1]
}
