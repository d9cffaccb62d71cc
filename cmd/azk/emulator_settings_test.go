package main

import (
	"bytes"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
)

// TestEmulatorToolSettings: the settings `azk emulator` prints for each
// client, and the Azure CLI's cloud file, as golden files. The azapi lines
// name its endpoint and managed-identity settings (azapi has no
// metadata_host), and the CLI's cloud names the emulator's Microsoft Graph.
func TestEmulatorToolSettings(t *testing.T) {
	c := emulator.ClientSettings{URL: "https://127.0.0.1:8443", CertFile: "/state/emulator-cert.pem"}
	var out bytes.Buffer
	printToolSettings(&out, c, "/state/azure-cli-cloud.json")
	golden(t, "emulator-tool-settings.text", out.String())
	golden(t, "emulator-azure-cli-cloud.json", string(c.AzureCLICloud()))
}
