package operatorconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, group, kind string
		want                 bool
	}{
		{"resources.azure.com/ResourceGroup", "resources.azure.com", "ResourceGroup", true},
		{"resources.azure.com/resourcegroup", "resources.azure.com", "ResourceGroup", true}, // any case
		{"network.azure.com/VirtualNetwork", "network.azure.com", "VirtualNetworksSubnet", false},
		{"network.azure.com/VirtualNetwork*", "network.azure.com", "VirtualNetworksSubnet", true},
		{"network.azure.com/*", "network.frontdoor.azure.com", "WebApplicationFirewallPolicy", false},
		{"*.azure.com/*", "network.frontdoor.azure.com", "WebApplicationFirewallPolicy", true},
		{"a.azure.com/X; network.azure.com/?irtualNetwork", "network.azure.com", "VirtualNetwork", true},
		{"", "resources.azure.com", "ResourceGroup", false},
	} {
		if got := Match(c.pattern, c.group, c.kind); got != c.want {
			t.Errorf("Match(%q, %s/%s) = %v, want %v", c.pattern, c.group, c.kind, got, c.want)
		}
	}
}

// coverage checks that pattern matches every CRD whose kind the input
// uses and no other CRD, and that every kind used is a CRD.
func coverage(t *testing.T, what, pattern string, crds []registry.GroupKind, used map[registry.GroupKind]bool) {
	t.Helper()
	known := map[registry.GroupKind]bool{}
	for _, crd := range crds {
		known[crd] = true
		if got := Match(pattern, crd.Group, crd.Kind); got != used[crd] {
			t.Errorf("%s: crdPattern %q matches %s/%s: %v, want %v", what, pattern, crd.Group, crd.Kind, got, used[crd])
		}
	}
	for gk := range used {
		if !known[gk] {
			t.Errorf("%s: %s/%s is used but no CRD of the corpus defines it", what, gk.Group, gk.Kind)
		}
	}
}

