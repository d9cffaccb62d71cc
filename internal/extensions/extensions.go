// Package extensions is azk's one home for what the operator does for
// particular kinds beyond its generic reconcile, shaped like the operator's
// own extension points (api/<group>/customizations): one file per ARM type
// that needs anything, each implementing small interfaces. convert calls
// them; docs/operator-fidelity.md lists every operator extension and where
// azk handles it.
package extensions

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/armjson"
)

// Target is the resource a request is being built for.
type Target struct {
	// ARMType and APIVersion are the kind's, e.g. "Microsoft.Network/virtualNetworks".
	ARMType, APIVersion string
	// ID is the resource's ARM ID and AzureName its name.
	ID, AzureName string
	// Get reads a resource from Azure: its body, or nil when it does not
	// exist. Nil means offline: the request is rendered as a create.
	Get func(id, apiVersion string) (map[string]any, error)
	// RoleDefinitionID resolves a built-in role name to its role definition
	// ARM ID; nil, or false, when it cannot be resolved now.
	RoleDefinitionID func(name string) (string, bool)
	// Unknown stands for a value known only when applying, with the reason.
	Unknown func(reason string) any
	// Project returns how a child read from Azure is written back in the
	// collection at path of the parent's body (see PreservedChildren).
	Project func(path []string) func(child map[string]any) map[string]any
}

// Outcome is what a body modifier asks for besides the body.
type Outcome struct {
	// Before are the requests the operator sends before the PUT (see PreWrite).
	Before []PreWrite
	// Notes say what else the operator does for this request, for the plan.
	Notes []string
}

// BodyModifier changes the body just before the PUT, as the operator's
// ARMResourceModifier extensions do.
type BodyModifier interface {
	ModifyBody(t Target, body map[string]any, out *Outcome) error
}

// StoredValues is what a resource provider does with the values it is sent
// that no REST specification states, as the provider documents it: values
// it stores as others (an alias, a retired tier), items it adds to a list
// and keeps. The planner's diff consults it, so that a plan does not claim
// a change a PUT cannot make. (What a provider does not return needs no
// rule: the diff lists every property a GET lacks as not returned.) Paths are ARM
// body paths with list items as "[]" and map values as "{}".
type StoredValues interface {
	// Equivalent reports whether the provider holding have at path, when
	// want was sent, is no change.
	Equivalent(path string, want, have any) bool
	// AddedByProvider reports whether an item the provider holds in the
	// list at path, beyond those sent, is one it adds itself and keeps.
	AddedByProvider(path string, item any) bool
}

// StoredValuesFor returns what the provider of an ARM type does with the
// values it is sent, or nil when it does as sent.
func StoredValuesFor(armType string) StoredValues {
	v, _ := extensionOf[StoredValues](armType)
	return v
}

// storedAsSent is the zero StoredValues, to embed where a provider departs
// in one way only.
type storedAsSent struct{}

func (storedAsSent) Equivalent(string, any, any) bool { return false }
func (storedAsSent) AddedByProvider(string, any) bool { return false }

// ChildrenCreator is a resource whose provider creates children with it, as
// ARM documents: they exist as soon as it does and go with it, so they are
// not the user's to create or to account for when it is deleted.
type ChildrenCreator interface {
	// CreatedWith are the children, as "childType/name" under the resource.
	CreatedWith() []string
}

// ChildrenCreatedWith returns the children ARM creates with a resource of
// armType ("blobServices/default"), or nil.
func ChildrenCreatedWith(armType string) []string {
	if c, ok := extensionOf[ChildrenCreator](armType); ok {
		return c.CreatedWith()
	}
	return nil
}

// Unique is a resource ARM holds once per value of some of its properties,
// whatever its name, refusing a second one under another name (a role
// assignment of one role to one principal at one scope): replacing one by
// another of a new name must delete the old one first.
type Unique interface {
	// UniqueKey is that value for the resource at id with body (desired or
	// Azure's); "" when the body does not tell it yet.
	UniqueKey(id string, body map[string]any) string
}

// UniqueKey returns the value a resource of armType is unique by (see
// Unique), or "" when its kind has none or the body does not tell it.
func UniqueKey(armType, id string, body map[string]any) string {
	if u, ok := extensionOf[Unique](armType); ok {
		return u.UniqueKey(id, body)
	}
	return ""
}

// byARMType holds the extensions, keyed by lower-cased ARM type.
var byARMType = map[string]any{}

// extensionOf is the extension of an ARM type (any case) as the interface
// T, and whether it implements T.
func extensionOf[T any](armType string) (T, bool) {
	t, ok := byARMType[strings.ToLower(armType)].(T)
	return t, ok
}

// register sets the extension of an ARM type: one value per type,
// implementing every interface the type needs, so that all of a type's
// behaviour is found in one place.
func register(armType string, ext any) {
	key := strings.ToLower(armType)
	if _, dup := byARMType[key]; dup {
		panic("extensions: " + armType + " registered twice: give it one value implementing every interface it needs")
	}
	byARMType[key] = ext
}

// BodyModifierFor returns the body modifier of an ARM type, or nil.
func BodyModifierFor(armType string) BodyModifier {
	m, _ := extensionOf[BodyModifier](armType)
	return m
}

// Importer leaves out of azk import what the operator's Importer extensions
// make asoctl import skip: resources Azure makes itself and no manifest
// can manage (built-in roles, system databases, default settings).
type Importer interface {
	// SkipImport says why the resource (its ARM body, found under the
	// resource scope) is not imported; nil to import it.
	SkipImport(body map[string]any, scope string) *ImportSkip
}

// ImportSkip is why import leaves a resource out by design: what such
// resources are, in words that count them ("348 built-in role
// definitions"), so that many are told in one line.
type ImportSkip struct {
	// One and Many name such resources: "built-in role definition",
	// "built-in role definitions".
	One, Many string
	// Detail is what is particular to this resource ("inherited from
	// /subscriptions/…"), or "".
	Detail string
}

// Count is n such resources: "348 built-in role definitions".
func (s ImportSkip) Count(n int) string {
	if n == 1 {
		return "1 " + s.One
	}
	return fmt.Sprintf("%d %s", n, s.Many)
}

// ImporterFor returns the import rules of an ARM type, or nil.
func ImporterFor(armType string) Importer {
	i, _ := extensionOf[Importer](armType)
	return i
}

// stringAt is the string at an ARM path of body, or "".
func stringAt(body map[string]any, path ...string) string {
	v, _ := armjson.Lookup(body, path)
	s, _ := v.(string)
	return s
}
