package convert_test

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

const cluster = `apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata:
  name: aks1
spec:
  location: westus2
  owner:
    name: rg1
  dnsPrefix: aks1
  oidcIssuerProfile:
    enabled: true
  agentPoolProfiles:
    - name: pool1
      count: 1
      vmSize: Standard_DS2_v2
      mode: System
  identity:
    type: SystemAssigned
  operatorSpec:
    configMaps:
      oidcIssuerProfile:
        name: aks-settings
        key: issuer
`

const workloadIdentity = `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: app-identity
spec:
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    configMaps:
      clientId:
        name: identity-settings
        key: clientId
`

const federated = `apiVersion: managedidentity.azure.com/v1api20230131
kind: FederatedIdentityCredential
metadata:
  name: app-federation
spec:
  owner:
    name: app-identity
  audiences:
    - api://AzureADTokenExchange
  issuerFromConfig:
    name: aks-settings
    key: issuer
  subject: system:serviceaccount:default:app
`

// TestWorkloadIdentityChain: the cluster exports its OIDC issuer URL, read
// from status.oidcIssuerProfile.issuerURL as the operator's configuration
// says, into the federated credential's issuerFromConfig.
func TestWorkloadIdentityChain(t *testing.T) {
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, cluster, workloadIdentity, federated)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if _, err := convert.MarshalRequest(reqs["app-federation"].Body); err == nil || !strings.Contains(err.Error(), "properties.issuer") {
		t.Errorf("before the cluster exists the issuer is unknown, got %v", err)
	}
	const issuer = "https://westus2.oic.prod-aks.azure.com/tenant/cluster/"
	status := func(n *graph.Node) map[string]any {
		if n.Object.Name != "aks1" {
			return nil
		}
		return convert.Status(n.Kind, map[string]any{"properties": map[string]any{"oidcIssuerProfile": map[string]any{"enabled": true, "issuerURL": issuer}}})
	}
	reqs, diags = render(t, convert.Sources{LookupEnv: noEnv, Status: status}, rg, cluster, workloadIdentity, federated)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if got := bodyJSON(t, reqs["app-federation"]); !strings.Contains(got, `"issuer":"`+issuer+`"`) {
		t.Errorf("issuer not chained from the cluster's status: %s", got)
	}
}

const expressionExporter = `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: admin-identity
spec:
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    configMapExpressions:
      - name: admin-settings
        key: login
        value: self.spec.azureName
      - name: admin-settings
        key: principal
        value: '"principal-" + self.status.principalId.lowerAscii()'
      - name: derived
        value: '{"region": self.spec.location.upperAscii(), "rg": self.spec.owner.name}'
`

const expressionConsumer = `apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: 0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11
spec:
  owner:
    name: rg1
    group: resources.azure.com
    kind: ResourceGroup
  principalIdFromConfig:
    name: admin-settings
    key: %s
  roleDefinitionReference:
    armId: /subscriptions/` + sub + `/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`

// TestExpressionExports: configMapExpressions are CEL over the resource after
// the operator's defaulting (spec.azureName is metadata.name when left out),
// known at once when they read only the manifest, after apply when they read
// status; map results export each entry.
func TestExpressionExports(t *testing.T) {
	status := func(n *graph.Node) map[string]any {
		if n.Object.Name != "admin-identity" {
			return nil
		}
		return convert.Status(n.Kind, map[string]any{"properties": map[string]any{"principalId": "ABC"}})
	}
	for key, want := range map[string]string{"login": "admin-identity", "principal": "principal-abc", "region": "WESTUS2", "rg": "rg1"} {
		cm := "admin-settings"
		if key == "region" || key == "rg" {
			cm = "derived"
		}
		consumer := strings.Replace(strings.Replace(expressionConsumer, "%s", key, 1), "admin-settings", cm, 1)
		offline, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, expressionExporter, consumer)
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		_, err := convert.MarshalRequest(offline["0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11"].Body)
		if readsStatus := key == "principal"; (err != nil) != readsStatus {
			t.Errorf("%s: known before the identity exists = %v, want %v (%v)", key, err == nil, !readsStatus, err)
		}
		reqs, diags := render(t, convert.Sources{LookupEnv: noEnv, Status: status}, rg, expressionExporter, consumer)
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		if got := bodyJSON(t, reqs["0d3a4b8e-93c9-4d5b-a7de-2d0f0c1c6b11"]); !strings.Contains(got, `"principalId":"`+want+`"`) {
			t.Errorf("%s: want principalId %q in %s", key, want, got)
		}
	}
}

// TestRootOneOfInline: the alternatives of a one-of at the root of the spec
// (Kusto databases) stand inline in the body, beside name, as the operator's
// configuration embeds them in the resource.
func TestRootOneOfInline(t *testing.T) {
	kusto := `apiVersion: kusto.azure.com/v1api20240413
kind: Cluster
metadata:
  name: kc1
spec:
  location: westus2
  owner:
    name: rg1
  sku:
    name: Dev(No SLA)_Standard_E2a_v4
    tier: Basic
---
apiVersion: kusto.azure.com/v1api20240413
kind: Database
metadata:
  name: db1
spec:
  owner:
    name: kc1
  readWriteDatabase:
    kind: ReadWrite
    location: westus2
    softDeletePeriod: P7D
`
	reqs, diags := render(t, convert.Sources{LookupEnv: noEnv}, rg, kusto)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	want := `{"kind":"ReadWrite","location":"westus2","name":"db1","properties":{"softDeletePeriod":"P7D"}}`
	if got := bodyJSON(t, reqs["db1"]); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}
