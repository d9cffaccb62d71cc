package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// TestExamplesApplyReplanAndDestroy: each example and real-world stack
// applies on the emulator (every write checked against its plan), a new
// plan is quiet, destroy removes everything, and a plan then creates it all
// again.
func TestExamplesApplyReplanAndDestroy(t *testing.T) {
	for _, dir := range exampleDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			_, flags := emulatorAt(t)
			with := func(args ...string) []string { return append(args, flags...) }
			out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...)
			if code != 0 {
				t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "apply", out, "Apply complete! Resources: ")
			if strings.Contains(errOut, "Error") {
				t.Errorf("apply: %s", errOut)
			}
			out, errOut, code = azk(t, "", with("plan", "--detailed-exitcode", dir)...)
			if code != 0 {
				t.Fatalf("plan after apply: exit %d, want 0 (no changes)\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "plan after apply", out, "No changes. Azure matches the manifests.")
			out, errOut, code = azk(t, "", with("destroy", "--auto-approve", dir)...)
			if code != 0 {
				t.Fatalf("destroy: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "destroy", out, "Destroy complete! Resources: 1 deleted, ")
			out, errOut, code = azk(t, "", with("plan", "-o", "json", dir)...)
			if code != 0 || strings.Contains(out, `"action": "no-change"`) || strings.Contains(out, `"exists": true`) {
				t.Errorf("plan after destroy: exit %d, something is left:\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// v1Object is a v1 ConfigMap or Secret as kubectl decodes one: strict
// fields, Secret data base64 into bytes.
type v1Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Type       string            `json:"type,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// v1Secret decodes data as the Secret type does: base64 into bytes.
type v1Secret struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   json.RawMessage `json:"metadata"`
	Type       string          `json:"type"`
	Data       map[string][]byte
}

// decodeManifests splits a YAML stream and decodes each document strictly,
// as kubectl does (YAML to JSON, then JSON into the API types).
func decodeManifests(t *testing.T, stream string) (configMaps []v1Object, secrets []v1Secret) {
	t.Helper()
	for _, doc := range strings.Split(stream, "\n---\n") {
		doc = strings.TrimPrefix(doc, "---\n")
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var o v1Object
		if err := yaml.UnmarshalStrict([]byte(doc), &o); err != nil {
			t.Fatalf("not a v1 object kubectl reads: %v\n%s", err, doc)
		}
		if o.APIVersion != "v1" {
			t.Fatalf("apiVersion %q", o.APIVersion)
		}
		switch o.Kind {
		case "ConfigMap":
			configMaps = append(configMaps, o)
		case "Secret":
			var s v1Secret
			if err := yaml.Unmarshal([]byte(doc), &s); err != nil {
				t.Fatalf("Secret data is not base64: %v", err)
			}
			secrets = append(secrets, s)
		default:
			t.Fatalf("kind %q", o.Kind)
		}
	}
	return configMaps, secrets
}

// TestExamplesConverge: each example applies in one run against the
// emulator (the apply checked against its plan, secret reads included) and
// a plan right after shows no changes; azk output then prints what the
// resources export, as kubectl-readable manifests.
func TestExamplesConverge(t *testing.T) {
	for _, name := range []string{"aks-workload-identity", "storage-key-to-app"} {
		t.Run(name, func(t *testing.T) {
			run, flags := emulatorAt(t)
			dir := copyExample(t, name)
			with := func(args ...string) []string { return append(args, flags...) }
			out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...)
			if code != 0 {
				t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "apply", out, "Apply complete!")
			applied := out + errOut
			out, errOut, code = azk(t, "", with("plan", "--detailed-exitcode", dir)...)
			if code != 0 {
				t.Fatalf("re-plan: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "re-plan", out, "No changes. Azure matches the manifests.")
			switch name {
			case "aks-workload-identity":
				checkWorkloadIdentity(t, run, with, dir)
			case "storage-key-to-app":
				checkStorageKey(t, run, with, dir, applied)
			}
		})
	}
}

// checkWorkloadIdentity: the federated credential carries the issuer URL
// the cluster exports, and azk output prints it as the config map.
func checkWorkloadIdentity(t *testing.T, run *emulator.Running, with func(...string) []string, dir string) {
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-aks-wi"
	cluster := getBody(t, run, rg+"/providers/Microsoft.ContainerService/managedClusters/aks-wi", "2024-09-01")
	issuer := testkit.At[string](t, cluster, "properties", "oidcIssuerProfile", "issuerURL")
	fic := getBody(t, run, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/aks-wi-app/federatedIdentityCredentials/aks-wi-app-demo", "2023-01-31")
	if got := testkit.At[string](t, fic, "properties", "issuer"); got != issuer || issuer == "" {
		t.Errorf("the credential's issuer is %v, the cluster's %q", got, issuer)
	}
	out, errOut, code := azk(t, "", with("output", dir, "ConfigMap/aks-wi-cluster", "-o", "yaml")...)
	if code != 0 {
		t.Fatalf("output: exit %d: %s", code, errOut)
	}
	cms, secrets := decodeManifests(t, out)
	if len(cms) != 1 || len(secrets) != 0 || cms[0].Metadata.Name != "aks-wi-cluster" || cms[0].Metadata.Namespace != "default" || cms[0].Data["issuer"] != issuer {
		t.Errorf("output -o yaml: %+v %+v\n%s", cms, secrets, out)
	}
}

// checkStorageKey: neither apply, plan nor azk output without
// --show-sensitive prints the key the account's listKeys answers; with it,
// azk output prints the Secret, its values base64 as a Secret's data.
// (internal/applier's TestSecretExportedToAConsumer checks the app's PUT
// carries the key.)
func checkStorageKey(t *testing.T, run *emulator.Running, with func(...string) []string, dir, applied string) {
	account := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-keys/providers/Microsoft.Storage/storageAccounts/azkkeysdata"
	op, err := emulatorClient(t, run).Post(testkit.Context(t), account+"/listKeys", "2023-01-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := op.Wait(testkit.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	var keys struct {
		Keys []struct{ KeyName, Value string }
	}
	if err := json.Unmarshal(resp.Body, &keys); err != nil || len(keys.Keys) == 0 {
		t.Fatalf("listKeys: %s %v", resp.Body, err)
	}
	key1 := keys.Keys[0].Value
	connection := "DefaultEndpointsProtocol=https;AccountName=azkkeysdata;AccountKey=" + key1 + ";EndpointSuffix=core.windows.net"
	if strings.Contains(applied, key1) {
		t.Errorf("apply printed the key:\n%s", applied)
	}

	for _, args := range [][]string{{"output", dir}, {"output", dir, "-o", "json"}, {"output", dir, "-o", "yaml"}, {"plan", dir, "-o", "json"}} {
		out, errOut, code := azk(t, "", with(args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.Contains(out+errOut, key1) {
			t.Errorf("%v printed the key:\n%s", args, out)
		}
		if args[0] == "output" && len(args) == 2 {
			mustContain(t, "output", out, "Secret default/azkkeysdata-secrets (exported by storage.azure.com/StorageAccount/default/azkkeysdata)", "key1 = (sensitive)")
		}
		if len(args) == 4 && args[3] == "yaml" {
			mustContain(t, "output -o yaml", errOut, "1 Secret(s) not printed: --show-sensitive")
		}
	}
	out, errOut, code := azk(t, "", with("output", dir, "StorageAccount/azkkeysdata", "--show-sensitive", "-o", "yaml")...)
	if code != 0 {
		t.Fatalf("output --show-sensitive: exit %d: %s", code, errOut)
	}
	cms, secrets := decodeManifests(t, out)
	if len(cms) != 0 || len(secrets) != 1 || secrets[0].Type != "Opaque" {
		t.Fatalf("output --show-sensitive -o yaml: %+v %+v", cms, secrets)
	}
	data := secrets[0].Data
	if string(data["key1"]) != key1 || string(data["connectionString"]) != connection || string(data["blobEndpoint"]) != "https://azkkeysdata.blob.core.windows.net/" {
		t.Errorf("Secret data %q", data)
	}
}

// exampleDirs are the folders of examples/ that hold stacks to apply: all
// but invalid, which holds manifests with mistakes, for azk validate
// (TestReadmeInvalidExample), and policy, which holds Rego policies for
// azk plan --policy (TestExamplePolicies).
func exampleDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*"))
	dirs = slices.DeleteFunc(dirs, func(dir string) bool { return filepath.Base(dir) == "invalid" || filepath.Base(dir) == "policy" })
	if err != nil || len(dirs) < 7 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	return dirs
}
