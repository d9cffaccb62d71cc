package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// TestAzureCLIAgainstEmulator drives the Azure CLI against `azk emulator`
// with the lines it prints: az cloud register, az login
// --service-principal (the emulator's token service), az group create,
// az storage account create, az deployment group create and what-if, and
// az group delete. It skips when az is not installed (Debian: apt-get
// install azure-cli).
func TestAzureCLIAgainstEmulator(t *testing.T) {
	az := signedInAzureCLI(t)
	if !strings.Contains(az.loginOutput, emulator.DefaultSubscription) {
		t.Fatalf("az login found no subscription:\n%s", az.loginOutput)
	}
	must := az.must
	must("group", "create", "-n", "cli-rg", "-l", "westus2", "-o", "none")
	must("storage", "account", "create", "-n", "azkclistore", "-g", "cli-rg", "-l", "westus2", "--sku", "Standard_LRS", "-o", "none")

	template := filepath.Join(t.TempDir(), "identity.json")
	if err := os.WriteFile(template, []byte(`{
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  // a comment, as templates may carry
  "parameters": {"name": {"type": "string"}},
  "resources": [{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31",
    "name": "[parameters('name')]", "location": "[resourceGroup().location]"}],
  "outputs": {"principalId": {"type": "string", "value": "[reference(parameters('name')).principalId]"}}
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The CLI validates (POST .../deployments/{name}/validate) before it deploys.
	must("deployment", "group", "create", "-g", "cli-rg", "-n", "dep1", "--template-file", template, "--parameters", "name=cli-id", "-o", "none")
	if got := must("deployment", "group", "what-if", "-g", "cli-rg", "-n", "dep2", "--template-file", template, "--parameters", "name=cli-id2", "--no-pretty-print", "-o", "json"); !strings.Contains(got, "cli-id2") {
		t.Errorf("what-if does not predict the identity:\n%s", got)
	}
	must("group", "delete", "-n", "cli-rg", "--yes")
	if got := must("group", "exists", "-n", "cli-rg"); strings.TrimSpace(got) != "false" {
		t.Errorf("az group exists after delete: %s", got)
	}
}

// serveEmulatorCommand runs `azk emulator` on a free port with its state in
// state until the test ends, and returns what it printed at start, once
// the output holds until.
func serveEmulatorCommand(t *testing.T, state, until string) string {
	t.Helper()
	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	root := newRootCommand(strings.NewReader(""), &stdout, &stderr)
	root.SetArgs([]string{"emulator", "--addr", "127.0.0.1:0", "--state", state})
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("azk emulator: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stdout.String(), until) {
		if time.Now().After(deadline) {
			t.Fatalf("no start-up message; stdout %q stderr %q", stdout.String(), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return stdout.String()
}

// redactArgs hides the value after --password, though the emulator's is no secret.
func redactArgs(args []string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if i > 0 && (out[i-1] == "--password" || out[i-1] == "-p") {
			out[i] = "***"
		}
	}
	return out
}
