// Package bodydiff compares a desired ARM body with the one Azure holds, the
// way ARM means them: the changes a PUT makes, with ARM's equivalences
// (diffrules.go), what ARM does not return, and what Azure holds beyond the
// body. It knows nothing of plans; the planner decides with what it finds.
package bodydiff

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/registry"
)

// Rules compares a desired ARM body with the current one the way ARM means
// them: what the desired body sets, with ARM's equivalences (diffrules.go),
// what the PUT removes inside it, what ARM does not return and what Azure
// holds beyond the body. Rules are looked up by schema path: the
// ARM body path with list items as "[]" and map values as "{}".
type Rules struct {
	// enums are the paths of enum-valued fields (REST specification or
	// CRD), which ARM matches in any case.
	enums map[string]bool
	// ordinals are the REST specification's enum values in its order: ARM
	// may return a value as its index.
	ordinals map[string][]string
	// writeOnly are paths ARM accepts but never returns (REST flag WriteOnly).
	writeOnly map[string]bool
	// secrets are paths of secret values (the CRD's secret references, the
	// REST specification's sensitive strings): never returned, never compared.
	secrets map[string]bool
	// maps are paths of objects with arbitrary keys: a PUT replaces their keys.
	maps map[string]bool
	// settable are the lower-cased paths the kind's spec carries to ARM:
	// the PUT model, which the operator's generator derives from the REST
	// specification without its read-only properties.
	settable map[string]bool
	// readOnly are the REST specification's read-only paths the spec
	// nevertheless has a field for: never settable.
	readOnly []string
	// tags says the kind's spec has tags: a PUT replaces Azure's tags whole.
	tags bool
	// known says the REST specification's facts of the kind's api-version
	// are at hand: without them nothing is said of what the spec lacks.
	known bool
	// accepted are the lower-cased paths a PUT of the kind's api-version
	// accepts that its spec (this CRD version) has no field for.
	accepted map[string]bool
	// returnedOnly are the lower-cased read-only paths its spec has no field for.
	returnedOnly []string
	// towards are the lower-cased objects on the way to settable paths
	// ("properties" towards "properties.addressSpace").
	towards map[string]bool
	// oneWay are the lower-cased paths of settings that stay on once on.
	oneWay map[string]bool
	// enumSets are the lower-cased paths of lists of enum values whose
	// order says nothing.
	enumSets map[string]bool
	// provider is what the kind's resource provider does with the values
	// it is sent beyond what any specification states; nil when nothing.
	provider extensions.StoredValues
}

var differCache sync.Map // *registry.Kind -> *Rules

// For builds the comparison rules of a kind once; Rules are read-only.
func For(k *registry.Kind) *Rules {
	if v, ok := differCache.Load(k); ok {
		return v.(*Rules)
	}
	d := &Rules{enums: map[string]bool{}, ordinals: map[string][]string{}, writeOnly: map[string]bool{}, secrets: map[string]bool{}, maps: map[string]bool{}, settable: map[string]bool{},
		accepted: map[string]bool{}, towards: map[string]bool{}, oneWay: map[string]bool{}, enumSets: map[string]bool{}}
	if b := k.Body; b != nil {
		d.known = true
		for _, p := range b.Unexpressed {
			d.accepted[strings.ToLower(p)] = true
		}
		for _, p := range b.ReturnedOnly {
			d.returnedOnly = append(d.returnedOnly, strings.ToLower(p))
		}
		for _, p := range b.OneWay {
			d.oneWay[strings.ToLower(p)] = true
		}
		for _, p := range b.EnumSets {
			d.enumSets[strings.ToLower(p)] = true
		}
		for _, p := range b.WriteOnly {
			d.writeOnly[p] = true
		}
		for _, p := range b.Sensitive {
			d.secrets[p] = true
		}
		for _, p := range b.Maps {
			d.maps[p] = true
		}
		for _, e := range b.Enums {
			d.enums[e.Path] = true
			d.ordinals[e.Path] = e.Values
		}
		for _, p := range b.ReadOnly {
			d.readOnly = append(d.readOnly, strings.ToLower(p))
		}
	}
	d.collectSpec(k.Spec, "")
	for p := range d.settable {
		for i := range len(p) {
			if p[i] == '.' || p[i] == '[' || p[i] == '{' {
				d.towards[p[:i]] = true
			}
		}
	}
	if k.Spec != nil {
		d.tags = k.Spec.Child("tags") != nil
	}
	d.provider = extensions.StoredValuesFor(k.ARMType)
	v, _ := differCache.LoadOrStore(k, d)
	return v.(*Rules)
}

