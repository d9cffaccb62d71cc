package armcore

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// typeFacts is what the emulator knows about one ARM resource type, from the
// registry: the facts the corpus shows (registry.ARMType, nil when none) and
// the ARM paths of the secret spec fields of every kind mapping to it.
type typeFacts struct {
	arm *registry.ARMType
	// secrets are ARM body paths, "[]" standing for every item of an array
	// and "*" for every value of a map.
	secrets [][]string
}

var factsByType sync.Map // lower-cased type -> *typeFacts

// factsOf returns the facts of typ, derived once per type.
func factsOf(typ string) *typeFacts {
	k := strings.ToLower(typ)
	if v, ok := factsByType.Load(k); ok {
		return v.(*typeFacts)
	}
	reg := registry.Default()
	f := &typeFacts{}
	f.arm, _ = reg.ARMType(typ)
	kinds := reg.KindsOfARMType(typ)
	if f.arm == nil && len(kinds) == 0 {
		return f // not cached: the cache stays as small as the registry whatever paths clients send
	}
	seen := map[string]bool{}
	for _, gvk := range kinds {
		kind, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok {
			continue
		}
		secretPaths(kind.Spec, nil, func(p []string) {
			if j := strings.Join(p, "."); !seen[j] {
				seen[j] = true
				f.secrets = append(f.secrets, p)
			}
		})
	}
	v, _ := factsByType.LoadOrStore(k, f)
	return v.(*typeFacts)
}

// ARMType is what the corpus shows of typ (registry.ARMType: api-versions,
// actions, timings, filled values), or nil.
func ARMType(typ string) *registry.ARMType { return factsOf(typ).arm }

// secretPaths calls found with the ARM path of every secret field under f,
// whose own ARM form sits at prefix.
func secretPaths(f *registry.Field, prefix []string, found func([]string)) {
	if f == nil {
		return
	}
	for _, c := range f.Fields {
		if c.ARM == nil {
			continue // never reaches ARM (owner, operatorSpec, ...)
		}
		path := slices.Concat(prefix, c.ARM)
		switch c.Ref {
		case registry.RefSecret, registry.RefSecretMap:
			found(path)
			continue
		case "":
		default:
			continue // a reference: an ID or a config value, not a secret
		}
		switch c.Type {
		case registry.TypeObject:
			secretPaths(c, path, found)
		case registry.TypeArray:
			if c.Items != nil {
				if c.Items.Ref == registry.RefSecret {
					found(append(path, "[]"))
				}
				secretPaths(c.Items, append(path, "[]"), found)
			}
		case registry.TypeMap:
			if c.Values != nil {
				secretPaths(c.Values, append(path, "*"), found)
			}
		}
	}
}

// dropSecrets removes every secret path from body: ARM never returns a
// secret, and the emulator keeps only what ARM would return.
func (f *typeFacts) dropSecrets(body map[string]any) {
	for _, p := range f.secrets {
		dropPath(body, p)
	}
}

func dropPath(v any, path []string) {
	if len(path) == 0 {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		switch {
		case path[0] == "*":
			for _, e := range t {
				dropPath(e, path[1:])
			}
		case len(path) == 1:
			delete(t, path[0])
		default:
			dropPath(t[path[0]], path[1:])
		}
	case []any:
		if path[0] != "[]" {
			return
		}
		if len(path) == 1 {
			return // a list of secrets: its items are dropped with the list
		}
		for _, e := range t {
			dropPath(e, path[1:])
		}
	}
}

