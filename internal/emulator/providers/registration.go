package providers

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// Resource provider registration: GET /subscriptions/{s}/providers[/{ns}]
// (and /providers[/{ns}] at the tenant), POST .../providers/{ns}/register and
// unregister. Every provider starts registered; one unregistered refuses
// writes of its types (409 MissingSubscriptionRegistration), as ARM does,
// until registered again. A provider's resource types list the
// api-versions the registry knows and the locations they are offered in:
// every location unless an offering (admin /_emulator/offerings) restricts
// the type, and a write elsewhere is refused (400
// LocationNotAvailableForResourceType). A registration state other than
// Registered is stored as a record at the provider's own ID
// (/subscriptions/{s}/providers/{ns}), so it survives restarts.

const typeProviderRegistration = "Microsoft.Resources/providers"

// alwaysRegistered are ARM's own namespaces, which cannot be unregistered.
var alwaysRegistered = []string{"microsoft.resources", "microsoft.authorization", "microsoft.features", "microsoft.policyinsights"}

// Locations are the Azure public regions the emulator lists, by display name.
var Locations = []string{
	"East US", "East US 2", "South Central US", "West US 2", "West US 3", "Australia East", "Southeast Asia",
	"North Europe", "Sweden Central", "UK South", "West Europe", "Central US", "South Africa North",
	"Central India", "East Asia", "Japan East", "Korea Central", "Canada Central", "France Central",
	"Germany West Central", "Italy North", "Norway East", "Poland Central", "Spain Central", "Switzerland North",
	"Mexico Central", "UAE North", "Brazil South", "Israel Central", "Qatar Central", "North Central US",
	"West US", "West Central US", "Japan West", "Korea South", "Australia Southeast", "Australia Central",
	"Canada East", "UK West", "South India", "West India", "France South", "Germany North", "Norway West",
	"Switzerland West", "South Africa West", "UAE Central", "Brazil Southeast", "New Zealand North", "Indonesia Central", "Malaysia West",
}

// providerTypes are the resource types of each namespace (lower-cased) the
// registry knows, with their api-versions, built once.
var providerTypes = sync.OnceValue(func() map[string]map[string][]string {
	reg := registry.Default()
	out := map[string]map[string][]string{}
	add := func(typ string) {
		ns, rest, ok := strings.Cut(typ, "/")
		if !ok {
			return
		}
		k := strings.ToLower(ns)
		if out[k] == nil {
			out[k] = map[string][]string{}
		}
		var versions []string
		if at, ok := reg.ARMType(typ); ok {
			versions = at.APIVersions
		}
		if _, seen := out[k][rest]; !seen || len(versions) > 0 {
			out[k][rest] = versions
		}
	}
	for _, gvk := range reg.All() {
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && k.ARMType != "" {
			add(k.ARMType)
		}
	}
	for _, c := range extensions.NameChecks() {
		add(c.Type)
	}
	return out
})

// namespaceName is ns as the registry spells it (the first type's spelling).
func namespaceName(ns string) string {
	reg := registry.Default()
	for _, gvk := range reg.All() {
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && strings.EqualFold(armpath.NamespaceOf(k.ARMType), ns) {
			return armpath.NamespaceOf(k.ARMType)
		}
	}
	return ns
}

// registration is the provider registration behaviour.
type registration struct {
	c     *armcore.Core
	seeds *Seeds
}

func registrationID(sub, ns string) string { return "/subscriptions/" + sub + "/providers/" + ns }

// state is ns's registration state in sub.
func (g registration) state(tx armcore.Tx, sub, ns string) string {
	if slices.Contains(alwaysRegistered, strings.ToLower(ns)) {
		return "Registered"
	}
	if rec := tx.Live(armpath.Key(registrationID(sub, ns))); rec != nil {
		var b struct {
			RegistrationState string `json:"registrationState"`
		}
		if json.Unmarshal(rec.Body, &b) == nil && b.RegistrationState != "" {
			return b.RegistrationState
		}
	}
	return "Registered"
}

// Route answers the provider paths and register/unregister.
func (g registration) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, _ []byte) (bool, error) {
	switch t.Kind {
	case armpath.Providers, armpath.Provider:
		if r.Method != http.MethodGet {
			return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "Resource providers only answer GET; register with POST .../providers/{namespace}/register.")
		}
		return true, g.get(w, t)
	case armpath.Collection:
		action := strings.ToLower(t.Type[strings.IndexByte(t.Type, '/')+1:])
		if r.Method != http.MethodPost || t.ParentIsResource || t.RG != "" || t.Sub == "" || strings.Count(t.Type, "/") != 1 || (action != "register" && action != "unregister") {
			return false, nil
		}
		return true, g.register(w, t, armpath.NamespaceOf(t.Type), action == "register")
	}
	return false, nil
}

