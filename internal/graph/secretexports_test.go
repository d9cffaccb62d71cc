package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/graph"
)

const exportingAccount = `apiVersion: storage.azure.com/v1api20230101
kind: StorageAccount
metadata:
  name: acct1
spec:
  location: westus2
  owner:
    name: rg1
  kind: StorageV2
  sku:
    name: Standard_LRS
  operatorSpec:
    secrets:
      key1:
        name: acct1-keys
        key: key1
        labels:
          app: web
    secretExpressions:
      - name: acct1-keys
        key: connection
        value: '"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key2'
`

func sqlAuditing(secret, key string) string {
	return `apiVersion: sql.azure.com/v1api20211101
kind: Server
metadata:
  name: sql1
spec:
  location: westus2
  owner:
    name: rg1
  administratorLogin: admin1
---
apiVersion: sql.azure.com/v1api20211101
kind: ServersAuditingSetting
metadata:
  name: audit1
spec:
  owner:
    name: sql1
  state: Enabled
  storageEndpoint: https://acct1.blob.core.windows.net/
  storageAccountAccessKey:
    name: ` + secret + `
    key: ` + key + `
`
}

// TestSecretExportsAreGraphSources: a secret reference to a Secret another
// resource exports is an edge to that resource, whether from
// operatorSpec.secrets or secretExpressions; the keys the kind's exporter
// must fetch are those entries and what the expressions read.
func TestSecretExportsAreGraphSources(t *testing.T) {
	for _, key := range []string{"key1", "connection"} {
		g, diags, _ := build(t, rg, exportingAccount, sqlAuditing("acct1-keys", key))
		if diags.HasErrors() {
			t.Fatalf("%s: %v", key, diags.Err())
		}
		var account, audit *graph.Node
		for _, n := range g.Nodes {
			switch n.Object.Name {
			case "acct1":
				account = n
			case "audit1":
				audit = n
			}
		}
		var edge *graph.Edge
		for _, e := range audit.Edges {
			if e.Kind == graph.EdgeSecret {
				edge = e
			}
		}
		if edge == nil || edge.To != account || edge.Field != "spec.storageAccountAccessKey" {
			t.Fatalf("%s: secret edge %+v", key, edge)
		}
		if !slices.Contains(audit.DependsOn(), account) {
			t.Errorf("%s: the auditing setting does not depend on the account", key)
		}
		if got := account.SecretsRequested(); !slices.Equal(got, []string{"key1", "key2"}) {
			t.Errorf("requested %v", got)
		}
		if e, ok := account.SecretExport("acct1-keys", "key1"); !ok || e.Name != "key1" || e.Labels["app"] != "web" {
			t.Errorf("export key1: %+v", e)
		}
	}
}

const hcpCluster = `apiVersion: redhatopenshift.azure.com/v1api20260630preview
kind: HcpOpenShiftCluster
metadata:
  name: hcp1
spec:
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    secrets:
      adminCredentials:
        name: hcp-secrets
        key: kubeconfig
`

func TestSecretExportErrors(t *testing.T) {
	inputSecret := `apiVersion: v1
kind: Secret
metadata:
  name: acct1-keys
stringData:
  key1: x
`
	second := strings.ReplaceAll(strings.ReplaceAll(exportingAccount, "acct1\n", "acct2\n"), "        key: connection", "        key: other")
	for _, tc := range []struct {
		name string
		docs []string
		want string
	}{
		{"key not exported", []string{rg, exportingAccount, sqlAuditing("acct1-keys", "key9")},
			`spec.storageAccountAccessKey: secret "acct1-keys" is exported by storage.azure.com/StorageAccount/default/acct1`},
		{"input Secret of the same name", []string{rg, exportingAccount, inputSecret},
			`secret "acct1-keys" is also a v1 Secret in the input`},
		{"two exporters", []string{rg, exportingAccount, second},
			`secret "acct1-keys" is also exported by storage.azure.com/StorageAccount/default/acct1`},
		{"an exporter azk cannot fetch", []string{rg, hcpCluster, sqlAuditing("hcp-secrets", "kubeconfig")},
			`whose secrets azk does not know how to fetch as the operator does for HcpOpenShiftCluster`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, _ := build(t, tc.docs...)
			if err := diags.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
