package convert

import (
	"fmt"
	"strings"
)

// These are the changes the operator makes to a body just before it PUTs,
// facts taken from its source and confirmed by the corpus recordings.

// preservedCollections are child collections that ARM replaces on a parent's
// PUT but that users manage as separate resources: the operator carries the
// ones that exist in Azure into the parent's body so they are not wiped.
var preservedCollections = map[string][]string{
	"microsoft.network/virtualnetworks":         {"properties", "subnets"},
	"microsoft.network/networksecuritygroups":   {"properties", "securityRules"},
	"microsoft.network/routetables":             {"properties", "routes"},
	"microsoft.network/loadbalancers":           {"properties", "inboundNatRules"},
	"microsoft.compute/virtualmachinescalesets": {"properties", "virtualMachineProfile", "extensionProfile", "extensions"},
}

// deletedVaultsAPIVersion is the api-version the operator reads soft-deleted
// key vaults with (as recorded).
const deletedVaultsAPIVersion = "2024-11-01"

// adjust applies the operator's pre-PUT changes to body. It needs Azure's
// current state; without a Get source it leaves what it cannot know unknown.
func (c *converter) adjust(body map[string]any, r *Request) {
	armType := strings.ToLower(c.n.Kind.ARMType)
	if path, ok := preservedCollections[armType]; ok {
		c.preserveChildren(body, path)
	}
	if armType == "microsoft.keyvault/vaults" {
		c.vaultCreateMode(body, r)
	}
}

// preserveChildren merges the collection at path from the resource's current
// state into body: items the spec names win, items only Azure has are kept.
func (c *converter) preserveChildren(body map[string]any, path []string) {
	if c.src.Get == nil {
		return // offline: rendered as a create, which has no children yet
	}
	current, err := c.src.Get(c.n.ID, c.n.Kind.APIVersion)
	if err != nil {
		c.errorf(0, "", "reading the current %s to keep its %s: %v", c.n.Kind.ARMType, path[len(path)-1], err)
		return
	}
	existing, _ := lookupPath(current, path).([]any)
	if len(existing) == 0 {
		return
	}
	desired, _ := lookupPath(body, path).([]any)
	named := map[string]bool{}
	for _, item := range desired {
		if m, ok := item.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				named[strings.ToLower(name)] = true
			}
		}
	}
	merged := append([]any(nil), desired...)
	for _, item := range existing {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		if name, _ := m["name"].(string); !named[strings.ToLower(name)] {
			merged = append(merged, childBody(m))
		}
	}
	put(body, path, merged)
}

// childBody keeps what a PUT may carry of a child read from Azure: its name,
// id and properties, without read-only envelope fields.
func childBody(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"name", "id", "properties"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// vaultCreateMode resolves createOrRecover and purgeThenCreate, which ARM does
// not know, to what the operator sends: recover when a soft-deleted vault of
// that name exists for the subscription and location, else default; for
// purgeThenCreate the deleted vault is purged first.
func (c *converter) vaultCreateMode(body map[string]any, r *Request) {
	props, _ := body["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	if mode != "createOrRecover" && mode != "purgeThenCreate" {
		return
	}
	location, _ := body["location"].(string)
	deletedID := fmt.Sprintf("/subscriptions/%s/providers/Microsoft.KeyVault/locations/%s/deletedVaults/%s",
		subscriptionOf(c.n.ID), strings.ToLower(strings.ReplaceAll(location, " ", "")), c.n.AzureName)
	if c.src.Get == nil {
		props["createMode"] = Unknown{Reason: "default, or recover when a soft-deleted vault " + c.n.AzureName + " exists"}
		return
	}
	deleted, err := c.src.Get(deletedID, deletedVaultsAPIVersion)
	if err != nil {
		c.errorf(0, "spec.properties.createMode", "checking for a soft-deleted vault %s: %v", c.n.AzureName, err)
		return
	}
	switch {
	case deleted == nil:
		props["createMode"] = "default"
	case mode == "createOrRecover":
		props["createMode"] = "recover"
		r.Notes = append(r.Notes, "will recover a soft-deleted vault")
	default:
		props["createMode"] = "default"
		r.PurgeFirst = deletedID
		r.Notes = append(r.Notes, "will purge the soft-deleted vault first")
	}
}

func lookupPath(m map[string]any, path []string) any {
	v, _ := lookup(m, path)
	return v
}

func subscriptionOf(id string) string {
	parts := strings.Split(strings.TrimPrefix(id, "/"), "/")
	if len(parts) >= 2 && strings.EqualFold(parts[0], "subscriptions") {
		return parts[1]
	}
	return ""
}
