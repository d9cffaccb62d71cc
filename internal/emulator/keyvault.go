package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
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

func isVault(typ string) bool { return strings.EqualFold(typ, typeVault) }

func deletedVaultID(sub, location, name string) string {
	return "/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/" + strings.ToLower(strings.ReplaceAll(location, " ", "")) + "/deletedVaults/" + name
}

// findDeletedVault looks a soft-deleted vault up by subscription and name (vault names are global).
func (s *Server) findDeletedVault(sub, name string) (string, *record) {
	prefix := key("/subscriptions/" + sub + "/providers/Microsoft.KeyVault/locations/")
	suffix := key("/deletedVaults/" + name)
	for k, rec := range s.st.vaults {
		if strings.HasPrefix(k, prefix) && strings.HasSuffix(k, suffix) {
			return k, rec
		}
	}
	return "", nil
}

// vaultCreateMode handles createMode on a vault PUT: "recover" restores a
// soft-deleted vault (its read-only properties come back); otherwise a
// soft-deleted vault of the same name is a conflict. It returns the previous
// body to build on.
func (s *Server) vaultCreateMode(t target, req, prev map[string]any) (map[string]any, error) {
	props, _ := req["properties"].(map[string]any)
	mode, _ := props["createMode"].(string)
	delete(props, "createMode")
	k, deleted := s.findDeletedVault(t.sub, t.name)
	if !strings.EqualFold(mode, "recover") {
		if deleted != nil && prev == nil {
			return nil, errorf(http.StatusConflict, "ConflictError",
				"A vault with the same name already exists in deleted state. You need to either recover or purge existing key vault.")
		}
		return prev, nil
	}
	if deleted == nil {
		if prev != nil {
			return prev, nil
		}
		return nil, errorf(http.StatusNotFound, "DeletedVaultNotFound", "The specified deleted vault '%s' does not exist.", t.name)
	}
	var restored map[string]any
	if err := json.Unmarshal(deleted.Vault, &restored); err != nil {
		return nil, err
	}
	return restored, s.st.deleteVault(k)
}

func (s *Server) softDeleteVaultLocked(rec *record, now time.Time) error {
	t, _ := parseTarget(rec.ID)
	var body struct {
		Location string         `json:"location"`
		Tags     map[string]any `json:"tags"`
	}
	_ = json.Unmarshal(rec.Body, &body)
	id := deletedVaultID(t.sub, body.Location, t.name)
	out, err := json.Marshal(map[string]any{
		"id":   id,
		"name": t.name,
		"type": typeDeletedVault,
		"properties": map[string]any{
			"vaultId":            rec.ID,
			"location":           body.Location,
			"tags":               body.Tags,
			"deletionDate":       now.UTC().Format(time.RFC3339),
			"scheduledPurgeDate": now.Add(vaultRetention).UTC().Format(time.RFC3339),
		},
	})
	if err != nil {
		return err
	}
	return s.st.putVault(key(id), &record{ID: id, Type: typeDeletedVault, Body: out, Created: now, Vault: rec.Body})
}

// deletedVaults serves GET of one deleted vault or the subscription's list,
// and purge by POST .../purge or DELETE.
func (s *Server) deletedVaults(w http.ResponseWriter, r *http.Request, t target) error {
	lt := strings.ToLower(t.typ)
	switch {
	case lt == "microsoft.keyvault/deletedvaults" && t.kind == targetCollection && r.Method == http.MethodGet:
		s.mu.RLock()
		defer s.mu.RUnlock()
		prefix := key("/subscriptions/" + t.sub + "/")
		items := []json.RawMessage{} // ARM sends an empty list, never null
		for k, rec := range s.st.vaults {
			if strings.HasPrefix(k, prefix) {
				items = append(items, rec.Body)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"value": items})
		return nil
	case lt == "microsoft.keyvault/locations/deletedvaults" && t.kind == targetResource && r.Method == http.MethodGet:
		s.mu.RLock()
		defer s.mu.RUnlock()
		rec := s.st.vaults[key(t.id)]
		if rec == nil {
			return deletedVaultNotFound(t.name)
		}
		writeRaw(w, http.StatusOK, rec.Body)
		return nil
	case lt == "microsoft.keyvault/locations/deletedvaults/purge" && t.kind == targetCollection && r.Method == http.MethodPost,
		lt == "microsoft.keyvault/locations/deletedvaults" && t.kind == targetResource && r.Method == http.MethodDelete:
		vaultID := t.id
		if t.kind == targetCollection {
			vaultID = t.parent
		}
		now := time.Now()
		s.mu.Lock()
		defer s.mu.Unlock()
		k := key(vaultID)
		rec := s.st.vaults[k]
		if rec == nil {
			return deletedVaultNotFound(vaultID[strings.LastIndexByte(vaultID, '/')+1:])
		}
		if err := s.st.deleteVault(k); err != nil {
			return err
		}
		op := &operation{ID: s.newUUID(), Resource: rec.ID, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now}
		if err := s.st.putOp(op); err != nil {
			return err
		}
		w.Header().Set("Location", operationURL(r, &record{ID: vaultID, Type: typeDeletedVault}, op, true))
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, r.URL.Path)
}

func deletedVaultNotFound(name string) error {
	return errorf(http.StatusNotFound, "DeletedVaultNotFound",
		"The specified deleted vault '%s' does not exist. Ensure that the vault was indeed deleted and that it is in recoverable state.", name)
}