// collectSpec walks a spec schema to the ARM paths its fields land at, as
// convert does, and records the paths a PUT can set, secrets, maps and the
// CRD's enums.
func (d *Rules) collectSpec(f *registry.Field, path string) {
	if f == nil {
		return
	}
	if path != "" {
		d.settable[strings.ToLower(path)] = true
	}
	switch {
	case f.Ref == registry.RefSecret || f.Ref == registry.RefSecretMap:
		d.secrets[path] = true
		return
	case f.Ref != "":
		return
	case f.KeyedByRef:
		d.maps[path] = true // a list of references in the spec, a map keyed by ARM ID in ARM
		d.settable[strings.ToLower(path)+"{}"] = true
		return
	}
	if len(f.Enum) > 0 {
		d.enums[path] = true
	}
	switch f.Type {
	case registry.TypeObject:
		for _, c := range f.Fields {
			if c.ARM != nil {
				d.collectSpec(c, armjson.Join(path, strings.Join(c.ARM, ".")))
			}
		}
	case registry.TypeArray:
		d.collectSpec(f.Items, path+"[]")
	case registry.TypeMap:
		d.maps[path] = true
		d.collectSpec(f.Values, path+"{}")
	}
}

// Comparison is what comparing a desired body with Azure's finds.
type Comparison struct {
	// Changes are what the PUT changes.
	Changes []Change
	// NotReturned are properties the body sets that ARM does not return (the
	// REST specification says so, or Azure masks them), so they are not compared.
	NotReturned []PathValue
	// Lacking are properties the body sets that Azure's object lacks and
	// that the REST specification does not call write-only: either ARM does
	// not return them or Azure does not have them yet. Only a prior (the
	// body that was sent before: the base of a three-way plan) tells which.
	Lacking []PathValue
	// AzureOnly are values Azure holds that the body omits at paths a PUT
	// can set: whether a PUT keeps or resets them is the provider's choice.
	AzureOnly []PathValue
	// Unexpressed are values Azure holds at paths the kind's spec (this CRD
	// version) has no field for, each with its Reason: ReasonUnexpressed
	// where a PUT of the api-version accepts them, ReasonUnknownToAPI where
	// its REST specification does not know them. A merge keeps the first
	// and names the second as what the PUT may reset.
	Unexpressed []PathValue
}

// Diff lists the changes that writing desired over current makes. With a nil
// current (a create) every desired value is an addition.
func (d *Rules) Diff(desired, current map[string]any) []Change {
	return d.Compare(desired, current).Changes
}

// Compare compares desired with current (nil for a create): the changes a
// PUT makes, what Azure does not return, and what Azure holds beyond the body.
func (d *Rules) Compare(desired, current map[string]any) Comparison {
	var c Comparison
	creating := current == nil
	d.fields(&c, "", "", desired, current, !creating, creating, "name") // the Azure name is part of the ARM ID
	if !creating && d.tags && isNil(desired["tags"]) {
		// A PUT without tags clears them.
		if tags, _ := armjson.LookupFold(current, "tags"); tags != nil {
			d.removedTags(&c, map[string]any{}, tags)
		}
	}
	return c
}

// fields compares the keys of a desired object at path with the current
// object (present when ok). A key Azure's object lacks is a property ARM
// does not return (notReturned), except inside a map, whose keys a PUT
// replaces; what Azure holds beyond the body is azureOnly, except tags,
// which a PUT replaces whole: those are removals. The key skip (the name of
// a named item) is not compared.
func (d *Rules) fields(c *Comparison, path, schema string, want, have map[string]any, ok, creating bool, skip string) {
	keyed := d.maps[schema] || schema == "tags"
	for _, k := range sortedKeys(want) {
		if k == skip {
			continue
		}
		hv, hok := armjson.LookupFold(have, k)
		child := armjson.Join(schema, k)
		if keyed {
			child = schema + "{}"
		}
		if ok && hv == nil && !creating && !keyed && child != "tags" {
			d.absent(c, armjson.JoinKey(path, k), child, want[k])
			continue
		}
		d.value(c, armjson.JoinKey(path, k), child, want[k], hv, hok, creating)
	}
	if !ok || creating {
		return
	}
	if schema == "tags" {
		d.removedTags(c, want, have)
		return
	}
	for _, k := range sortedKeys(have) {
		if _, set := armjson.LookupFold(want, k); set || k == skip || have[k] == nil || path == "" && k == "tags" {
			continue // top-level tags the body omits are removals (compare)
		}
		child := armjson.Join(schema, k)
		if keyed {
			child = schema + "{}"
		}
		d.held(c, armjson.JoinKey(path, k), child, have[k], keyed)
	}
}