// writeOnly returns the paths that ARM, at this api-version, accepts but
// never returns: the REST specification's write-only properties and
// sensitive strings (registry.Kind.Body of the kinds mapping to typ); the
// emulator does not keep them either. At an api-version no kind uses, the
// facts of the nearest version the kinds use hold (the newest not newer
// than it, else the oldest): the REST specs' properties are known only at
// the kinds' versions, and a path the body lacks drops nothing.
func writeOnly(typ, version string) [][]string {
	k := strings.ToLower(typ) + "@" + version
	if v, ok := writeOnlyByVersion.Load(k); ok {
		return v.([][]string)
	}
	reg := registry.Default()
	var kinds []*registry.Kind
	for _, gvk := range reg.KindsOfARMType(typ) {
		if kind, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok {
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) == 0 {
		return nil // the cache stays bounded: only types the registry knows are kept
	}
	at := nearestVersion(kinds, version)
	var out [][]string
	for _, kind := range kinds {
		if kind.APIVersion != at || kind.Body == nil {
			continue
		}
		for _, p := range append(append([]string(nil), kind.Body.WriteOnly...), kind.Body.Sensitive...) {
			if strings.Contains(p, "{}") {
				continue // inside a map's values: kept (a map is the user's data)
			}
			out = append(out, strings.Split(strings.ReplaceAll(p, "[]", ".[]"), "."))
		}
	}
	if at == version || slices.Contains(servedVersions(typ), version) {
		writeOnlyByVersion.Store(k, out) // served pairs only, so the cache stays bounded
	}
	return out
}

// writeOnlyAtAnyVersion are the write-only and sensitive paths of typ at
// every api-version its kinds use: what a change made outside any client
// (drift), which names no api-version, may not leave in the store.
func writeOnlyAtAnyVersion(typ string) [][]string {
	var out [][]string
	reg := registry.Default()
	for _, gvk := range reg.KindsOfARMType(typ) {
		if kind, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok {
			out = append(out, writeOnly(typ, kind.APIVersion)...)
		}
	}
	return out
}

// nearestVersion is the api-version of kinds whose facts hold at version:
// version itself, else the newest older one, else the oldest.
func nearestVersion(kinds []*registry.Kind, version string) string {
	best, oldest := "", ""
	for _, kind := range kinds {
		v := kind.APIVersion
		if v == version {
			return v
		}
		if v < version && v > best {
			best = v
		}
		if oldest == "" || v < oldest {
			oldest = v
		}
	}
	if best == "" {
		return oldest
	}
	return best
}

var writeOnlyByVersion sync.Map // lower-cased type@api-version -> [][]string

// fill sets the values ARM fills in (registry.ARMType.Filled) that body
// lacks; a value the previous version had is kept, as ARM keeps read-only
// values across updates.
func (f *typeFacts) fill(c *Core, rec *store.Record, body, prev map[string]any, now time.Time) {
	if f.arm == nil {
		return
	}
	name := rec.ID[strings.LastIndexByte(rec.ID, '/')+1:]
	location, _ := body["location"].(string)
	for _, fv := range f.arm.Filled {
		path := strings.Split(fv.Path, ".")
		if _, ok := armjson.Lookup(body, path); ok || isEmbeddedPath(rec.Type, path) {
			continue // an embedded collection is rendered from the children
		}
		v, ok := armjson.Lookup(prev, path)
		if !ok {
			v = c.expand(fv.Value, rec.ID, name, location, now)
		}
		armjson.Put(body, path, v)
	}
	for _, sub := range f.arm.SubResourceIDs {
		items, _ := armjson.Lookup(body, strings.Split(sub.Path, "."))
		list, _ := items.([]any)
		for _, item := range list {
			m, _ := item.(map[string]any)
			n, _ := m["name"].(string)
			if _, has := m["id"]; n != "" && !has {
				m["id"] = rec.ID + "/" + sub.Segment + "/" + n
			}
		}
	}
}

var placeholder = regexp.MustCompile(`\{(id|name|location|etag|guid|time)\}`)

// expand instantiates a registry.FilledValue template for one resource.
func (c *Core) expand(v any, id, name, location string, now time.Time) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = c.expand(e, id, name, location, now)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = c.expand(e, id, name, location, now)
		}
		return out
	case string:
		return placeholder.ReplaceAllStringFunc(t, func(p string) string {
			switch p {
			case "{id}":
				return id
			case "{name}":
				return name
			case "{location}":
				return location
			case "{etag}":
				return `W/"` + c.newUUID() + `"`
			case "{guid}":
				return c.newUUID()
			}
			return now.UTC().Format(time.RFC3339Nano)
		})
	}
	return v
}

