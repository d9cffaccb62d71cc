package providers

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
)

// Key vaults are soft-deleted: deleting one leaves a deletedVaults entry at
// /subscriptions/{s}/providers/Microsoft.KeyVault/locations/{loc}/deletedVaults/{name}
// until purged; a PUT with properties.createMode "recover" brings it back.

const (
	typeVault        = "Microsoft.KeyVault/vaults"
	typeDeletedVault = "Microsoft.KeyVault/deletedVaults"
	// vaultRetention is how long ARM keeps a soft-deleted vault by default.
	vaultRetention = 90 * 24 * time.Hour
)

// keyVault is the Microsoft.KeyVault behaviour: soft delete, recovery and purge.
type keyVault struct{ c *armcore.Core }

func isVault(typ string) bool { return strings.EqualFold(typ, typeVault) }

func deletedVaultID(sub, location, name string) string {
	return "/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/" + strings.ToLower(strings.ReplaceAll(location, " ", "")) + "/deletedVaults/" + name
}

// findDeletedVault looks a soft-deleted vault up by subscription and name (vault names are global).
func findDeletedVault(st *store.Store, sub, name string) (string, *store.Record) {
	prefix := armpath.Key("/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/")
	suffix := armpath.Key("/deletedVaults/" + name)
	for k, rec := range st.DeletedRecords() {
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) {
			return k, rec
		}
	}
	return "", nil
}

// PreparePut handles createMode on a vault PUT: "recover" restores a
// soft-deleted vault (its read-only properties come back); otherwise a
// soft-deleted vault of the same name is a conflict. It returns the previous
// body to build on.
func (keyVault) PreparePut(tx armcore.Tx, t armpath.Target, req, prev map[string]any) (map[string]any, error) {
	if !isVault(t.Type) {
		return prev, nil
	}
	props, _ := req["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	delete(props, "createMode")
	k, deleted := findDeletedVault(tx.Store(), t.Sub, t.Name)
	if !strings.EqualFold(mode, "recover") {
		if deleted != nil && prev == nil {
			return nil, armcore.Errorf(http.StatusConflict, "ConflictError",
				"A vault with the same name already exists in deleted state. You need to either recover or purge existing key vault.")
		}
		return prev, nil
	}
	if deleted == nil {
		if prev != nil {
			return prev, nil
		}
		return nil, armcore.Errorf(http.StatusNotFound, "DeletedVaultNotFound", "The specified deleted vault '%s' does not exist.", t.Name)
	}
	var restored map[string]any
	if err := json.Unmarshal(deleted.Vault, &restored); err != nil {
		return nil, err
	}
	return restored, tx.Store().Purge(k)
}

// Removing keeps a deleted vault as a deletedVaults entry.
func (keyVault) Removing(tx armcore.Tx, rec *store.Record, now time.Time) error {
	if !isVault(rec.Type) {
		return nil
	}
	t, _ := armpath.Parse(rec.ID)
	var body struct {
		Location   string         `json:"location"`
		Tags       map[string]any `json:"tags"`
		Properties struct {
			EnablePurgeProtection bool `json:"enablePurgeProtection"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(rec.Body, &body)
	id := deletedVaultID(t.Sub, body.Location, t.Name)
	out, err := json.Marshal(map[string]any{
		"id":   id,
		"name": t.Name,
		"type": typeDeletedVault,
		"properties": map[string]any{
			"vaultId":            rec.ID,
			"location":           body.Location,
			"tags":               body.Tags,
			"deletionDate":       now.UTC().Format(time.RFC3339),
			"scheduledPurgeDate": now.Add(vaultRetention).UTC().Format(time.RFC3339),
			// The deleted vault tells whether it can be purged before that date.
			"purgeProtectionEnabled": body.Properties.EnablePurgeProtection,
		},
	})
	if err != nil {
		return err
	}
	return tx.Store().PutDeleted(armpath.Key(id), &store.Record{ID: id, Type: typeDeletedVault, Body: out, Created: now, Vault: rec.Body})
}

// Route serves GET of one deleted vault or the subscription's list, and
// purge by POST .../purge or DELETE.
func (kv keyVault) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	lt := strings.ToLower(t.Type)
	if !strings.HasPrefix(lt, "microsoft.keyvault/locations/deletedvaults") && lt != "microsoft.keyvault/deletedvaults" {
		return false, nil
	}
	return true, kv.deletedVaults(w, r, t, lt)
}

func (kv keyVault) deletedVaults(w http.ResponseWriter, r *http.Request, t armpath.Target, lt string) error {
	switch {
	case lt == "microsoft.keyvault/deletedvaults" && t.Kind == armpath.Collection && r.Method == http.MethodGet:
		prefix := armpath.Key("/subscriptions/" + t.Sub + "/")
		items := []json.RawMessage{} // ARM sends an empty list, never null
		_ = kv.c.Read(func(tx armcore.Tx) error {
			for k, rec := range tx.Store().DeletedRecords() {
				if strings.HasPrefix(k, prefix) {
					items = append(items, rec.Body)
				}
			}
			return nil
		})
		armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
		return nil
	case lt == "microsoft.keyvault/locations/deletedvaults" && t.Kind == armpath.Resource && r.Method == http.MethodGet:
		return kv.c.Read(func(tx armcore.Tx) error {
			rec := tx.Store().Deleted(armpath.Key(t.ID))
			if rec == nil {
				return deletedVaultNotFound(t.Name)
			}
			armcore.WriteRaw(w, http.StatusOK, rec.Body)
			return nil
		})
	case lt == "microsoft.keyvault/locations/deletedvaults/purge" && t.Kind == armpath.Collection && r.Method == http.MethodPost,
		lt == "microsoft.keyvault/locations/deletedvaults" && t.Kind == armpath.Resource && r.Method == http.MethodDelete:
		vaultID := t.ID
		if t.Kind == armpath.Collection {
			vaultID = t.Parent
		}
		now := time.Now()
		return kv.c.Write(func(tx armcore.Tx) error {
			k := armpath.Key(vaultID)
			rec := tx.Store().Deleted(k)
			if rec == nil {
				return deletedVaultNotFound(vaultID[strings.LastIndexByte(vaultID, '/')+1:])
			}
			if err := tx.Store().Purge(k); err != nil {
				return err
			}
			op := &store.Operation{ID: tx.NewUUID(), Resource: rec.ID, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now}
			if err := tx.Store().PutOp(op); err != nil {
				return err
			}
			w.Header().Set("Location", armcore.OperationURL(r, &store.Record{ID: vaultID, Type: typeDeletedVault}, op, true))
			w.WriteHeader(http.StatusAccepted)
			return nil
		})
	}
	return armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
}

func deletedVaultNotFound(name string) error {
	return armcore.Errorf(http.StatusNotFound, "DeletedVaultNotFound",
		"The specified deleted vault '%s' does not exist. Ensure that the vault was indeed deleted and that it is in recoverable state.", name)
}