// absent handles a property the body sets that Azure's object lacks. Either
// ARM does not return it (it is write-only, or withheld, or the provider
// keeps it to itself), and what a GET shows says nothing about it, or Azure
// does not have it yet: it is notReturned when the REST specification says
// ARM never returns it, else lacking, for the caller to decide with what it
// knows of what was sent before. A value the body leaves empty or false is
// one a provider leaves out of what it returns; a value known only after
// apply is a change, unless the REST specification says ARM never returns it.
func (d *Rules) absent(c *Comparison, path, schema string, want any) {
	switch w := want.(type) {
	case convert.Sensitive, SensitiveDigest:
		return // a secret: listed under the resource's secrets
	case convert.Unknown:
		switch {
		case w.Sensitive:
			return
		case !d.writeOnly[schema]:
			c.Changes = append(c.Changes, Change{Path: path, Unknown: true})
			return
		}
	case map[string]any:
		if len(w) == 0 {
			return
		}
	case []any:
		if len(w) == 0 {
			return
		}
	}
	if isNil(want) || isZero(want) || d.secrets[schema] {
		return
	}
	v := PathValue{Path: path, Value: d.display(schema, want)}
	if d.writeOnly[schema] {
		c.NotReturned = append(c.NotReturned, v)
		return
	}
	c.Lacking = append(c.Lacking, v)
}

// held records a value Azure holds at path that the body omits, when a PUT
// can set that path (the spec carries it, the REST specification does not
// flag it read-only, it is no secret): its value as a PUT could carry it.
// An entry of a map is listed even when its value is empty: the key is
// what Azure holds.
//
// What the spec has no field for is listed as well, with the reason: a
// value at a path the REST specification of the kind's api-version accepts
// (ReasonUnexpressed), or at one it does not know (ReasonUnknownToAPI);
// read-only paths never.
func (d *Rules) held(c *Comparison, path, schema string, have any, entry bool) {
	if !d.canSet(schema) {
		d.beyondSpec(c, path, schema, have)
		return
	}
	if v := d.SettablePart(schema, have); !isEmpty(v) || entry {
		c.AzureOnly = append(c.AzureOnly, PathValue{Path: path, Value: v})
	}
	d.beyondWithin(c, path, schema, have)
}

// Why a value Azure holds at a path the kind's spec has no field for is
// listed (PathValue.Reason).
const (
	// ReasonUnexpressed: a PUT of the api-version accepts it, so a merge
	// can carry it.
	ReasonUnexpressed = "the kind's schema (this CRD version) has no field for it; a PUT of this api-version accepts it"
	// ReasonUnknownToAPI: the REST specification of the api-version does
	// not know it, so no PUT of this kind can carry it.
	ReasonUnknownToAPI = "the kind's schema (this CRD version) has no field for it, nor does the REST specification of this api-version: no PUT of this kind can carry it"
)

// envelope are the properties ARM's resource contract makes read-only on
// every resource and sub-resource (its ID, type, etag, systemData, and the
// provisioningState of its properties), whether or not a REST
// specification lists them.
var envelope = map[string]bool{"id": true, "type": true, "etag": true, "systemdata": true, "provisioningstate": true}

// beyondSpec lists a value Azure holds at a path a PUT cannot set from the
// spec: nothing when it is a secret, read-only, or the REST facts are not
// at hand; the parts inside an object on the way to settable paths.
func (d *Rules) beyondSpec(c *Comparison, path, schema string, have any) {
	lower := strings.ToLower(schema)
	switch {
	case !d.known || isEmpty(have) || d.secrets[schema] || d.settable[lower] || d.readOnlyAt(lower, d.returnedOnly):
		return
	case d.towards[lower]:
		d.beyondWithin(c, path, schema, have)
	case d.accepted[lower]:
		if v := d.acceptedPart(schema, have); !isEmpty(v) {
			c.Unexpressed = append(c.Unexpressed, PathValue{Path: path, Value: v, Reason: ReasonUnexpressed})
		}
	case envelope[strings.ToLower(lastSegment(lower))]:
		return
	default:
		c.Unexpressed = append(c.Unexpressed, PathValue{Path: path, Value: have, Reason: ReasonUnknownToAPI})
	}
}

