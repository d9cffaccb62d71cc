package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/identity"
)

// TestAzureCLIKeyVaultAgainstEmulator: with the cloud `azk emulator` prints
// (its Microsoft Graph endpoint included), az keyvault create looks up the
// signed-in service principal in the emulator's Graph and grants it the
// vault's access policy by the object ID its tokens carry, as Azure does.
// It skips when az is not installed.
func TestAzureCLIKeyVaultAgainstEmulator(t *testing.T) {
	az, err := exec.LookPath("az")
	if err != nil {
		t.Skip("the Azure CLI (az) is not installed: skipping (Debian: apt-get install azure-cli)")
	}
	if testing.Short() {
		t.Skip("-short: the Azure CLI takes seconds a command")
	}
	out := serveEmulatorCommand(t, filepath.Join(t.TempDir(), "state"), "azure-native:subscriptionId")
	printed := func(re string) []string {
		m := regexp.MustCompile(`(?m)^\s*` + re + `$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("the start-up message lacks %s:\n%s", re, out)
		}
		return strings.Fields(m[0])
	}
	caBundle := strings.TrimPrefix(printed(`export REQUESTS_CA_BUNDLE=\S+`)[1], "REQUESTS_CA_BUNDLE=")
	register := printed(`az cloud register .*`)
	login := printed(`az login .*`)

	env := append(os.Environ(), "AZURE_CONFIG_DIR="+t.TempDir(), "REQUESTS_CA_BUNDLE="+caBundle,
		"AZURE_CORE_COLLECT_TELEMETRY=false", "AZURE_CORE_NO_COLOR=true", "AZURE_CORE_SURVEY_MESSAGE=false")
	must := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, az, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("az %s: %v\n%s%s", strings.Join(redactArgs(args), " "), err, stdout.String(), stderr.String())
		}
		t.Logf("az %s: ok (%s)", strings.Join(redactArgs(args), " "), time.Since(start).Round(100*time.Millisecond))
		return stdout.String()
	}

	must(register[1:]...)
	must("cloud", "set", "-n", register[4])
	must(login[1:]...)
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
