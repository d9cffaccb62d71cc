package providers

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
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
// resource a new key first: the one the request names (keyName "key1",
// keyKind "primary", keyType "SecondaryKey", name "password2"), as ARM
// regenerates that key alone, or every key when the request names none.
//
// The keys are derived from the resource's ID, creation time and the
// generations of the key: they are stable across reads and restarts,
// change on regeneration, and are fake, so nothing secret is stored to
// serve them.

// actions serves POST on a collection path: the resource actions the REST
// specs define (name checks are names.go's).
type actions struct{ c *armcore.Core }

// Route answers every POST on a collection path.
func (a actions) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if r.Method != http.MethodPost || t.Kind != armpath.Collection {
		return false, nil
	}
	return true, a.post(w, t, body)
}

func (a actions) post(w http.ResponseWriter, t armpath.Target, body []byte) error {
	action := t.Type[strings.LastIndexByte(t.Type, '/')+1:]
	if !t.ParentIsResource {
		return armcore.Errorf(http.StatusNotFound, "InvalidResourceType", "The resource type '%s' could not be found.", t.Type)
	}
	return a.c.Write(func(tx armcore.Tx) error { return act(tx, w, t, action, body) })
}

// act runs a resource action on the resource t's path is under.
func act(tx armcore.Tx, w http.ResponseWriter, t armpath.Target, action string, body []byte) error {
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
		slot, err := requestedKey(body)
		if err != nil {
			return err
		}
		next := *rec
		if slot == "" {
			next.KeyGeneration++
		} else {
			next.KeyGenerations = maps.Clone(rec.KeyGenerations)
			if next.KeyGenerations == nil {
				next.KeyGenerations = map[string]int{}
			}
			next.KeyGenerations[slot]++
		}
		if err := tx.Store().PutResource(k, &next); err != nil {
			return err
		}
		rec = &next
	}
	if shape == nil {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	armcore.WriteJSON(w, http.StatusOK, instantiate(shape, rec, rec.Created.UTC().Format(time.RFC3339), "", 0))
	return nil
}

// requestedKey is the slot of the key a regenerate request names, "" when
// it names none; a name no key answers to is refused.
func requestedKey(body []byte) (string, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", nil
	}
	req, err := armcore.DecodeObject(body)
	if err != nil {
		return "", err
	}
	for field, v := range req {
		name, ok := v.(string)
		if !ok || !slices.Contains([]string{"keyname", "keykind", "keytype", "name"}, strings.ToLower(field)) {
			continue
		}
		if slot := keySlot(name); slot != "" {
			return slot, nil
		}
		return "", armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The %s '%s' names no key of the resource.", field, name)
	}
	return "", nil
}

// keySlot is which key a name stands for, as the key lists name them
// (key1, primaryKey, authKey2, primaryReadonlyMasterKey, password2) and
// regenerate requests ask for them (Primary, SecondaryKey, primaryReadonly):
// "primary", "secondary", either followed by "readonly"; "" for none.
func keySlot(name string) string {
	s := strings.ToLower(name)
	slot := ""
	switch {
	case strings.Contains(s, "secondary") || strings.HasSuffix(s, "2"):
		slot = "secondary"
	case strings.Contains(s, "primary") || strings.HasSuffix(s, "1") || s == "password":
		slot = "primary"
	default:
		return ""
	}
	if strings.Contains(s, "readonly") {
		slot += "readonly"
	}
	return slot
}

// keySeed is what the key at path of rec's answers is derived from: the
// resource, the regenerations of every key, and those of the key's own slot
// (the nearest field name or list item of path that names one; the first
// item of a key list is the primary key).
func keySeed(rec *store.Record, path string) string {
	seed := rec.ID + "\x00" + rec.Created.UTC().Format(time.RFC3339Nano) + "\x00" + strconv.Itoa(rec.KeyGeneration)
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' })
	for i := len(parts) - 1; i >= 0; i-- {
		// A list item's index ("1]") names its slot as key1 and key2 do.
		if slot := keySlot(strings.TrimSuffix(parts[i], "]")); slot != "" {
			return seed + "\x00" + slot + "\x00" + strconv.Itoa(rec.KeyGenerations[slot])
		}
	}
	return seed
}

// instantiate builds a value of shape: strings are key material derived
// from rec's keys (keySeed) and their place, except enums (their first value), times
// (created) and names of
// list items (key1, key2, as ARM names its keys); lists have two items, a
// primary and a secondary, as ARM's key lists do.
func instantiate(shape *registry.Shape, rec *store.Record, created, path string, item int) any {
	switch shape.Type {
	case registry.TypeObject:
		out := map[string]any{}
		for name, f := range shape.Fields {
			if f.Type == registry.TypeString && len(f.Enum) == 0 && item > 0 && strings.HasSuffix(name, "Name") {
				out[name] = strings.TrimSuffix(name, "Name") + strconv.Itoa(item)
				continue
			}
			out[name] = instantiate(f, rec, created, path+"."+name, item)
		}
		return out
	case registry.TypeArray:
		if shape.Items == nil {
			return []any{}
		}
		return []any{instantiate(shape.Items, rec, created, path+"[1]", 1), instantiate(shape.Items, rec, created, path+"[2]", 2)}
	case registry.TypeString:
		if len(shape.Enum) > 0 {
			return shape.Enum[0]
		}
		if shape.Format == "date-time" {
			return created // the times in key lists are when the keys were made
		}
		sum := sha256.Sum256([]byte(keySeed(rec, path) + "\x00" + path))
		return base64.StdEncoding.EncodeToString(sum[:])
	case registry.TypeInteger:
		return 0
	case registry.TypeBoolean:
		return false
	}
	return nil
}
