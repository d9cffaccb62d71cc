package providers

import (
	"net/http"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/registry"
)

// createOnly refuses a PUT that changes a property Azure accepts only at
// creation (the registry's create-only facts of every kind of the type), as
// the provider would. Location is the core's (InvalidResourceLocation) and
// a role assignment's principal and role are roles' (which compares role
// definitions by GUID, whatever scope their ID is written at).
type createOnly struct{}

// createOnlyPaths are the create-only facts of a lower-cased ARM type, of
// every kind (api-version) mapping to it: a path the PUT's api-version does
// not have is not in its body, so never compared.
var createOnlyPaths sync.Map // lower-cased type -> []registry.CreateOnly

func createOnlyOf(typ string) []registry.CreateOnly {
	key := strings.ToLower(typ)
	if v, ok := createOnlyPaths.Load(key); ok {
		return v.([]registry.CreateOnly)
	}
	reg := registry.Default()
	kinds := reg.KindsOfARMType(typ)
	if len(kinds) == 0 {
		return nil // not cached: the cache stays as small as the registry whatever types clients send
	}
	var facts []registry.CreateOnly
	seen := map[string]bool{}
	for _, gvk := range kinds {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok {
			continue
		}
		for _, c := range k.CreateOnly {
			if seen[c.Path] || c.Path == "location" || hasSource(c, registry.CreateOnlyFromIdentity) {
				continue
			}
			seen[c.Path] = true
			facts = append(facts, c)
		}
	}
	v, _ := createOnlyPaths.LoadOrStore(key, facts)
	return v.([]registry.CreateOnly)
}

func hasSource(c registry.CreateOnly, source string) bool {
	for _, s := range c.Sources {
		if s == source {
			return true
		}
	}
	return false
}

// PreparePut refuses an update whose body sets a create-only property to
// another value than the resource has. A property the body leaves out is
// kept by the provider, so not refused.
func (createOnly) PreparePut(_ armcore.Tx, t armpath.Target, req, prev map[string]any) (map[string]any, error) {
	if prev == nil {
		return prev, nil
	}
	for _, c := range createOnlyOf(t.Type) {
		if path, changed := changedAt(armjson.SchemaSteps(c.Path), "", req, prev); changed {
			return nil, createOnlyRefusal(c, path)
		}
	}
	return prev, nil
}

// createOnlyRefusal is the provider's answer to changing c (at the body
// path path): its own code when known, else ARM's generic one.
func createOnlyRefusal(c registry.CreateOnly, path string) error {
	switch c.Code {
	case "":
		return armcore.Errorf(http.StatusConflict, "PropertyChangeNotAllowed", "Changing property '%s' is not allowed.", path)
	case "BadRequest":
		return armcore.Errorf(http.StatusBadRequest, c.Code, "The property '%s' cannot be changed once the resource is created.", path)
	}
	return armcore.Errorf(http.StatusBadRequest, c.Code, "Changing property '%s' is not allowed.", path)
}

// changedAt reports whether want sets a value at the schema steps that
// differs from have's, and at which body path (at is where want and have
// stand). List items pair by name, map values by key.
func changedAt(steps []string, at string, want, have any) (string, bool) {
	if len(steps) == 0 {
		return at, !covered(want, have)
	}
	switch steps[0] {
	case "[]":
		wl, _ := want.([]any)
		hl, _ := have.([]any)
		for _, w := range wl {
			item, _ := w.(map[string]any)
			name, _ := item["name"].(string)
			if i := armjson.IndexByName(hl, name); name != "" && i >= 0 {
				if p, ok := changedAt(steps[1:], at+"[name="+name+"]", w, hl[i]); ok {
					return p, true
				}
			}
		}
	case "{}":
		wm, _ := want.(map[string]any)
		hm, _ := have.(map[string]any)
		for k, w := range wm {
			if h, ok := armjson.LookupFold(hm, k); ok {
				if p, ok := changedAt(steps[1:], armjson.JoinKey(at, k), w, h); ok {
					return p, true
				}
			}
		}
	default:
		wm, _ := want.(map[string]any)
		hm, _ := have.(map[string]any)
		w, wok := armjson.LookupFold(wm, steps[0])
		h, hok := armjson.LookupFold(hm, steps[0])
		if wok && hok && w != nil {
			return changedAt(steps[1:], armjson.JoinKey(at, steps[0]), w, h)
		}
	}
	return "", false
}

// covered reports whether every value want sets is have's: strings in any
// case (IDs, enums), lists item by item; what the provider filled in
// beyond want (a partition key's version) is no change.
func covered(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, _ := armjson.LookupFold(h, k)
			if wv != nil && !covered(wv, hv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !covered(w[i], h[i]) {
				return false
			}
		}
		return true
	case string:
		h, ok := have.(string)
		return ok && strings.EqualFold(w, h)
	}
	return want == have
}
