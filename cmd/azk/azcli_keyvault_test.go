package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/identity"
)

// TestAzureCLIKeyVaultAgainstEmulator: with the cloud `azk emulator` prints
// (its Microsoft Graph endpoint included), az keyvault create looks up the
// signed-in service principal in the emulator's Graph and grants it the
// vault's access policy by the object ID its tokens carry, as Azure does.
// It skips when az is not installed.
func TestAzureCLIKeyVaultAgainstEmulator(t *testing.T) {
	az := signedInAzureCLI(t)
	must, login := az.must, az.login
	must("group", "create", "-n", "kv-rg", "-l", "westus2", "-o", "none")
	var vault struct {
		Properties struct {
			TenantID       string `json:"tenantId"`
			AccessPolicies []struct {
				ObjectID string `json:"objectId"`
				TenantID string `json:"tenantId"`
			} `json:"accessPolicies"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(must("keyvault", "create", "-n", "azkclivault", "-g", "kv-rg", "-l", "westus2", "-o", "json")), &vault); err != nil {
		t.Fatalf("az keyvault create's answer: %v", err)
	}
	caller := identity.ForApplication(login[slices.Index(login, "--username")+1])
	if p := vault.Properties; p.TenantID != emulator.Tenant || len(p.AccessPolicies) != 1 || p.AccessPolicies[0].ObjectID != caller.ObjectID {
		t.Errorf("the vault's access policies %+v (tenant %s), want one for the signed-in service principal %s", p.AccessPolicies, p.TenantID, caller.ObjectID)
	}
}