// beyondWithin lists what Azure holds inside an object at a path the spec
// reaches (or is on the way to) that the spec has no field for.
func (d *Rules) beyondWithin(c *Comparison, path, schema string, have any) {
	m, ok := have.(map[string]any)
	if !ok || d.maps[schema] {
		return // a map's keys are the user's data; lists of the spec are compared whole
	}
	for _, k := range sortedKeys(m) {
		child := armjson.Join(schema, k)
		if d.canSet(child) {
			d.beyondWithin(c, armjson.JoinKey(path, k), child, m[k])
		} else {
			d.beyondSpec(c, armjson.JoinKey(path, k), child, m[k])
		}
	}
}

// acceptedPart is the part of a value at a path the spec lacks that a PUT
// accepts: read-only properties left out.
func (d *Rules) acceptedPart(schema string, v any) any {
	return d.partWhere(schema, v, func(child string) bool { return d.accepted[strings.ToLower(child)] && !d.secrets[child] })
}

// partWhere is the part of a value at schema whose paths keep takes: map
// keys and list items keep refuses are left out, and so are objects left
// empty (a map's entries stay, empty or not).
func (d *Rules) partWhere(schema string, v any, keep func(child string) bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			child := armjson.Join(schema, k)
			if d.maps[schema] {
				child = schema + "{}"
			}
			if e == nil || !keep(child) {
				continue
			}
			if part := d.partWhere(child, e, keep); !isEmpty(part) || d.maps[schema] {
				out[k] = part
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if part := d.partWhere(schema+"[]", e, keep); !isEmpty(part) {
				out = append(out, part)
			}
		}
		return out
	}
	return v
}

// canSet reports a path a PUT can set: one the spec carries, not read-only
// in the REST specification, not a secret.
func (d *Rules) canSet(schema string) bool {
	lower := strings.ToLower(schema)
	return d.settable[lower] && !d.secrets[schema] && !d.readOnlyAt(lower, d.readOnly)
}

// readOnlyAt reports a lower-cased path at or below one of the read-only paths.
func (d *Rules) readOnlyAt(lower string, readOnly []string) bool {
	for _, ro := range readOnly {
		if rest, under := strings.CutPrefix(lower, ro); under && (rest == "" || strings.ContainsRune(".[{", rune(rest[0]))) {
			return true
		}
	}
	return false
}

// SettablePart is the part of a value Azure holds at schema that a PUT can
// set: read-only and secret properties left out.
func (d *Rules) SettablePart(schema string, v any) any {
	return d.partWhere(schema, v, d.canSet)
}

// display is a desired value at schema as it may be shown: secrets, also
// those the body holds as plain strings at a secret path, as SensitiveText.
func (d *Rules) display(schema string, v any) any {
	if d.secrets[schema] {
		return convert.SensitiveText
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			child := armjson.Join(schema, k)
			if d.maps[schema] {
				child = schema + "{}"
			}
			out[k] = d.display(child, e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = d.display(schema+"[]", e)
		}
		return out
	}
	return Shown(v)
}

// value compares one desired value at path with the current one (present
// when ok). schema is the path's schema path, for rule lookups.
func (d *Rules) value(c *Comparison, path, schema string, want, have any, ok, creating bool) {
	if ok && have == nil {
		ok = false // JSON null is absent
	}
	if isNil(want) {
		return // a null the manifests send sets nothing
	}
	if d.writeOnly[schema] && !creating {
		// ARM never returns it, so what a GET shows says nothing: like a
		// secret, it is shown when created and not compared after.
		return
	}
	switch w := want.(type) {
	case convert.Sensitive, SensitiveDigest:
		d.secret(c, path, creating)
		return
	case convert.Unknown:
		if w.Sensitive {
			// A secret another resource exports: like any secret, shown
			// when created and never compared after.
			if creating {
				c.Changes = append(c.Changes, Change{Path: path, Sensitive: true, Unknown: true})
			}
			return
		}
		ch := Change{Path: path, Unknown: true}
		if ok {
			ch.Before = have
		}
		c.Changes = append(c.Changes, ch)
		return
	}
	if d.secrets[schema] {
		d.secret(c, path, creating)
		return
	}
	switch w := want.(type) {
	case map[string]any:
		h, isMap := have.(map[string]any)
		if ok && !isMap {
			c.Changes = append(c.Changes, Change{Path: path, Before: have, After: Shown(want)})
			return
		}
		if len(w) == 0 && creating {
			c.Changes = append(c.Changes, Change{Path: path, After: map[string]any{}})
			return
		}
		d.fields(c, path, schema, w, h, ok, creating, "")
		return
	case []any:
		d.list(c, path, schema, w, have, ok, creating)
		return
	}
	if !ok {
		if isZero(want) && !creating {
			return // providers leave empty strings and false out of what they return
		}
		c.Changes = append(c.Changes, Change{Path: path, After: want})
		return
	}
	if masked(have) {
		// A provider that returns a secret as a mask does not return it.
		c.NotReturned = append(c.NotReturned, PathValue{Path: path, Sensitive: true})
		return
	}
	if !d.equal(schema, want, have) && !d.keptOn(schema, want, have) && !(d.provider != nil && d.provider.Equivalent(schema, want, have)) {
		c.Changes = append(c.Changes, Change{Path: path, Before: have, After: want})
	}
}