// apiVersionPattern is the shape of every ARM api-version.
var apiVersionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z]+)?$`)

// WellFormedAPIVersion reports whether v has the shape of an ARM api-version.
func WellFormedAPIVersion(v string) bool { return apiVersionPattern.MatchString(v) }

// checkAPIVersion refuses an api-version the type does not serve, as ARM
// does, listing those it serves (newest first): the versions the registry
// knows for the type (the kinds', the REST specs' and every version ARM
// publishes, registry.ARMType.APIVersions), resource groups included; the
// subscription-level reads serve the subscriptions API's versions. Types
// the registry knows nothing about accept any well-formed version.
func checkAPIVersion(typ, version string) error {
	k := strings.ToLower(typ) + "@" + version
	if v, ok := versionChecks.Load(k); ok {
		err, _ := v.(error)
		return err
	}
	err := apiVersionError(typ, version)
	if err == nil && len(servedVersions(typ)) > 0 {
		// Only served pairs of known types are kept, so that the cache stays
		// as small as the registry whatever clients send.
		versionChecks.Store(k, nil)
	}
	return err
}

// versionChecks remembers the served type and api-version pairs that
// passed, since every request asks.
var versionChecks sync.Map

// subscriptionsAPIVersions are the versions of ARM's subscriptions API
// (GET /subscriptions, /subscriptions/{s}, /tenants, /subscriptions/{s}/locations),
// as its REST specification publishes them. They are not resource types, so
// api-versions.json does not list them.
var subscriptionsAPIVersions = []string{
	"2015-11-01", "2016-06-01", "2018-06-01", "2019-06-01", "2019-11-01", "2020-01-01", "2021-01-01", "2022-12-01",
}

// servedVersions are the api-versions typ serves, oldest first; nil when any is accepted.
func servedVersions(typ string) []string {
	if strings.EqualFold(typ, armpath.TypeSubscription) {
		return subscriptionsAPIVersions
	}
	if f := factsOf(typ); typ != "" && f.arm != nil {
		return f.arm.APIVersions
	}
	return nil
}

func apiVersionError(typ, version string) error {
	served := servedVersions(typ)
	if apiVersionPattern.MatchString(version) && (len(served) == 0 || slices.Contains(served, version)) {
		return nil
	}
	newest := slices.Clone(served)
	slices.Reverse(newest)
	return Errorf(http.StatusBadRequest, "InvalidApiVersionParameter",
		"The api-version '%s' is invalid. The supported versions are '%s'.", version, strings.Join(newest, ","))
}

// createWithParent stores the children ARM creates with the new resource
// rec, sharing its operation (a create that fails creates none).
func (c *Core) createWithParent(rec *store.Record, now time.Time, state string) error {
	for i, child := range extensions.ChildrenCreatedWith(rec.Type) {
		seg, name, _ := strings.Cut(child, "/")
		kid := &store.Record{ID: rec.ID + "/" + child, Type: rec.Type + "/" + seg, Parent: armpath.Key(rec.ID), Created: now.Add(time.Duration(i))}
		if c.live(armpath.Key(kid.ID)) != nil {
			continue
		}
		kid.ETag = `W/"` + c.newUUID() + `"`
		body, err := json.Marshal(c.buildBody(kid, map[string]any{"name": name, "properties": map[string]any{}}, nil, now, state))
		if err != nil {
			return err
		}
		kid.Body = body
		if rec.Pending != nil {
			p := *rec.Pending
			kid.Pending = &p
		}
		if err := c.st.PutResource(armpath.Key(kid.ID), kid); err != nil {
			return err
		}
	}
	return nil
}

func isEmbeddedPath(typ string, path []string) bool {
	for _, c := range collectionsOf(typ) {
		if slices.Equal(c.Path, path) {
			return true
		}
	}
	return false
}

// filledAt reports whether ARM fills in the value at path for typ, so that
// an empty embedded collection is shown rather than left out.
func filledAt(typ string, path []string) bool {
	f := factsOf(typ)
	if f.arm == nil {
		return false
	}
	joined := strings.Join(path, ".")
	return slices.ContainsFunc(f.arm.Filled, func(v registry.FilledValue) bool { return v.Path == joined })
}
