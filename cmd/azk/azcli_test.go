package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	run := func(args ...string) (string, error) {
		t.Helper()
		cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer ccancel()
		cmd := exec.CommandContext(cctx, az, args...)
		cmd.Env = env
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		start := time.Now()
		err := cmd.Run()
		result := "ok"
		if err != nil {
			result = "FAILED: " + err.Error()
		}
		t.Logf("az %s: %s (%s)", strings.Join(redactArgs(args), " "), result, time.Since(start).Round(100*time.Millisecond))
		return buf.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		got, err := run(args...)
		if err != nil {
			t.Fatalf("az %s: %v\n%s", strings.Join(redactArgs(args), " "), err, got)
		}
		return got
	}

	version := must("version", "--query", `"azure-cli"`, "-o", "tsv")
	t.Logf("Azure CLI %s", strings.TrimSpace(version))
	must(register[1:]...)
	must("cloud", "set", "-n", register[4])
	if got := must(login[1:]...); !strings.Contains(got, emulator.DefaultSubscription) {
		t.Fatalf("az login found no subscription:\n%s", got)
	}
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
	if got, err := run("deployment", "group", "create", "-g", "cli-rg", "-n", "dep1", "--template-file", template, "--parameters", "name=cli-id", "-o", "none"); err != nil {
		// The CLI validates (POST .../deployments/{name}/validate) before it deploys.
		t.Fatalf("az deployment group create: %v\n%s", err, got)
	}
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
