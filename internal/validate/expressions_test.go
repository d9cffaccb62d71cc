package validate_test

import (
	"strings"
	"testing"
)

// TestExpressionErrors: CEL expressions the operator's webhook refuses are
// errors naming the file, line, resource, field and expression.
func TestExpressionErrors(t *testing.T) {
	k := registryKind(t, "managedidentity.azure.com", "v1api20230131", "UserAssignedIdentity")
	manifest := `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  location: westus2
  owner:
    name: rg1
  operatorSpec:
    configMapExpressions:
      - name: settings
        key: principal
        value: self.status.principalID
      - name: settings
        value: self.status.clientId
      - name: settings
        key: both
        value: '{"a": self.spec.location}'
      - name: settings
        key: ok
        value: self.status.principalId
      - name: settings
        key: ok
        value: self.status.tenantId
    secretExpressions:
      - name: secrets
        key: s
        value: secret.key1 +
`
	_, diags := checkManifest(t, "id.yaml", manifest, k)
	want := []string{
		`id.yaml:13: managedidentity.azure.com/UserAssignedIdentity/default/id1: spec.operatorSpec.configMapExpressions[0].value: CEL expression "self.status.principalID": ERROR: <input>:1:12: undefined field 'principalID'`,
		`id.yaml:14: managedidentity.azure.com/UserAssignedIdentity/default/id1: spec.operatorSpec.configMapExpressions[1].key: CEL expression "self.status.clientId" returns a string: the destination needs a key`,
		`id.yaml:16: managedidentity.azure.com/UserAssignedIdentity/default/id1: spec.operatorSpec.configMapExpressions[2].key: CEL expression "{\"a\": self.spec.location}" returns a map of strings: the destination must not name a key (each entry is one)`,
		`id.yaml:22: managedidentity.azure.com/UserAssignedIdentity/default/id1: spec.operatorSpec.configMapExpressions[4]: settings key ok is already written by entry 3`,
		`id.yaml:28: managedidentity.azure.com/UserAssignedIdentity/default/id1: spec.operatorSpec.secretExpressions[0].value: CEL expression "secret.key1 +": ERROR: <input>:1:14: Syntax error`,
	}
	if len(diags) != len(want) {
		t.Errorf("got %d diagnostics, want %d:\n%v", len(diags), len(want), diags.Err())
	}
	for i, d := range diags {
		if i < len(want) && !strings.HasPrefix(d.Error(), want[i]) {
			t.Errorf("diagnostic %d\n got %s\nwant %s…", i, d.Error(), want[i])
		}
	}
}

// TestRootOneOf: a Kusto database sets exactly one of its root alternatives.
func TestRootOneOf(t *testing.T) {
	k := registryKind(t, "kusto.azure.com", "v1api20240413", "DataConnection")
	for spec, want := range map[string]string{
		"  eventHubDataConnection:\n    kind: EventHub\n    consumerGroup: $Default\n    eventHubResourceReference:\n      armId: /subscriptions/s/resourceGroups/rg/providers/Microsoft.EventHub/namespaces/n/eventhubs/h\n": "",
		"  eventHubDataConnection:\n    kind: EventHub\n  iotHubDataConnection:\n    kind: IotHub\n":                                                                                                                          "set exactly one of cosmosDbDataConnection, eventGridDataConnection, eventHubDataConnection, iotHubDataConnection",
		"  azureName: dc\n": "set exactly one of",
	} {
		_, diags := checkManifest(t, "dc.yaml", "apiVersion: kusto.azure.com/v1api20240413\nkind: DataConnection\nmetadata:\n  name: dc\nspec:\n  owner:\n    name: db\n"+spec, k)
		got := ""
		if err := diags.Err(); err != nil {
			got = err.Error()
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", spec, got, want)
		}
	}
}