func (g registration) get(w http.ResponseWriter, t armpath.Target) error {
	types := providerTypes()
	if t.Kind == armpath.Provider {
		if types[strings.ToLower(t.Name)] == nil && !slices.Contains(alwaysRegistered, strings.ToLower(t.Name)) {
			return armcore.Errorf(http.StatusNotFound, "InvalidResourceNamespace", "The resource namespace '%s' is invalid.", t.Name)
		}
		var body map[string]any
		_ = g.c.Read(func(tx armcore.Tx) error { body = g.provider(tx, t.Sub, namespaceName(t.Name)); return nil })
		armcore.WriteJSON(w, http.StatusOK, body)
		return nil
	}
	var names []string
	for ns := range types {
		names = append(names, ns)
	}
	sort.Strings(names)
	items := []map[string]any{}
	_ = g.c.Read(func(tx armcore.Tx) error {
		for _, ns := range names {
			items = append(items, g.provider(tx, t.Sub, namespaceName(ns)))
		}
		return nil
	})
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
	return nil
}

// provider is a provider's body as ARM answers it; without a subscription
// (the tenant's view) it has no registration state.
func (g registration) provider(tx armcore.Tx, sub, ns string) map[string]any {
	types := providerTypes()[strings.ToLower(ns)]
	var names []string
	for rt := range types {
		names = append(names, rt)
	}
	sort.Strings(names)
	rts := []map[string]any{}
	for _, rt := range names {
		versions := slices.Clone(types[rt])
		slices.Reverse(versions) // ARM lists the newest first
		if versions == nil {
			versions = []string{}
		}
		locations := Locations
		if only, ok := g.seeds.offeredIn(ns + "/" + rt); ok {
			locations = only
		}
		rts = append(rts, map[string]any{"resourceType": rt, "locations": locations, "apiVersions": versions, "capabilities": "None"})
	}
	body := map[string]any{"namespace": ns, "resourceTypes": rts}
	if sub != "" {
		body["id"] = registrationID(sub, ns)
		body["registrationState"] = g.state(tx, sub, ns)
		body["registrationPolicy"] = "RegistrationRequired"
	} else {
		body["id"] = "/providers/" + ns
	}
	return body
}

func (g registration) register(w http.ResponseWriter, t armpath.Target, ns string, register bool) error {
	if providerTypes()[strings.ToLower(ns)] == nil {
		return armcore.Errorf(http.StatusNotFound, "InvalidResourceNamespace", "The resource namespace '%s' is invalid.", ns)
	}
	ns = namespaceName(ns)
	var body map[string]any
	err := g.c.Write(func(tx armcore.Tx) error {
		k := armpath.Key(registrationID(t.Sub, ns))
		if register {
			if tx.Store().Resource(k) != nil {
				if err := tx.Store().DeleteResource(k); err != nil {
					return err
				}
			}
		} else if !slices.Contains(alwaysRegistered, strings.ToLower(ns)) {
			b, _ := json.Marshal(map[string]any{"registrationState": "Unregistered"})
			rec := &store.Record{ID: registrationID(t.Sub, ns), Type: typeProviderRegistration, Parent: armpath.Key("/subscriptions/" + t.Sub), Body: b}
			if err := tx.Store().PutResource(k, rec); err != nil {
				return err
			}
		}
		body = g.provider(tx, t.Sub, ns)
		return nil
	})
	if err != nil {
		return err
	}
	armcore.WriteJSON(w, http.StatusOK, body)
	return nil
}

// ValidateWrite refuses a write of a type whose provider is not registered
// in the subscription, or to a location its type is not offered in.
func (g registration) ValidateWrite(tx armcore.Tx, _ *http.Request, t armpath.Target, body map[string]any, _ bool) error {
	if t.Sub == "" || strings.EqualFold(t.Type, typeProviderRegistration) {
		return nil
	}
	ns := armpath.NamespaceOf(t.Type)
	if st := g.state(tx, t.Sub, ns); st != "Registered" {
		return armcore.Errorf(http.StatusConflict, "MissingSubscriptionRegistration",
			"The subscription is not registered to use namespace '%s'. See https://aka.ms/rps-not-found for how to register subscriptions.", ns)
	}
	loc, _ := body["location"].(string)
	if loc == "" || strings.EqualFold(loc, "global") {
		return nil
	}
	only, restricted := g.seeds.offeredIn(t.Type)
	if !restricted || slices.ContainsFunc(only, func(l string) bool { return normLocation(l) == normLocation(loc) }) {
		return nil
	}
	return armcore.Errorf(http.StatusBadRequest, "LocationNotAvailableForResourceType",
		"The provided location '%s' is not available for resource type '%s'. List of available regions for the resource type is '%s'.",
		loc, t.Type, strings.Join(only, ","))
}
