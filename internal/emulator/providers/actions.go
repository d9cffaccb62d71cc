package providers

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/registry"
)

// POST actions: {resource ID}/{action} answers with the shape the REST specs
// define for that action on the resource's type (registry.ARMType.Actions),
// filled with the resource's keys; actions named regenerate* give the
// resource new keys first. checkNameAvailability, on any provider at
// subscription or location scope, looks the name up among stored resources.
//
// The keys are derived from the resource's ID, creation time and key
// generation: they are stable across reads and restarts, change on
// regeneration, and are fake, so nothing secret is stored to serve them.

// actions serves POST on a collection path: the resource actions the REST
// specs define, and checkNameAvailability.
type actions struct{ c *armcore.Core }

// Route answers every POST on a collection path.
func (a actions) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if r.Method != http.MethodPost || t.Kind != armpath.Collection {
		return false, nil
	}
	return true, a.post(w, r, t, body)
}

func (a actions) post(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	action := t.Type[strings.LastIndexByte(t.Type, '/')+1:]
	if strings.EqualFold(action, "checkNameAvailability") {
		return a.checkNameAvailability(w, t, body)
	}
	if !t.ParentIsResource {
		return armcore.Errorf(http.StatusNotFound, "InvalidResourceType", "The resource type '%s' could not be found.", t.Type)
	}
	return a.c.Write(func(tx armcore.Tx) error { return act(tx, w, t, action) })
}

// act runs a resource action on the resource t's path is under.
func act(tx armcore.Tx, w http.ResponseWriter, t armpath.Target, action string) error {
	pt, _ := armpath.Parse(t.Parent)
	if err := tx.Ancestors(pt, false); err != nil {
		return err
	}
	k := armpath.Key(t.Parent)
	rec := tx.Live(k)
	if rec == nil {
		return armcore.NotFound(pt, pt.RG)
	}
	var shape *registry.Shape
	found := false
	if arm := armcore.ARMType(rec.Type); arm != nil {
		for _, a := range arm.Actions {
			if strings.EqualFold(a.Name, action) {
				shape, found = a.Output, true
			}
		}
	}
	if !found {
		return armcore.Errorf(http.StatusNotFound, "InvalidResourceType",
			"The resource type '%s/%s' could not be found: the REST specs define no action '%s' on '%s'.", rec.Type, action, action, rec.Type)
	}
	if strings.HasPrefix(strings.ToLower(action), "regenerate") {
		next := *rec
		next.KeyGeneration++
		if err := tx.Store().PutResource(k, &next); err != nil {
			return err
		}
		rec = &next
	}
	if shape == nil {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	armcore.WriteJSON(w, http.StatusOK, instantiate(shape, keySeed(rec), rec.Created.UTC().Format(time.RFC3339), "", 0))
	return nil
}

func keySeed(rec *store.Record) string {
	return rec.ID + "\x00" + rec.Created.UTC().Format(time.RFC3339Nano) + "\x00" + strconv.Itoa(rec.KeyGeneration)
}

// instantiate builds a value of shape: strings are key material derived
// from seed and their place, except enums (their first value), times
// (created) and names of
// list items (key1, key2, as ARM names its keys); lists have two items, a
// primary and a secondary, as ARM's key lists do.
func instantiate(shape *registry.Shape, seed, created, path string, item int) any {
	switch shape.Type {
	case registry.TypeObject:
		out := map[string]any{}
		for name, f := range shape.Fields {
			if f.Type == registry.TypeString && len(f.Enum) == 0 && item > 0 && strings.HasSuffix(name, "Name") {
				out[name] = strings.TrimSuffix(name, "Name") + strconv.Itoa(item)
				continue
			}
			out[name] = instantiate(f, seed, created, path+"."+name, item)
		}
		return out
	case registry.TypeArray:
		if shape.Items == nil {
			return []any{}
		}
		return []any{instantiate(shape.Items, seed, created, path+"[1]", 1), instantiate(shape.Items, seed, created, path+"[2]", 2)}
	case registry.TypeString:
		if len(shape.Enum) > 0 {
			return shape.Enum[0]
		}
		if shape.Format == "date-time" {
			return created // the times in key lists are when the keys were made
		}
		sum := sha256.Sum256([]byte(seed + "\x00" + path))
		return base64.StdEncoding.EncodeToString(sum[:])
	case registry.TypeInteger:
		return 0
	case registry.TypeBoolean:
		return false
	}
	return nil
}

// checkNameAvailability answers whether a name is taken by a stored (or
// soft-deleted) resource of the type the request names.
func (a actions) checkNameAvailability(w http.ResponseWriter, t armpath.Target, body []byte) error {
	req, err := armcore.DecodeObject(body)
	if err != nil {
		return err
	}
	name, _ := req["name"].(string)
	typ, _ := req["type"].(string)
	if name == "" {
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "checkNameAvailability needs a 'name'.")
	}
	if typ == "" {
		typ = armpath.NamespaceOf(t.Type)
	}
	taken := false
	_ = a.c.Read(func(tx armcore.Tx) error {
		for _, rec := range tx.Store().Resources() {
			if tx.Live(armpath.Key(rec.ID)) != nil && nameAndTypeMatch(rec, name, typ) {
				taken = true
				break
			}
		}
		if !taken && isVault(typ) {
			for _, rec := range tx.Store().DeletedRecords() {
				if strings.EqualFold(rec.ID[strings.LastIndexByte(rec.ID, '/')+1:], name) {
					taken = true
				}
			}
		}
		return nil
	})
	if !taken {
		armcore.WriteJSON(w, http.StatusOK, map[string]any{"nameAvailable": true})
		return nil
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{
		"nameAvailable": false, "reason": "AlreadyExists",
		"message": fmt.Sprintf("The name '%s' is already in use.", name),
	})
	return nil
}

// nameAndTypeMatch: the record is named name and is of type typ (or, when
// typ is only a namespace, of any type in it).
func nameAndTypeMatch(rec *store.Record, name, typ string) bool {
	if !strings.EqualFold(rec.ID[strings.LastIndexByte(rec.ID, '/')+1:], name) {
		return false
	}
	if strings.Contains(typ, "/") {
		return strings.EqualFold(rec.Type, typ)
	}
	return strings.EqualFold(armpath.NamespaceOf(rec.Type), typ)
}
