package graph_test

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/diag"
)

// TestARMIDInjectionIsAnInputError: a value that would end, escape or extend
// the ARM path (issue 12, item 1) is refused where it is written, with file,
// line, resource and field; no ARM ID is built from it.
func TestARMIDInjectionIsAnInputError(t *testing.T) {
	victim := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/victim-rg"
	credential := func(sub string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: other\nstringData:\n  AZURE_TENANT_ID: t\n  AZURE_CLIENT_ID: c\n  AZURE_SUBSCRIPTION_ID: \"" + sub + "\"\n"
	}
	withCredential := strings.Replace(rg, "  name: rg1\n", "  name: rg1\n  annotations:\n    serviceoperator.azure.com/credential-from: other\n", 1)
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-settings\ndata:\n  vnet: \"v?api-version=1\"\n"
	for _, tc := range []struct {
		name  string
		docs  []string
		doc   int // the document holding the error, 0-based
		line  int // within that document
		field string
		want  string
	}{
		{"owner armId with a query", []string{strings.Replace(vnet, "    name: rg1\n", "    armId: "+victim+"?api-version=2020-06-01&x=\n", 1)},
			0, 8, "spec.owner.armId", `resource group name "victim-rg?api-version=2020-06-01&x=" may hold only`},
		{"owner armId with a fragment", []string{strings.Replace(vnet, "    name: rg1\n", "    armId: "+victim+"#x\n", 1)},
			0, 8, "spec.owner.armId", `resource group name "victim-rg#x"`},
		{"owner armId with an escaped slash", []string{strings.Replace(vnet, "    name: rg1\n", "    armId: "+victim+"%2F..\n", 1)},
			0, 8, "spec.owner.armId", `resource group name "victim-rg%2F.."`},
		{"owner armId with a relative segment", []string{strings.Replace(vnet, "    name: rg1\n", "    armId: "+victim+"/providers/Microsoft.Network/virtualNetworks/..\n", 1)},
			0, 8, "spec.owner.armId", `resource name ".." is a relative path segment`},
		{"owner armId with a non-GUID subscription", []string{strings.Replace(vnet, "    name: rg1\n", "    armId: /subscriptions/x?y=/resourceGroups/rg\n", 1)},
			0, 8, "spec.owner.armId", `subscription "x?y=" is not a GUID`},
		{"reference armId with whitespace", []string{rg, strings.Replace(vnet, "  addressSpace:", "  ddosProtectionPlan:\n    reference:\n      armId: "+victim+"/providers/Microsoft.Network/ddosProtectionPlans/a b\n  addressSpace:", 1)},
			1, 11, "spec.ddosProtectionPlan.reference.armId", `resource name "a b" contains whitespace`},
		{"credential subscription with a query", []string{credential("00000000-0000-0000-0000-000000000001/resourceGroups/victim-rg?x="), withCredential},
			0, 8, "AZURE_SUBSCRIPTION_ID", "is not a subscription ID (a GUID)"},
		{"Azure name from a config map", []string{rg, pgServer, cm, strings.Replace(pgAdmin, "    key: principalId\n", "    key: vnet\n", 1)},
			3, 8, "spec.azureNameFromConfig", `Azure name "v?api-version=1" cannot be part of an ARM ID`},
		{"resource group name", []string{strings.Replace(rg, "spec:\n", "spec:\n  azureName: \"rg?x=\"\n", 1)},
			0, 6, "spec.azureName", `Azure name "rg?x=" cannot be part of an ARM ID`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, diags, file := build(t, tc.docs...)
			line := tc.line
			for _, d := range tc.docs[:tc.doc] {
				line += strings.Count(d, "\n") + 1
			}
			var found *diag.Diagnostic
			for _, d := range diags {
				if d.Severity == diag.SeverityError && strings.Contains(d.Message, tc.want) {
					found = d
				}
			}
			if found == nil {
				t.Fatalf("no error containing %q; got:\n%v", tc.want, diags.Err())
			}
			if found.Source.File != file || found.Source.Line != line || found.Field != tc.field {
				t.Errorf("error at %s field %q, want line %d field %q: %s", found.Source, found.Field, line, tc.field, found.Message)
			}
			for _, n := range g.Nodes {
				if strings.ContainsAny(n.ID, "?#% ") || strings.Contains(n.ID, "victim") {
					t.Errorf("%s got the ARM ID %q", n.Address(), n.ID)
				}
			}
		})
	}
}