// Every samples folder of the corpus: the crdPattern covers every kind in
// it and nothing else, checked against the groups and kinds of the CRDs.
func TestCRDPatternCoversExactlyTheSamplesKinds(t *testing.T) {
	dir := corpus.Dir(t)
	crds, err := corpus.CRDKinds(dir)
	if err != nil {
		t.Fatal(err)
	}
	folders, err := corpus.SampleFolders(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, f := range folders {
		s := corpus.LoadSamples(t, f.Path)
		g, _ := graph.Build(s.Result, graph.Options{Subscription: corpus.Subscription})
		c := Build(g)
		used := map[registry.GroupKind]bool{}
		for _, o := range s.Result.Resources {
			used[registry.GroupKind{Group: o.Group(), Kind: o.Kind}] = true
		}
		if len(used) != len(c.Kinds) {
			t.Errorf("%s: %d kinds in the input, %d in the configuration", f.Rel, len(used), len(c.Kinds))
		}
		coverage(t, f.Rel, c.CRDPattern, crds, used)
		kinds += len(used)
	}
	t.Logf("%d samples folders, %d kinds, against %d CRDs", len(folders), kinds, len(crds))
}

func load(t *testing.T, docs string) *graph.Graph {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stack.yaml")
	if err := os.WriteFile(path, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{path}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	g, _ := graph.Build(res, graph.Options{})
	return g
}

// Credentials: a resource's credential-from, a Namespace's, and the
// namespace's aso-credential for resources that name none, each with
// whether the input holds it; Secrets and ConfigMaps consumed and exported.
func TestCredentialsAndObjects(t *testing.T) {
	g := load(t, `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  annotations:
    serviceoperator.azure.com/credential-from: team-a-identity
---
apiVersion: v1
kind: Secret
metadata: {name: own-identity, namespace: team-b}
stringData: {AZURE_SUBSCRIPTION_ID: 00000000-0000-0000-0000-000000000001, AZURE_TENANT_ID: t, AZURE_CLIENT_ID: c}
---
apiVersion: v1
kind: Secret
metadata: {name: aso-credential, namespace: team-c}
stringData: {AZURE_SUBSCRIPTION_ID: 00000000-0000-0000-0000-000000000000}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: a, namespace: team-a}
spec: {location: westus2}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: b
  namespace: team-b
  annotations: {serviceoperator.azure.com/credential-from: own-identity}
spec: {location: westus2}
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: c, namespace: team-c}
spec: {location: westus2}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata: {name: id, namespace: team-c}
spec:
  location: westus2
  owner: {name: c}
  operatorSpec:
    configMaps:
      principalId: {name: id-values, key: principalId}
---
apiVersion: dbformysql.azure.com/v1api20231230
kind: FlexibleServer
metadata: {name: db, namespace: team-c}
spec:
  location: westus2
  owner: {name: c}
  administratorLogin: admin
  administratorLoginPassword: {name: db-admin, key: password}
`)
	c := Build(g)
	if c.CRDPattern != "dbformysql.azure.com/FlexibleServer;managedidentity.azure.com/UserAssignedIdentity;resources.azure.com/ResourceGroup" {
		t.Errorf("crdPattern %q", c.CRDPattern)
	}
	var names []string
	for _, ns := range c.Namespaces {
		names = append(names, ns.Name)
	}
	if !reflect.DeepEqual(names, []string{"team-a", "team-b", "team-c"}) || !c.Namespaces[0].InInput || c.Namespaces[1].InInput {
		t.Errorf("namespaces %+v", c.Namespaces)
	}
	type cred struct {
		name, scope string
		in          bool
		users       int
	}
	var got []cred
	for _, cr := range c.Credentials {
		got = append(got, cred{cr.Namespace + "/" + cr.Name, cr.Scope, cr.InInput, len(cr.UsedBy)})
	}
	want := []cred{
		{"team-c/aso-credential", ScopeNamespace, true, 3},
		{"team-a/team-a-identity", ScopeNamespaceAnnotation, false, 1},
		{"team-b/own-identity", ScopeResource, true, 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("credentials\n%+v, want\n%+v", got, want)
	}
	if len(c.Secrets) != 1 || c.Secrets[0].Name != "db-admin" || c.Secrets[0].InInput || len(c.Secrets[0].Consumers) != 1 || c.Secrets[0].Consumers[0].Key != "password" {
		t.Errorf("secrets %+v", c.Secrets)
	}
	if len(c.ConfigMaps) != 1 || c.ConfigMaps[0].Name != "id-values" || len(c.ConfigMaps[0].Exporters) != 1 {
		t.Errorf("config maps %+v", c.ConfigMaps)
	}
	var text, values strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Secret team-a/team-a-identity (named by the serviceoperator.azure.com/credential-from annotation of Namespace team-a): not in the input: create it before the operator reconciles these resources",
		"Secret team-c/aso-credential (the namespace's credential, for the resources naming none): in the input",
		"Secret team-c/db-admin: not in the input: create it before the operator reconciles its consumers",
		"ConfigMap team-c/id-values: not in the input: the operator writes it",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := c.WriteHelmValues(&values, Operator{SyncPeriod: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\ncrdPattern: \"" + c.CRDPattern + "\"\n",
		"azureTargetNamespaces:\n  - \"team-a\"\n  - \"team-b\"\n  - \"team-c\"\n",
		// Named by a Namespace and not in the input: to create.
		"#   team-a/team-a-identity, named by Namespace team-a for its resources:\n#   kubectl create secret generic team-a-identity -n team-a --from-literal=AZURE_SUBSCRIPTION_ID=<subscription ID> --from-literal=AZURE_TENANT_ID=<tenant ID> --from-literal=AZURE_CLIENT_ID=<client ID of its identity>\n",
		"# Credential Secret team-c/aso-credential is in the input (",
		"# Credential Secret team-b/own-identity is in the input (",
	} {
		if !strings.Contains(values.String(), want) {
			t.Errorf("Helm values lack %q:\n%s", want, values.String())
		}
	}
	// team-c's aso-credential is in the input: no line creates it.
	if strings.Contains(values.String(), "aso-credential -n team-c") {
		t.Errorf("Helm values create a credential the input holds:\n%s", values.String())
	}
}
