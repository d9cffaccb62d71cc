package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/azk -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

const quickstart = "../../examples/quickstart"

func TestValidateQuickstart(t *testing.T) {
	t.Setenv("AZURE_SUBSCRIPTION_ID", "")
	out, errOut, code := azk(t, "", "validate", quickstart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "9 resources valid\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut, "no subscription given") || strings.Count(errOut, "Warning") != 1 {
		t.Errorf("want one subscription warning, got %q", errOut)
	}
}

func TestValidateReportsEveryErrorWithFileAndLine(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(`apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: vnet1
spec:
  location: westus2
  owner:
    name: missing-rg
  addressSpace:
    addressPrefixes: 10.0.0.0/16
---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: subnet1
spec:
  owner:
    name: vnet1
  adressPrefix: 10.0.0.0/24
`), 0o644)
	out, errOut, code := azk(t, "", "validate", bad, "--subscription", "00000000-0000-0000-0000-000000000001")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		bad + `:7: network.azure.com/VirtualNetwork/default/vnet1: spec.owner: owner ResourceGroup "missing-rg" is not in the input`,
		bad + ":10: network.azure.com/VirtualNetwork/default/vnet1: spec.addressSpace.addressPrefixes: must be a list, got string",
		bad + `:19: network.azure.com/VirtualNetworksSubnet/default/subnet1: spec.adressPrefix: unknown field "adressPrefix"`,
		"2 resources checked, 3 errors",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	jsonOut, _, code := azk(t, "", "validate", bad, "--subscription", "00000000-0000-0000-0000-000000000001", "-o", "json")
	if code != 1 || !strings.Contains(jsonOut, `"valid": false`) || !strings.Contains(jsonOut, `"line": 19`) {
		t.Errorf("json exit %d: %s", code, jsonOut)
	}
}

// TestValidateReportsWhatPlanWouldBlock: validate, offline, reports what
// plan would block (a secret key missing from its Secret, an empty secret,
// a secret neither in the input nor in the environment) and a misspelt
// ignore-changes path, each with file, line, resource, field and, for the
// path, the nearest property.
func TestValidateReportsWhatPlanWouldBlock(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(`apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
  annotations:
    azk.azkcli.io/ignore-changes: tags.owner, tag.cost
spec:
  location: westus2
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: pg1
spec:
  location: westus2
  owner:
    name: rg1
  version: "16"
  administratorLogin: pgadmin
  administratorLoginPassword:
    name: pg-secrets
    key: password
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: pg2
spec:
  location: westus2
  owner:
    name: rg1
  version: "16"
  administratorLogin: pgadmin
  administratorLoginPassword:
    name: pg-secrets
    key: pasword
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: pg3
spec:
  location: westus2
  owner:
    name: rg1
  version: "16"
  administratorLogin: pgadmin
  administratorLoginPassword:
    name: elsewhere
    key: password
---
apiVersion: v1
kind: Secret
metadata:
  name: pg-secrets
stringData:
  password: ""
`), 0o644)
	t.Setenv("AZK_SECRET_ELSEWHERE_PASSWORD", "") // restored after the test
	os.Unsetenv("AZK_SECRET_ELSEWHERE_PASSWORD")
	out, errOut, code := azk(t, "", "validate", bad, "--subscription", "00000000-0000-0000-0000-000000000001")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	for _, want := range []string{
		bad + `:6: resources.azure.com/ResourceGroup/default/rg1: metadata.annotations.azk.azkcli.io/ignore-changes: "tag.cost": ResourceGroup has no property "tag" at the top of the body (did you mean "tags"?)`,
		bad + `:34: dbforpostgresql.azure.com/FlexibleServer/default/pg2: spec.administratorLoginPassword.key: secret "pg-secrets" (` + bad + `:52) has no key "pasword"`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// What the graph finds stops validate before the requests are computed:
	// with those fixed, the rest shows.
	data, _ := os.ReadFile(bad)
	fixed := strings.NewReplacer("tag.cost", "tags.cost", "key: pasword", "key: password").Replace(string(data))
	os.WriteFile(bad, []byte(fixed), 0o644)
	out, errOut, code = azk(t, "", "validate", bad, "--subscription", "00000000-0000-0000-0000-000000000001")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	for _, want := range []string{
		bad + `:21: dbforpostgresql.azure.com/FlexibleServer/default/pg1: spec.administratorLoginPassword: secret pg-secrets key password is empty`,
		bad + `:49: dbforpostgresql.azure.com/FlexibleServer/default/pg3: spec.administratorLoginPassword: secret elsewhere key password not found: looked for a v1 Secret default/elsewhere in the input and for the environment variable AZK_SECRET_ELSEWHERE_PASSWORD`,
		"4 resources checked, 3 errors",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestValidateReadsStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(quickstart, "resourcegroup.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, string(data), "validate", "-", "--subscription", "00000000-0000-0000-0000-000000000001")
	if code != 0 || out != "1 resource valid\n" {
		t.Errorf("exit %d, %q %q", code, out, errOut)
	}
}

func TestGraphFormats(t *testing.T) {
	for _, format := range []string{"text", "dot", "mermaid", "json"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := azk(t, "", "graph", quickstart, "-o", format, "--subscription", "00000000-0000-0000-0000-000000000001")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "graph-quickstart."+format, out)
		})
	}
}

func TestRenderQuickstart(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := azk(t, "", "render", quickstart, "-o", format, "--subscription", "00000000-0000-0000-0000-000000000001")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "render-quickstart."+format, out)
		})
	}
}

func TestRenderHidesSecretsUnlessAsked(t *testing.T) {
	in := filepath.Join(t.TempDir(), "vm.yaml")
	os.WriteFile(in, []byte(`apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg1
spec:
  location: westus2
---
apiVersion: v1
kind: Secret
metadata:
  name: vm-secret
stringData:
  password: hunter2-very-secret
---
apiVersion: compute.azure.com/v1api20220301
kind: VirtualMachine
metadata:
  name: vm1
spec:
  location: westus2
  owner:
    name: rg1
  osProfile:
    computerName: vm1
    adminUsername: azureuser
    adminPassword:
      name: vm-secret
      key: password
`), 0o644)
	out, _, code := azk(t, "", "render", in, "--subscription", "00000000-0000-0000-0000-000000000001")
	if code != 0 || strings.Contains(out, "hunter2") || !strings.Contains(out, `"adminPassword": "(sensitive)"`) {
		t.Errorf("exit %d, secret shown or not marked:\n%s", code, out)
	}
	out, _, _ = azk(t, "", "render", in, "--subscription", "00000000-0000-0000-0000-000000000001", "--show-sensitive")
	if !strings.Contains(out, `"adminPassword": "hunter2-very-secret"`) {
		t.Errorf("--show-sensitive did not reveal:\n%s", out)
	}
}
