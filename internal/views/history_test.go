package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/planner"
)

// historyPlan is a drift report whose history the planner classified: a
// storage account a portal user opened up, a vault whose soft delete Azure
// keeps on, a network whose history does not reach back.
func historyPlan(drift bool) *planner.Plan {
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	const portal = "portal-user@contoso.example"
	st := &planner.Resource{
		Address: "storage.azure.com/StorageAccount/default/stdata", Kind: "StorageAccount", Namespace: "default", Name: "stdata",
		ARMID:  "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/stdata",
		Exists: true, Action: planner.ActionNoChange, Reason: planner.ReasonMatches, Policy: planner.Policy{Value: "manage", Source: planner.PolicySourceDefault},
		Changes:   []planner.Change{{Path: "properties.networkAcls.defaultAction", Before: "Allow", After: "Deny"}},
		AzureOnly: []planner.PathValue{{Path: "properties.allowBlobPublicAccess", Value: true}, {Path: "tags.owner", Value: "alice|ops"}},
		History: &planner.History{
			Since: "azk's last write at 2026-11-30T08:00:00Z",
			Findings: []planner.HistoryFinding{
				{Path: "properties.allowBlobPublicAccess", Class: planner.ClassChangedOutside, Value: true, ChangedBy: portal, ClientType: "Azure Portal", Timestamp: &at, Operation: "Microsoft.Storage/storageAccounts/write"},
				{Path: "tags.owner", Class: planner.ClassChangedOutside, Value: "alice|ops", ChangedBy: portal, ClientType: "Azure Portal", Timestamp: &at, Operation: "Microsoft.Storage/storageAccounts/write"},
				{Path: "properties.accessTier", Class: planner.ClassDefault, Value: "Hot"},
				{Path: "properties.networkAcls.defaultAction", Class: planner.ClassChangedOutside, Value: "Allow", ChangedBy: portal, ClientType: "Azure Portal", Timestamp: &at, Operation: "Microsoft.Storage/storageAccounts/write"},
			},
			Defaults: []planner.PathValue{{Path: "properties.accessTier", Value: "Hot"}},
		},
	}
	kv := &planner.Resource{
		Address: "keyvault.azure.com/Vault/default/kv", Kind: "Vault", Namespace: "default", Name: "kv",
		ARMID:  "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv",
		Exists: true, Action: planner.ActionNoChange, Reason: planner.ReasonMatches, Policy: planner.Policy{Value: "manage", Source: planner.PolicySourceDefault},
		History: &planner.History{
			Since:    "azk's last write at 2026-11-30T08:00:00Z",
			Findings: []planner.HistoryFinding{{Path: "properties.enableSoftDelete", Class: planner.ClassAzureKeeps, Value: true}},
			Keeps:    []planner.Change{{Path: "properties.enableSoftDelete", Before: true, After: false}},
		},
	}
	vnet := &planner.Resource{
		Address: "network.azure.com/VirtualNetwork/default/vnet", Kind: "VirtualNetwork", Namespace: "default", Name: "vnet",
		ARMID:  "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet",
		Exists: true, Action: planner.ActionNoChange, Reason: planner.ReasonMatches, Policy: planner.Policy{Value: "manage", Source: planner.PolicySourceDefault},
		AzureOnly: []planner.PathValue{{Path: "properties.dhcpOptions.dnsServers", Value: []any{"10.9.9.9"}}},
		History: &planner.History{
			Unknown:  "no change record or Activity Log event reaches back to azk's last write or the resource's creation",
			Findings: []planner.HistoryFinding{{Path: "properties.dhcpOptions.dnsServers", Class: planner.ClassUnknown, Value: []any{"10.9.9.9"}}},
		},
	}
	if drift {
		// Only what the manifests leave unsaid changed: drift all the same.
		st.Changes, st.History.Findings = nil, st.History.Findings[:3]
	} else {
		st.Action, st.Reason = planner.ActionUpdate, planner.ReasonChanged
	}
	return &planner.Plan{FormatVersion: planner.FormatVersion, Subscription: testSub, Drift: drift, Resources: []*planner.Resource{st, kv, vnet}}
}

func TestHistoryRendering(t *testing.T) {
	var md, text, defaults, js bytes.Buffer
	if err := Markdown(&md, historyPlan(true), Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "history-drift.md.golden", md.Bytes())
	if err := Text(&text, historyPlan(false), Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "history-plan.txt.golden", text.Bytes())
	if err := Text(&defaults, historyPlan(false), Options{ShowDefaults: true}); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, historyPlan(true)); err != nil {
		t.Fatal(err)
	}
	golden(t, "history-drift.json.golden", js.Bytes())
	// The summary counts what others changed as drift; the vault, whose
	// difference Azure keeps, and the network are not.
	if !strings.Contains(md.String(), "Drift: 1 of 3 existing resources changed in Azure") {
		t.Errorf("drift summary: %s", md.String())
	}
	if strings.Contains(text.String(), "properties.accessTier") || !strings.Contains(defaults.String(), "= properties.accessTier = \"Hot\"") {
		t.Errorf("a default shows only with ShowDefaults:\n%s\n---\n%s", text.String(), defaults.String())
	}
}
