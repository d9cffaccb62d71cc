package providers

import (
	"crypto/sha256"
	"encoding/base64"
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
// resource new keys first.
//
// The keys are derived from the resource's ID, creation time and key
// generation: they are stable across reads and restarts, change on
// regeneration, and are fake, so nothing secret is stored to serve them.

// actions serves POST on a collection path: the resource actions the REST
// specs define (name checks are names.go's).
type actions struct{ c *armcore.Core }

// Route answers every POST on a collection path.
func (a actions) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	if r.Method != http.MethodPost || t.Kind != armpath.Collection {
		return false, nil
	}
	return true, a.post(w, t)
}

func (a actions) post(w http.ResponseWriter, t armpath.Target) error {
	action := t.Type[strings.LastIndexByte(t.Type, '/')+1:]
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
