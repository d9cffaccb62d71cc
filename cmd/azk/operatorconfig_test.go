package main

import (
	"encoding/json"
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
	t.Setenv("AZURE_SUBSCRIPTION_ID", "")
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
