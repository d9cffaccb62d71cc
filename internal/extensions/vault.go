package extensions

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armid"
)

// Microsoft.KeyVault/vaults: the operator's keyvault/vault_extensions.go
// (ARMResourceModifier). createMode createOrRecover and purgeThenCreate are
// the operator's own, ARM does not know them: it sends recover when a
// soft-deleted vault of that name exists for the subscription and location,
// else default; for purgeThenCreate it purges the deleted vault first (a
// PreWrite, which apply sends and waits for before the PUT).
func init() { register("Microsoft.KeyVault/vaults", vault{}) }

// deletedVaultsAPIVersion is the api-version the operator reads soft-deleted
// key vaults with (as recorded).
const deletedVaultsAPIVersion = "2024-11-01"

type vault struct{}

func (vault) ModifyBody(t Target, body map[string]any, out *Outcome) error {
	props, _ := body["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	if mode != "createOrRecover" && mode != "purgeThenCreate" {
		return nil
	}
	location, _ := body["location"].(string)
	deletedID := fmt.Sprintf("/subscriptions/%s/providers/Microsoft.KeyVault/locations/%s/deletedVaults/%s",
		armid.SubscriptionOf(t.ID), strings.ToLower(strings.ReplaceAll(location, " ", "")), t.AzureName)
	if t.Get == nil {
		props["createMode"] = t.Unknown("default, or recover when a soft-deleted vault " + t.AzureName + " exists")
		return nil
	}
	deleted, err := t.Get(deletedID, deletedVaultsAPIVersion)
	if err != nil {
		return fmt.Errorf("checking for a soft-deleted vault %s: %v", t.AzureName, err)
	}
	switch {
	case deleted == nil:
		props["createMode"] = "default"
	case mode == "createOrRecover":
		props["createMode"] = "recover"
		out.Notes = append(out.Notes, "will recover a soft-deleted vault")
	default:
		props["createMode"] = "default"
		out.Before = append(out.Before, PreWrite{Method: "POST", Path: deletedID + "/purge", APIVersion: deletedVaultsAPIVersion})
		out.Notes = append(out.Notes, "will purge the soft-deleted vault first")
	}
	return nil
}
