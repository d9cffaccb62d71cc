package extensions_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/testkit"
)

type unknown string

func target(armType string, get func(id, apiVersion string) (map[string]any, error)) extensions.Target {
	return extensions.Target{
		ARMType: armType, APIVersion: "2023-01-01", AzureName: "x",
		ID:      "/subscriptions/sub1/resourceGroups/rg/providers/" + armType + "/x",
		Get:     get,
		Unknown: func(reason string) any { return unknown(reason) },
		Project: func([]string) func(map[string]any) map[string]any {
			return func(child map[string]any) map[string]any {
				return map[string]any{"name": child["name"], "properties": child["properties"]}
			}
		},
	}
}

func text(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestPreservedChildren(t *testing.T) {
	m := extensions.BodyModifierFor("microsoft.network/VIRTUALNETWORKS")
	if m == nil {
		t.Fatal("no body modifier for virtual networks")
	}
	current := map[string]any{"properties": map[string]any{"subnets": []any{
		map[string]any{"name": "kept", "properties": map[string]any{"addressPrefix": "10.0.1.0/24"}, "etag": "x"},
		map[string]any{"name": "Mine", "properties": map[string]any{"addressPrefix": "10.0.9.0/24"}},
	}}}
	body := map[string]any{"properties": map[string]any{"subnets": []any{map[string]any{"name": "mine"}}}}
	get := func(string, string) (map[string]any, error) { return current, nil }
	if err := m.ModifyBody(target("Microsoft.Network/virtualNetworks", get), body, &extensions.Outcome{}); err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"subnets":[{"name":"mine"},{"name":"kept","properties":{"addressPrefix":"10.0.1.0/24"}}]}}`
	if got := text(body); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	offline := map[string]any{"properties": map[string]any{}}
	if err := m.ModifyBody(target("Microsoft.Network/virtualNetworks", nil), offline, &extensions.Outcome{}); err != nil || text(offline) != `{"properties":{}}` {
		t.Errorf("offline: %v %s", err, text(offline))
	}
}

func TestVaultCreateMode(t *testing.T) {
	m := extensions.BodyModifierFor("Microsoft.KeyVault/vaults")
	for _, tc := range []struct {
		mode, want, purge string
		deleted           bool
	}{
		{"createOrRecover", "recover", "", true},
		{"createOrRecover", "default", "", false},
		{"purgeThenCreate", "default", "/subscriptions/sub1/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/x", true},
		{"default", "default", "", true},
	} {
		get := func(id, _ string) (map[string]any, error) {
			if tc.deleted {
				return map[string]any{"id": id}, nil
			}
			return nil, nil
		}
		body := map[string]any{"location": "West US 2", "properties": map[string]any{"createMode": tc.mode}}
		var out extensions.Outcome
		if err := m.ModifyBody(target("Microsoft.KeyVault/vaults", get), body, &out); err != nil {
			t.Fatal(err)
		}
		purge := ""
		if len(out.Before) == 1 && out.Before[0].Method == "POST" && strings.HasSuffix(out.Before[0].Path, "/purge") {
			purge = strings.TrimSuffix(out.Before[0].Path, "/purge")
		}
		if got := testkit.At[string](t, body, "properties", "createMode"); got != tc.want || purge != tc.purge || len(out.Before) > 1 {
			t.Errorf("%s (deleted %v): createMode %v before %+v, want %s, purge %q", tc.mode, tc.deleted, got, out.Before, tc.want, tc.purge)
		}
	}
}

func TestRoleAssignmentBuiltInRole(t *testing.T) {
	m := extensions.BodyModifierFor("Microsoft.Authorization/roleAssignments")
	tg := target("Microsoft.Authorization/roleAssignments", nil)
	tg.RoleDefinitionID = func(name string) (string, bool) {
		return "/subscriptions/other/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", name == "Reader"
	}
	body := map[string]any{"properties": map[string]any{"roleDefinitionId": "Reader"}}
	if err := m.ModifyBody(tg, body, &extensions.Outcome{}); err != nil {
		t.Fatal(err)
	}
	if got := text(body); got != `{"properties":{"roleDefinitionId":"/subscriptions/sub1/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}` {
		t.Errorf("resolved in the assignment's subscription: %s", got)
	}
	body = map[string]any{"properties": map[string]any{"roleDefinitionId": "No Such Role"}}
	_ = m.ModifyBody(tg, body, &extensions.Outcome{})
	if _, ok := body["properties"].(map[string]any)["roleDefinitionId"].(unknown); !ok {
		t.Errorf("an unresolved role stays unknown: %s", text(body))
	}
}
