package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/operatorconfig"
	"github.com/azkcli/azk/internal/registry"
)

// azk operator-config on every example, offline: its text and Helm values
// are golden files, and agree with its JSON on the crdPattern.
func TestOperatorConfigExamples(t *testing.T) {
	noAzureAccount(t)
	for _, dir := range exampleDirs(t) {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			text, errOut, code := azk(t, "", "operator-config", dir)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			golden(t, filepath.Join("operator-config", name+".text"), text)
			values, _, _ := azk(t, "", "operator-config", "-o", "yaml", dir)
			golden(t, filepath.Join("operator-config", name+".yaml"), values)
			c := operatorConfigJSON(t, dir)
			if !strings.Contains(values, "crdPattern: \""+c.CRDPattern+"\"") || !strings.HasPrefix(text, "crdPattern: "+c.CRDPattern+"\n") {
				t.Errorf("text, Helm values and JSON disagree on crdPattern %q", c.CRDPattern)
			}
		})
	}
}

// The crdPattern of every example matches every CRD of the corpus of a
// kind the example uses, and no other.
func TestOperatorConfigExamplesCRDPattern(t *testing.T) {
	crds, err := corpus.CRDKinds(corpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range exampleDirs(t) {
		c := operatorConfigJSON(t, dir)
		res, _ := loader.Load(loader.Options{Paths: []string{dir}})
		used := map[registry.GroupKind]bool{}
		for _, o := range res.Resources {
			used[registry.GroupKind{Group: o.Group(), Kind: o.Kind}] = true
		}
		for _, crd := range crds {
			if got := operatorconfig.Match(c.CRDPattern, crd.Group, crd.Kind); got != used[crd] {
				t.Errorf("%s: crdPattern matches %s/%s: %v, want %v", dir, crd.Group, crd.Kind, got, used[crd])
			}
		}
		if len(c.Kinds) != len(used) || len(used) == 0 {
			t.Errorf("%s: %d kinds in the configuration, %d in the input", dir, len(c.Kinds), len(used))
		}
	}
}

func operatorConfigJSON(t *testing.T, dir string) operatorconfig.Config {
	t.Helper()
	out, errOut, code := azk(t, "", "operator-config", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("operator-config -o json %s: exit %d\n%s", dir, code, errOut)
	}
	var c operatorconfig.Config
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// A credential-from Secret the input lacks is no error for operator-config
// (credentials seldom live in git): it is listed as not in the input.
func TestOperatorConfigListsMissingCredential(t *testing.T) {
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\n  annotations:\n    serviceoperator.azure.com/credential-from: team-identity\nspec:\n  location: westus2\n")
	out, errOut, code := azk(t, "", "operator-config", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "operator-config", out, "crdPattern: resources.azure.com/ResourceGroup\n",
		"Secret default/team-identity (named by the serviceoperator.azure.com/credential-from annotation of the resources): not in the input: create it before the operator reconciles these resources")
	if _, errOut, code := azk(t, "", "validate", dir); code != 1 || !strings.Contains(errOut, "team-identity") {
		t.Errorf("validate still refuses the missing credential: exit %d\n%s", code, errOut)
	}
}

// noAzureAccount leaves azk no subscription or tenant to find: none in the
// environment, an Azure CLI profile that does not exist.
func noAzureAccount(t *testing.T) {
	t.Helper()
	t.Setenv("AZURE_SUBSCRIPTION_ID", "")
	t.Setenv("AZURE_TENANT_ID", "")
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
}

// With the identity given by flags, the Helm values carry it, the sync
// period and where each value came from: a golden file, which
// internal/operatorconfig renders with the operator's chart.
func TestOperatorConfigHelmValuesWithIdentity(t *testing.T) {
	noAzureAccount(t)
	values, errOut, code := azk(t, "", "operator-config", "-o", "yaml", "--subscription", "6f1c3a52-8d0e-4b7a-9c21-3e5d7f9a0b14",
		"--tenant", "0b2e4d6f-1a3c-4e5f-8a7b-9c0d1e2f3a4b", "--client-id", "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "--sync-period", "2h", quickstart)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	golden(t, filepath.Join("operator-config", "quickstart-with-identity.yaml"), values)
	if strings.Contains(values, operatorconfig.PlaceholderKey) {
		t.Errorf("values with every identity flag hold a placeholder:\n%s", values)
	}
}

// The subscription and tenant come from where azk plan finds them: here the
// Azure CLI's profile, which the values name.
func TestOperatorConfigHelmValuesFromTheCLIProfile(t *testing.T) {
	noAzureAccount(t)
	dir := t.TempDir()
	t.Setenv("AZURE_CONFIG_DIR", dir)
	profile := `{"subscriptions":[{"id":"11111111-1111-4111-8111-111111111111","tenantId":"22222222-2222-4222-8222-222222222222","isDefault":true}]}`
	if err := os.WriteFile(filepath.Join(dir, "azureProfile.json"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	values, errOut, code := azk(t, "", "operator-config", "-o", "yaml", quickstart)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	from := " (from " + filepath.Join(dir, "azureProfile.json") + "):\n"
	mustContain(t, "Helm values", values,
		"# The subscription the operator acts against"+from+"azureSubscriptionID: \"11111111-1111-4111-8111-111111111111\"\n",
		"# The Microsoft Entra tenant of the subscription"+from+"azureTenantID: \"22222222-2222-4222-8222-222222222222\"\n",
		"azureClientID: {"+operatorconfig.PlaceholderKey+": ",
		"--from-literal=AZURE_SUBSCRIPTION_ID=11111111-1111-4111-8111-111111111111 --from-literal=AZURE_TENANT_ID=22222222-2222-4222-8222-222222222222 ")
}

// The identity flags belong to the Helm values: without -o yaml they are
// refused, as is a client ID that is no GUID or a sync period that is not
// positive.
func TestOperatorConfigIdentityFlagsRefused(t *testing.T) {
	noAzureAccount(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--client-id", "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"}, "--client-id is a value of the operator's Helm chart: add -o yaml"},
		{[]string{"-o", "json", "--sync-period", "2h"}, "--sync-period is a value of the operator's Helm chart: add -o yaml"},
		{[]string{"-o", "yaml", "--client-id", "aso-identity"}, `--client-id "aso-identity" is not a client ID (a GUID)`},
		{[]string{"-o", "yaml", "--sync-period", "0s"}, "--sync-period 0s: must be positive"},
	} {
		out, errOut, code := azk(t, "", append([]string{"operator-config", quickstart}, c.args...)...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 saying %q", c.args, code, out, errOut, c.want)
		}
	}
}