// secret is a secret value: shown (as sensitive) when created, never
// compared after, as ARM never returns it.
func (d *Rules) secret(c *Comparison, path string, creating bool) {
	if creating {
		c.Changes = append(c.Changes, Change{Path: path, Sensitive: true})
	}
}

// removedTags lists the tags Azure has that the desired tags lack: a PUT
// replaces tags whole, so they are removed. Tags Azure services keep for
// themselves (hidden-title, hidden-link:…, hidden from the portal) are not
// the user's: services set them again.
func (d *Rules) removedTags(c *Comparison, want map[string]any, have any) {
	h, _ := have.(map[string]any)
	for _, k := range sortedKeys(h) {
		if h[k] == nil || strings.HasPrefix(strings.ToLower(k), "hidden-") {
			continue
		}
		if _, kept := armjson.LookupFold(want, k); !kept {
			c.Changes = append(c.Changes, Change{Path: armjson.JoinKey("tags", k), Before: h[k]})
		}
	}
}

// list compares arrays: objects with a name are matched by name (ARM keeps
// them as named children), scalars as a whole list in order, other objects
// by position. Named items Azure has beyond the desired ones are azureOnly,
// as the keys of a map are; other items beyond the desired ones are removed
// by a PUT. Items Azure drops (see droppedItems) are not returned.
func (d *Rules) list(c *Comparison, path, schema string, want []any, have any, ok, creating bool) {
	h, isList := have.([]any)
	if ok && !isList {
		c.Changes = append(c.Changes, Change{Path: path, Before: have, After: Shown(want)})
		return
	}
	if len(want) == 0 {
		if !creating && len(h) > 0 {
			c.Changes = append(c.Changes, Change{Path: path, Before: h, After: []any{}})
		}
		return
	}
	if armjson.Named(want) {
		matched := map[int]bool{}
		for _, item := range want {
			m := item.(map[string]any)
			name := m["name"].(string)
			p := fmt.Sprintf("%s[name=%s]", path, name)
			i := armjson.IndexByName(h, name)
			if i < 0 {
				if creating {
					d.value(c, p, schema+"[]", m, nil, false, true)
				} else {
					c.Changes = append(c.Changes, Change{Path: p, After: Shown(m)})
				}
				continue
			}
			matched[i] = true
			hm, _ := h[i].(map[string]any)
			d.fields(c, p, schema+"[]", m, hm, true, creating, "name")
		}
		for i, item := range h {
			if !matched[i] && !(d.provider != nil && d.provider.AddedByProvider(schema, item)) {
				name, _ := item.(map[string]any)["name"].(string)
				d.held(c, fmt.Sprintf("%s[name=%s]", path, name), schema+"[]", item, true)
			}
		}
		return
	}
	if ok && !creating && len(h) < len(want) && d.droppedItems(c, path, schema, want, h) {
		return
	}
	d.items(c, path, schema, want, h, ok, creating)
}

