package views

import (
	"bytes"
	"testing"

	"github.com/azkcli/azk/internal/planner"
)

// TestPolicyRendering: the team's policies' findings beside their resource
// (an unchanged one listed for it), in the text's Policy section with
// file:line, and in the markdown's own section at the top, with the
// refusal and the requirements not met; a plan-wide finding in the section.
func TestPolicyRendering(t *testing.T) {
	account := &planner.Resource{
		Address: "storage.azure.com/StorageAccount/default/sa", Kind: "StorageAccount", Namespace: "default", Name: "sa", Source: "stack.yaml:9",
		ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa", Action: planner.ActionCreate,
		Policy:  planner.Policy{Value: "manage", Source: "default"},
		Changes: []planner.Change{{Path: "properties.publicNetworkAccess", After: "Enabled"}},
	}
	group := &planner.Resource{
		Address: "resources.azure.com/ResourceGroup/default/rg", Kind: "ResourceGroup", Namespace: "default", Name: "rg", Source: "stack.yaml:1",
		ARMID: "/subscriptions/s/resourceGroups/rg", Action: planner.ActionNoChange, Exists: true,
		Policy: planner.Policy{Value: "manage", Source: "default"},
	}
	gone := &planner.Resource{
		Address: "network.azure.com/VirtualNetwork/default/old", Kind: "VirtualNetwork", Namespace: "default", Name: "old", Source: "stack.yaml:30",
		ARMID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/old", Action: planner.ActionDelete, Exists: true,
		Policy: planner.Policy{Value: "manage", Source: "default"},
	}
	p := &planner.Plan{Inputs: planner.Inputs{Base: "0123abc"}, Resources: []*planner.Resource{group, account, gone}}
	p.SetRules(&planner.Rules{
		Files: []string{"policy/tags.rego", "policy/network.rego"}, Namespaces: []string{"main"},
		Findings: []planner.RuleFinding{
			{Rule: "main.warn_size", Severity: planner.SeverityWarning, Message: "the change touches 3 resources | more than 2"},
			{Rule: "main.warn_tags", Severity: planner.SeverityWarning, Message: "rg has no owner tag", Address: group.Address, Source: group.Source, ARMID: group.ARMID},
			{Rule: "main.deny_public", Severity: planner.SeverityError, Message: "sa allows public network access", Address: account.Address, Source: account.Source, ARMID: account.ARMID},
		},
		Requirements: []planner.Requirement{{Name: "no-delete", Resources: []string{gone.Address}}, {Name: "no-replace", Met: true}},
	})
	var text, md bytes.Buffer
	if err := Text(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, p, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "policy.txt.golden", text.Bytes())
	golden(t, "policy.md.golden", md.Bytes())
}
