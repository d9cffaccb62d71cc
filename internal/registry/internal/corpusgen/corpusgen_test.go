package corpusgen

import (
	"os"

	"github.com/azkcli/azk/internal/corpus"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

var (
	buildOnce   sync.Once
	buildResult *Result
	buildErr    error
)

func built(t *testing.T) *Result {
	t.Helper()
	dir := corpus.Dir(t)
	armTypes := ARMTypesDir(dir)
	if _, err := os.Stat(armTypes); err != nil {
		t.Skipf("REST specification types not found at %s: skipping", armTypes)
	}
	buildOnce.Do(func() { buildResult, buildErr = Build(dir, armTypes) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildResult
}

func TestReferencesPairWithStringLeaves(t *testing.T) {
	res := built(t)
	for _, m := range res.RefLeafMismatches {
		t.Error(m)
	}
}

// TestEveryFieldPairsWithARM: every spec field that reaches ARM has an ARM
// counterpart, and every status field but the conditions is read from the
// GET body.
func TestEveryFieldPairsWithARM(t *testing.T) {
	res := built(t)
	t.Logf("%d spec and %d status fields without an ARM pairing", len(res.Unpaired), len(res.UnpairedStatus))
	for _, u := range res.Unpaired {
		t.Error("spec field without ARM pairing:", u)
	}
	for _, u := range res.UnpairedStatus {
		t.Error("status field without ARM pairing:", u)
	}
}

func TestParseARMURI(t *testing.T) {
	tests := []struct {
		uri  string
		want armResource
	}{
		{"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets/{subnetName}",
			armResource{Type: "Microsoft.Network/virtualNetworks/subnets", Scope: registry.ScopeResourceGroup}},
		{"/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}",
			armResource{Type: "Microsoft.Resources/resourceGroups", Scope: registry.ScopeSubscription}},
		{"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Storage/storageAccounts/{accountName}/blobServices/default",
			armResource{Type: "Microsoft.Storage/storageAccounts/blobServices", Scope: registry.ScopeResourceGroup, FixedName: "default"}},
		{"/{scope}/providers/Microsoft.Authorization/roleAssignments/{roleAssignmentName}",
			armResource{Type: "Microsoft.Authorization/roleAssignments", Scope: registry.ScopeExtension}},
		{"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/{clusterRp}/{clusterResourceName}/{clusterName}/providers/Microsoft.KubernetesConfiguration/extensions/{extensionName}",
			armResource{Type: "Microsoft.KubernetesConfiguration/extensions", Scope: registry.ScopeExtension}},
		{"/providers/Microsoft.Subscription/aliases/{aliasName}",
			armResource{Type: "Microsoft.Subscription/aliases", Scope: registry.ScopeTenant}},
		{"/subscriptions/{subscriptionId}/providers/Microsoft.Security/pricings/{pricingName}",
			armResource{Type: "Microsoft.Security/pricings", Scope: registry.ScopeSubscription}},
		{"/subscriptions/{subscriptionId}/providers/Microsoft.Compute/locations/{location}/galleries/{galleryName}",
			armResource{Type: "Microsoft.Compute/galleries", Scope: registry.ScopeLocation}},
	}
	for _, tt := range tests {
		got, err := parseARMURI(tt.uri)
		if err != nil || got != tt.want {
			t.Errorf("parseARMURI(%q) = %+v, %v; want %+v", tt.uri, got, err, tt.want)
		}
	}
	for _, bad := range []string{"/subscriptions/{subscriptionId}", "/providers/Microsoft.Network/virtualNetworks"} {
		if got, err := parseARMURI(bad); err == nil {
			t.Errorf("parseARMURI(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestParseGoType(t *testing.T) {
	tests := []struct {
		in   string
		want goType
	}{
		{"*string", goType{Kind: goNamed, Named: "string"}},
		{"Validated<*int> (2 rules)", goType{Kind: goNamed, Named: "int"}},
		{"Object (2 properties)[]", goType{Kind: goArray, Elem: &goType{Kind: goObject}}},
		{"map[string]Object (0 properties)", goType{Kind: goMap, Elem: &goType{Kind: goObject}}},
		{"Validated<Validated<string> (1 rule)[]> (1 rule)", goType{Kind: goArray, Elem: &goType{Kind: goNamed, Named: "string"}}},
		{"*Enum (3 values)", goType{Kind: goEnum}},
		{"genruntime.ResourceReference[]", goType{Kind: goArray, Elem: &goType{Kind: goNamed, Named: "genruntime.ResourceReference"}}},
	}
	for _, tt := range tests {
		if got := parseGoType(tt.in); !sameType(got, tt.want) {
			t.Errorf("parseGoType(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestDerivedName(t *testing.T) {
	tests := []struct{ kube, armGo, want string }{
		{"vnetSubnetReference", "VnetSubnetID", "vnetSubnetID"},
		{"workspaceResourceReference", "WorkspaceResourceId", "workspaceResourceId"},
		{"reference", "Id", "id"},
		{"principalIdFromConfig", "PrincipalId", "principalId"},
		{"assignableScopesReferences", "AssignableScopes", "assignableScopes"},
		{"subnet", "Subnet", ""},
		{"keyVaultReference", "VaultId", ""},
	}
	for _, tt := range tests {
		if got := derivedName(tt.kube, tt.armGo); got != tt.want {
			t.Errorf("derivedName(%q, %q) = %q, want %q", tt.kube, tt.armGo, got, tt.want)
		}
	}
}