// items compares an unnamed list: scalars as a whole, objects by position.
func (d *Rules) items(c *Comparison, path, schema string, want, h []any, ok, creating bool) {
	if allScalars(want) {
		if ok && d.enumSets[strings.ToLower(schema)] && d.sameSet(schema+"[]", want, h) {
			return
		}
		if !ok || len(h) != len(want) {
			c.Changes = append(c.Changes, Change{Path: path, Before: nilIfAbsent(h, ok), After: Shown(want)})
			return
		}
		for i := range want {
			if !d.equal(schema+"[]", want[i], h[i]) {
				c.Changes = append(c.Changes, Change{Path: path, Before: h, After: Shown(want)})
				return
			}
		}
		return
	}
	for i, item := range want {
		var hv any
		hok := i < len(h)
		if hok {
			hv = h[i]
		}
		d.value(c, fmt.Sprintf("%s[%d]", path, i), schema+"[]", item, hv, hok, creating)
	}
	for i := len(want); i < len(h); i++ {
		c.Changes = append(c.Changes, Change{Path: fmt.Sprintf("%s[%d]", path, i), Before: h[i]})
	}
}

// sameSet reports two lists of scalars that hold the same values, in any
// order and with repeats aside: how a list of enum values (a permission
// set, a list of protocols) whose REST specification says nothing of order
// is stored. Providers return such sets in their own order and case
// (registry.BodyFacts.EnumSets).
func (d *Rules) sameSet(schema string, a, b []any) bool {
	covers := func(x, y []any) bool {
		for _, v := range x {
			if !slices.ContainsFunc(y, func(w any) bool { return d.equal(schema, v, w) }) {
				return false
			}
		}
		return true
	}
	return covers(a, b) && covers(b, a)
}

// droppedItems handles a list Azure holds with fewer items than the body
// sends, when what it lacks are items that carry nothing: empty ones (null,
// "", {}, []) and repeats of an earlier item. Providers store such lists as
// the sets they are and drop those items; a PUT cannot make Azure hold
// them. They are listed as not returned, and the rest is compared. It
// reports false, leaving the list to be compared whole, when the items that
// carry something differ from Azure's.
func (d *Rules) droppedItems(c *Comparison, path, schema string, want, have []any) bool {
	var kept []any
	var dropped []int
	for i, item := range want {
		repeat := slices.ContainsFunc(kept, func(k any) bool { return d.sameItem(schema+"[]", k, item) })
		if isEmpty(item) || repeat {
			dropped = append(dropped, i)
			continue
		}
		kept = append(kept, item)
	}
	if len(dropped) == 0 || len(kept) != len(have) {
		return false
	}
	var rest Comparison
	d.items(&rest, path, schema, kept, have, true, false)
	if len(rest.Changes) > 0 {
		return false
	}
	c.NotReturned = append(c.NotReturned, rest.NotReturned...)
	c.Lacking = append(c.Lacking, rest.Lacking...)
	c.AzureOnly = append(c.AzureOnly, rest.AzureOnly...)
	for _, i := range dropped {
		c.NotReturned = append(c.NotReturned, PathValue{Path: fmt.Sprintf("%s[%d]", path, i), Value: d.display(schema+"[]", want[i])})
	}
	return true
}

// sameItem reports two items of a desired list that are the same under the
// Comparison rules.
func (d *Rules) sameItem(schema string, a, b any) bool {
	if allScalars([]any{a, b}) {
		return d.equal(schema, a, b)
	}
	return reflect.DeepEqual(a, b)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// isEmpty reports a value that holds nothing: null, "", an empty object or
// list, or a list of such.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case map[string]any:
		return len(t) == 0
	case []any:
		for _, e := range t {
			if !isEmpty(e) {
				return false
			}
		}
		return true
	}
	return false
}

// masked reports a value that is only asterisks ("********"): how some
// providers return a secret they keep.
func masked(v any) bool {
	s, ok := v.(string)
	return ok && len(s) >= 3 && strings.Trim(s, "*") == ""
}

// isZero reports an empty string or false: providers commonly serialize
// their responses without default values, so absent is not apart from them.
func isZero(v any) bool {
	return v == "" || v == false
}

func nilIfAbsent(v []any, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

func allScalars(items []any) bool {
	for _, item := range items {
		switch item.(type) {
		case map[string]any, []any, convert.Sensitive, convert.Unknown, SensitiveDigest:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SchemaOf is the schema path (list items as "[]", map values as "{}") of
// a body path, for the rules.
func (d *Rules) SchemaOf(p armjson.Path) string {
	schema := ""
	for _, st := range p {
		switch {
		case st.Item:
			schema += "[]"
		case d.maps[schema] || schema == "tags":
			schema += "{}"
		default:
			schema = armjson.Join(schema, st.Key)
		}
	}
	return schema
}
