package clienttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// TestTerraformAzapi runs Terraform with the azapi provider, both built from
// the module proxy, against the emulator with the settings `azk emulator`
// prints (emulator.ClientSettings.AzapiEnv): init from a filesystem mirror,
// plan, apply of a resource group, a virtual network and a storage account
// whose keys an azapi_resource_action lists, a second plan that finds no
// change, and destroy. Every request to anything but 127.0.0.1 goes to a
// proxy that refuses and records it, and the test fails if there is one.
func TestTerraformAzapi(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds Terraform and the azapi provider on first use, then runs Terraform for a minute")
	}
	tfBin := terraform.executable(t)
	providerBin := azapi.executable(t)

	run, err := emulator.Start(context.Background(), emulator.Options{}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	work := t.TempDir()
	certFile := filepath.Join(work, "emulator-cert.pem")
	writeFile(t, certFile, string(run.CertPEM))
	settings := emulator.ClientSettings{URL: run.URL, CertFile: certFile}
	egress := startEgressRecorder(t)

	// The provider comes from a filesystem mirror and from nowhere else, so
	// Terraform never asks its registry.
	mirror := filepath.Join(work, "mirror", "registry.terraform.io", "azure", "azapi", "1.15.0", runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(mirror, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(providerBin, filepath.Join(mirror, azapi.name)); err != nil {
		t.Fatal(err)
	}
	cliConfig := filepath.Join(work, "terraform.rc")
	writeFile(t, cliConfig, fmt.Sprintf(`disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["registry.terraform.io/azure/azapi"]
  }
}
`, filepath.Join(work, "mirror")))
	config := filepath.Join(work, "config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(config, "main.tf"), azapiConfig)

	// A minimal environment: nothing of the caller's Azure or proxy
	// settings leaks in; every proxy variable names the recorder, and no
	// host is exempt (Go's clients never proxy loopback addresses).
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + os.TempDir(),
		"TF_CLI_CONFIG_FILE=" + cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"HTTP_PROXY=" + egress.url, "HTTPS_PROXY=" + egress.url, "http_proxy=" + egress.url, "https_proxy=" + egress.url,
		"NO_PROXY=", "no_proxy=",
	}
	env = append(env, settings.AzapiEnv()...)
	tf := func(wantExit int, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, tfBin, append(args, "-no-color")...)
		cmd.Dir, cmd.Env = config, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		exit := 0
		var exitErr *exec.ExitError
		switch {
		case errors.As(err, &exitErr):
			exit = exitErr.ExitCode()
		case err != nil:
			t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		}
		t.Logf("terraform %s: exit %d (%s)", strings.Join(args, " "), exit, time.Since(start).Round(100*time.Millisecond))
		if exit != wantExit {
			t.Fatalf("terraform %s: exit %d, want %d\n%s\nrequests refused on their way off 127.0.0.1: %v", strings.Join(args, " "), exit, wantExit, out.String(), egress.requests())
		}
		return out.String()
	}

	tf(0, "init", "-input=false")
	if out := tf(2, "plan", "-input=false", "-detailed-exitcode"); !strings.Contains(out, "4 to add, 0 to change, 0 to destroy") {
		t.Errorf("the first plan does not add the four resources:\n%s", out)
	}
	tf(0, "apply", "-input=false", "-auto-approve")

	rg := "/subscriptions/" + emulator.DefaultSubscription + "/resourceGroups/tf-rg"
	if !groupExists(t, run, rg) {
		t.Errorf("after apply the resource group %s does not exist", rg)
	}
	for _, id := range []string{rg + "/providers/Microsoft.Network/virtualNetworks/tf-vnet", rg + "/providers/Microsoft.Storage/storageAccounts/azktfstore01"} {
		if !slices.ContainsFunc(run.Server.ResourceIDs(), func(held string) bool { return strings.EqualFold(held, id) }) {
			t.Errorf("after apply the emulator does not hold %s; it holds %v", id, run.Server.ResourceIDs())
		}
	}
	// The keys Terraform listed are the emulator's: compared, never printed.
	var outputs struct {
		Keys struct {
			Value []struct {
				KeyName string `json:"keyName"`
				Value   string `json:"value"`
			} `json:"value"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(tf(0, "output", "-json")), &outputs); err != nil {
		t.Fatalf("terraform output -json: %v", err)
	}
	want := listKeys(t, run, rg+"/providers/Microsoft.Storage/storageAccounts/azktfstore01")
	got := map[string]string{}
	for _, k := range outputs.Keys.Value {
		got[k.KeyName] = k.Value
	}
	if len(want) != 2 || len(got) != len(want) {
		t.Errorf("listKeys through azapi_resource_action gave keys %v, the emulator holds %v", keyNames(got), keyNames(want))
	}
	for name, value := range want {
		if got[name] != value || value == "" {
			t.Errorf("key %s through azapi_resource_action differs from the emulator's", name)
		}
	}

	if out := tf(0, "plan", "-input=false", "-detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("the plan after apply is not clean:\n%s", out)
	}
	tf(0, "destroy", "-input=false", "-auto-approve")
	for _, id := range run.Server.ResourceIDs() {
		if strings.HasPrefix(strings.ToLower(id), strings.ToLower(rg)) {
			t.Errorf("after destroy the emulator still holds %s", id)
		}
	}
	if groupExists(t, run, rg) {
		t.Errorf("after destroy the resource group %s still exists", rg)
	}
	if reqs := egress.requests(); len(reqs) > 0 {
		t.Errorf("Terraform or azapi sent requests off 127.0.0.1 (refused): %v", reqs)
	}
}

// azapiConfig is the configuration the test applies: a resource group, a
// network with a subnet, a storage account and its keys.
const azapiConfig = `terraform {
  required_providers {
    azapi = {
      source  = "Azure/azapi"
      version = "1.15.0"
    }
  }
}

provider "azapi" {}

resource "azapi_resource" "rg" {
  type      = "Microsoft.Resources/resourceGroups@2021-04-01"
  name      = "tf-rg"
  location  = "westus2"
  parent_id = "/subscriptions/` + emulator.DefaultSubscription + `"
}

resource "azapi_resource" "vnet" {
  type      = "Microsoft.Network/virtualNetworks@2023-04-01"
  name      = "tf-vnet"
  location  = "westus2"
  parent_id = azapi_resource.rg.id
  body = jsonencode({
    properties = {
      addressSpace = { addressPrefixes = ["10.40.0.0/16"] }
      subnets = [{ name = "default", properties = { addressPrefix = "10.40.1.0/24" } }]
    }
  })
}

resource "azapi_resource" "storage" {
  type      = "Microsoft.Storage/storageAccounts@2023-01-01"
  name      = "azktfstore01"
  location  = "westus2"
  parent_id = azapi_resource.rg.id
  body = jsonencode({
    kind       = "StorageV2"
    sku        = { name = "Standard_LRS" }
    properties = { minimumTlsVersion = "TLS1_2" }
  })
}

resource "azapi_resource_action" "keys" {
  type                   = "Microsoft.Storage/storageAccounts@2023-01-01"
  resource_id            = azapi_resource.storage.id
  action                 = "listKeys"
  response_export_values = ["keys"]
}

output "keys" {
  value     = azapi_resource_action.keys.output.keys
  sensitive = true
}
`

// egressRecorder is an HTTP proxy that refuses every request and records
// where it was going: a client's way off 127.0.0.1.
type egressRecorder struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func startEgressRecorder(t *testing.T) *egressRecorder {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &egressRecorder{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, r.Method+" "+r.Host)
		e.mu.Unlock()
		http.Error(w, "the azk client test allows no network but 127.0.0.1", http.StatusForbidden)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return e
}

func (e *egressRecorder) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

// armGet sends a request to the emulator as a client of its own would,
// and decodes the answer.
func armGet(t *testing.T, run *emulator.Running, method, path string, into any) int {
	t.Helper()
	req, err := http.NewRequest(method, run.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer clienttest")
	resp, err := run.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if into != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

func groupExists(t *testing.T, run *emulator.Running, id string) bool {
	t.Helper()
	return armGet(t, run, http.MethodGet, id+"?api-version=2021-04-01", nil) == http.StatusOK
}

// listKeys is the storage account's keys by name, as the emulator lists them.
func listKeys(t *testing.T, run *emulator.Running, id string) map[string]string {
	t.Helper()
	var body struct {
		Keys []struct {
			KeyName string `json:"keyName"`
			Value   string `json:"value"`
		} `json:"keys"`
	}
	if status := armGet(t, run, http.MethodPost, id+"/listKeys?api-version=2023-01-01", &body); status != http.StatusOK {
		t.Fatalf("listKeys of %s: %d", id, status)
	}
	keys := map[string]string{}
	for _, k := range body.Keys {
		keys[k.KeyName] = k.Value
	}
	return keys
}

func keyNames(keys map[string]string) []string {
	var names []string
	for name := range keys {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
