package applier_test

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

func vaultManifest(createMode string) string {
	return `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: kv-rg
spec:
  location: westus2
---
apiVersion: keyvault.azure.com/v1api20230701
kind: Vault
metadata:
  name: azk-kv
spec:
  location: westus2
  owner:
    name: kv-rg
  properties:
    createMode: ` + createMode + `
    tenantId: 00000000-0000-0000-0000-000000000000
    sku:
      family: A
      name: standard
`
}

// TestVaultCreateModes deletes a vault (Azure keeps it soft-deleted) and
// applies it again: createOrRecover recovers it, purgeThenCreate purges it
// (POST .../purge) and creates a new one, as the operator does.
func TestVaultCreateModes(t *testing.T) {
	for _, tc := range []struct{ mode, note string }{
		{"createOrRecover", "will recover a soft-deleted vault"},
		{"purgeThenCreate", "will purge the soft-deleted vault first"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			e := start(t, emulator.Options{}, 4)
			g := load(t, writeManifests(t, vaultManifest(tc.mode)))
			ctx := testkit.Context(t)
			if rep := e.apply(t, ctx, e.decide(t, g), e.options(g, &recorder{})); rep.Failed() {
				t.Fatalf("first apply: %v", outcomes(rep))
			}
			vault := g.Nodes[1]
			first := e.get(t, vault.ID, vault.Kind.APIVersion)
			op, err := e.client.Delete(ctx, vault.ID, vault.Kind.APIVersion)
			if err == nil {
				_, err = op.Wait(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			resources := e.decide(t, g)
			if notes := strings.Join(resources[1].Request.Notes, "; "); notes != tc.note {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
			if rep := e.apply(t, ctx, resources, e.options(g, &recorder{})); rep.Failed() {
				t.Fatalf("apply over the deleted vault: %v", outcomes(rep))
			}
			// A PUT with createMode default over a soft-deleted vault is refused
			// (409), so success means recover was sent, or the purge came first.
			again := e.get(t, vault.ID, vault.Kind.APIVersion)
			deleted := "/subscriptions/" + subscription + "/providers/Microsoft.KeyVault/locations/westus2/deletedVaults/azk-kv"
			if e.get(t, deleted, "2024-11-01") != nil {
				t.Error("a soft-deleted vault is left behind")
			}
			sameVault := testkit.At[string](t, again, "properties", "resourceGuid") == testkit.At[string](t, first, "properties", "resourceGuid")
			if sameVault != (tc.mode == "createOrRecover") {
				t.Errorf("recovered the old vault: %v, want %v", sameVault, tc.mode == "createOrRecover")
			}
		})
	}
}
