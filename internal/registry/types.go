// Package registry holds the facts azk knows about every ASO kind: its ARM
// resource type and api-version, where it lives (scope), which kinds may own
// it, and the schema of its spec and status with the ARM location of every
// field. The facts are generated from the ASO corpus by ./gen and embedded.
package registry

import (
	"fmt"
	"strings"
)

// Scope says where in ARM a kind's resources live, and so how their ARM ID is built.
type Scope string

const (
	// ScopeResourceGroup: /subscriptions/{s}/resourceGroups/{rg}/providers/{type}/{name}, or a
	// child of such a resource ({parentId}/{childType}/{name}).
	ScopeResourceGroup Scope = "resourceGroup"
	// ScopeSubscription: /subscriptions/{s}/providers/{type}/{name}; the ResourceGroup kind
	// itself (/subscriptions/{s}/resourceGroups/{name}) is also subscription scoped.
	ScopeSubscription Scope = "subscription"
	// ScopeTenant: /providers/{type}/{name}.
	ScopeTenant Scope = "tenant"
	// ScopeLocation: /subscriptions/{s}/providers/{namespace}/locations/{location}/{type}/{name}.
	ScopeLocation Scope = "location"
	// ScopeExtension: {ownerId}/providers/{type}/{name}, on top of any resource.
	ScopeExtension Scope = "extension"
)

// GroupKind names a kind independent of its version, e.g. {"network.azure.com", "VirtualNetwork"}.
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// GVK names one served version of a kind.
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// APIVersion is the Kubernetes apiVersion string, e.g. "network.azure.com/v1api20201101".
func (g GVK) APIVersion() string { return g.Group + "/" + g.Version }

// Kind is everything known about one served group/version/kind.
type Kind struct {
	GVK
	// ARMType is the ARM resource type, e.g. "Microsoft.Network/virtualNetworks/subnets".
	// Empty for kinds that are not ARM resources (Microsoft Graph, database users).
	ARMType string `json:"armType,omitempty"`
	// APIVersion is the ARM api-version the operator sends, e.g. "2020-11-01".
	APIVersion string `json:"apiVersion,omitempty"`
	Scope      Scope  `json:"scope,omitempty"`
	// URI is the ARM URI template from the CRD, e.g.
	// "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Network/virtualNetworks/{virtualNetworkName}".
	URI string `json:"uri,omitempty"`
	// Owners lists the kinds that may own this one. Empty with ScopeExtension
	// means any resource may be the owner.
	Owners []GroupKind `json:"owners,omitempty"`
	// FixedName is the Azure name every resource of this kind has (e.g. "default"
	// for blob services); empty when users choose the name.
	FixedName string `json:"fixedName,omitempty"`
	// NoDelete says the operator's generated code gives the kind no delete
	// operation: Azure cannot delete such a resource on its own (the operator
	// refuses with DeleteNotPossibleInAzure); it goes only with its parent.
	// False for kinds the operator's list of supported operations leaves out.
	NoDelete bool `json:"noDelete,omitempty"`
	// NullCollections says the operator sends every unset list and map inside
	// the objects of its PUT body as an explicit null (its explicit-collections
	// payload mode), as its recorded requests for the kind's group show.
	NullCollections bool `json:"nullCollections,omitempty"`
	// EmptyCollections are the ARM paths (keys joined by ".", list items as
	// "[]") of collections that, with NullCollections, the operator sends as
	// an empty list or map rather than null, as its recorded requests show.
	EmptyCollections []string `json:"emptyCollections,omitempty"`
	// Body is what the REST specification of the ARM type at this
	// api-version says about the properties of its body; nil when the
	// specification is not known. It is kept with the schemas (loaded with
	// the kind's group), not in the index.
	Body *BodyFacts `json:"body,omitempty"`
	// Operator is what the operator's own configuration says about the kind at
	// its api-version; nil when it says nothing.
	Operator *Operator `json:"operator,omitempty"`
	// Spec is the schema of .spec; every field carries where it lands in the ARM PUT body.
	Spec *Field `json:"spec,omitempty"`
	// Status is the schema of .status; every field carries where it is read from in the ARM GET body.
	Status *Field `json:"status,omitempty"`
	// CreateOnly are the properties of the body Azure accepts only when the
	// resource is created, sorted by path. Kept with the schemas.
	CreateOnly []CreateOnly `json:"createOnly,omitempty"`
}

// IsARM reports whether resources of this kind are ARM resources azk can plan.
func (k *Kind) IsARM() bool { return k.ARMType != "" }

// Type is a JSON schema type.
type Type string

const (
	TypeObject  Type = "object"
	TypeArray   Type = "array"
	TypeMap     Type = "map" // object with additionalProperties: arbitrary keys, values described by Field.Values
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeAny     Type = "any" // x-kubernetes-preserve-unknown-fields or untyped JSON
)

// Ref says whether a field is a reference the operator resolves before sending.
type Ref string

const (
	// RefResource is a genruntime.ResourceReference ({group,kind,name} or {armId}); in ARM an ID string.
	RefResource Ref = "resource"
	// RefWellKnown is a genruntime.WellKnownResourceReference: a resource reference that may
	// instead carry wellKnownName (a built-in role name).
	RefWellKnown Ref = "wellKnown"
	// RefOwner is spec.owner: genruntime.KnownResourceReference ({name}, kind implied) or
	// genruntime.ArbitraryOwnerReference ({group,kind,name} or {armId}).
	RefOwner Ref = "owner"
	// RefSecret is a genruntime.SecretReference ({name,key}); in ARM a string.
	RefSecret Ref = "secret"
	// RefSecretMap is a genruntime.SecretMapReference ({name}); in ARM a map of strings.
	RefSecretMap Ref = "secretMap"
	// RefConfigMap is a genruntime.ConfigMapReference ({name,key}); in ARM a string.
	RefConfigMap Ref = "configMap"
	// RefConfigMapExport is a genruntime.ConfigMapDestination under operatorSpec.configMaps:
	// this resource exports the status value of the same name into that config map.
	RefConfigMapExport Ref = "configMapExport"
	// RefSecretExport is a genruntime.SecretDestination under operatorSpec.secrets.
	RefSecretExport Ref = "secretExport"
)

// Field is one node of a spec or status schema.
type Field struct {
	// Name is the JSON name on the Kubernetes side (empty for the root and for array items / map values).
	Name string `json:"name,omitempty"`
	// ARM is the path, relative to the enclosing object's ARM form, where this field's value
	// lands in the ARM body (spec) or is read from (status): ["location"],
	// ["properties","addressSpace"], ["id"] for a reference. Nil means the field never
	// reaches ARM (owner, azureName, operatorSpec). For the alternatives of a one-of the
	// path is empty but non-nil: the alternative's fields stand inline in the enclosing object.
	// Array items and map values have no path of their own (they are the elements of
	// their parent's ARM value), nor have the fields inside a reference (Ref set): the
	// resolved reference is the value at the reference's own path.
	ARM  []string `json:"arm,omitempty"`
	Type Type     `json:"type"`
	Ref  Ref      `json:"ref,omitempty"`
	// KeyedByRef marks a list of {reference} objects that ARM wants as a map keyed by
	// ARM ID with {} values (user-assigned identities). The items carry no ARM paths.
	KeyedByRef bool `json:"keyedByRef,omitempty"`
	// OneOf marks an object whose fields are alternatives: exactly one is set.
	OneOf    bool     `json:"oneOf,omitempty"`
	Required bool     `json:"required,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`

	MinLength *int     `json:"minLength,omitempty"`
	MaxLength *int     `json:"maxLength,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinItems  *int     `json:"minItems,omitempty"`
	MaxItems  *int     `json:"maxItems,omitempty"`

	// Fields are an object's properties, sorted by Name.
	Fields []*Field `json:"fields,omitempty"`
	// Items describes an array's elements.
	Items *Field `json:"items,omitempty"`
	// Values describes a map's values.
	Values *Field `json:"values,omitempty"`
}

// Child returns the object field with the given JSON name, or nil.
func (f *Field) Child(name string) *Field {
	if f == nil {
		return nil
	}
	lo, hi := 0, len(f.Fields)
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := f.Fields[mid].Name; {
		case c == name:
			return f.Fields[mid]
		case c < name:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return nil
}

// BodyFacts are the REST specification's facts about the properties of an
// ARM body, as the types Bicep compiles against carry them, except below
// read-only properties (never sent, never compared). Paths are ARM
// body paths: keys joined by ".", list items as "[]", map values as "{}",
// e.g. "properties.osProfile.adminPassword", "tags{}".
type BodyFacts struct {
	// WriteOnly are accepted by a PUT and never returned by a GET.
	WriteOnly []string `json:"writeOnly,omitempty"`
	// Required must be set in a PUT of their enclosing object, so every
	// existing resource has them.
	Required []string `json:"required,omitempty"`
	// Sensitive are secret strings: ARM does not return their values.
	Sensitive []string `json:"sensitive,omitempty"`
	// Maps are objects with arbitrary keys (additionalProperties).
	Maps []string `json:"maps,omitempty"`
	// Enums are the string values the specification names for a property.
	Enums []Enum `json:"enums,omitempty"`
	// Selectors are enum properties whose value names which of their sibling
	// objects applies.
	Selectors []Selector `json:"selectors,omitempty"`
	// ReadOnly are properties the specification flags read-only (returned
	// by GET, never taken from a PUT) that the kind's spec nevertheless has
	// a field for (systemData, a storage account's sku.tier): the only
	// read-only paths a body can hold. Nothing below them is listed.
	ReadOnly []string `json:"readOnly,omitempty"`
}

// CreateOnly is a property of a kind's ARM body that Azure accepts only when
// the resource is created: a PUT that changes it is refused, so changing it
// means deleting the resource and creating it again.
type CreateOnly struct {
	// Path is the ARM body path, written as BodyFacts paths are.
	Path string `json:"path"`
	// Sources say where the fact comes from (CreateOnlyFrom...), in that order.
	Sources []string `json:"sources"`
	// Code is the error code the provider answers a PUT that changes it
	// with, when known.
	Code string `json:"code,omitempty"`
}

// Sources of create-only facts, in the order CreateOnly.Sources lists them.
const (
	// CreateOnlyFromRESTSpec: the REST specification's description of the
	// property says it is set only at creation (types.json carries no
	// x-ms-mutability, so its wording is what the specification says).
	CreateOnlyFromRESTSpec = "REST spec"
	// CreateOnlyFromCRD: the CRD's description of the spec field says so.
	CreateOnlyFromCRD = "CRD"
	// CreateOnlyFromIdentity: the property names what the resource is (a
	// role assignment's principal and role); the provider refuses to change it.
	CreateOnlyFromIdentity = "identity"
	// CreateOnlyFromProvider: the provider refuses to change it although its
	// specification does not say so (a Cosmos DB container's partition key).
	CreateOnlyFromProvider = "provider"
	// CreateOnlyFromLocation: ARM never moves a resource to another region.
	CreateOnlyFromLocation = "location"
)

// CreateOnlyAt finds the create-only fact at path, or nil.
func (k *Kind) CreateOnlyAt(path string) *CreateOnly {
	for i := range k.CreateOnly {
		if k.CreateOnly[i].Path == path {
			return &k.CreateOnly[i]
		}
	}
	return nil
}

// CreateOnlySource says where the fact c of k comes from, as plans and azk
// explain print it, e.g. "REST spec: Microsoft.X/y@2021-05-15; CRD: x.azure.com/v1api20210515".
func (k *Kind) CreateOnlySource(c CreateOnly) string {
	parts := make([]string, 0, len(c.Sources))
	for _, s := range c.Sources {
		switch s {
		case CreateOnlyFromRESTSpec:
			parts = append(parts, fmt.Sprintf("%s: %s@%s", s, k.ARMType, k.APIVersion))
		case CreateOnlyFromCRD:
			parts = append(parts, fmt.Sprintf("%s: %s", s, k.GVK.APIVersion()))
		case CreateOnlyFromIdentity, CreateOnlyFromProvider:
			parts = append(parts, fmt.Sprintf("%s: ARM answers %s", s, c.Code))
		default:
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// Selector is an enum property (Path) whose values name sibling objects
// (Alternatives, their JSON names): only the one it names applies.
type Selector struct {
	Path         string   `json:"path"`
	Alternatives []string `json:"alternatives"`
}

// Enum is the named values of one property, in the specification's order.
type Enum struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// Operator are the facts the operator's generator configuration gives for one
// kind at one api-version, beyond its schema.
type Operator struct {
	// ConfigMaps are the spec.operatorSpec.configMaps entries the kind can
	// export, each with the status path (JSON names) it reads.
	ConfigMaps []ConfigMapExport `json:"configMaps,omitempty"`
	// ManualConfigMaps are spec.operatorSpec.configMaps entries that a
	// hand-written extension fills rather than a status path.
	ManualConfigMaps []string `json:"manualConfigMaps,omitempty"`
	// Secrets are the spec.operatorSpec.secrets entries the operator fetches
	// from Azure (keys, connection strings, endpoints).
	Secrets []string `json:"secrets,omitempty"`
	// NoDefaultAzureName says the operator does not default spec.azureName
	// from metadata.name (it generates one, e.g. a role assignment's UUID).
	NoDefaultAzureName bool `json:"noDefaultAzureName,omitempty"`
	// RootOneOf are the spec fields that are the alternatives of a one-of at
	// the root of the body: exactly one is set and its fields stand inline
	// beside name (their ARM path is empty).
	RootOneOf []string `json:"rootOneOf,omitempty"`
}

// ConfigMapExport is one value a kind can export to a config map.
type ConfigMapExport struct {
	// Name is the entry's JSON name under spec.operatorSpec.configMaps.
	Name string `json:"name"`
	// Status is the path of the value under .status, in JSON names.
	Status []string `json:"status"`
}

// ConfigMapExport finds the export named name, or nil.
func (k *Kind) ConfigMapExport(name string) *ConfigMapExport {
	if k.Operator == nil {
		return nil
	}
	for i := range k.Operator.ConfigMaps {
		if k.Operator.ConfigMaps[i].Name == name {
			return &k.Operator.ConfigMaps[i]
		}
	}
	return nil
}

// DefaultsAzureName reports whether the operator sets spec.azureName from
// metadata.name when the manifest leaves it out.
func (k *Kind) DefaultsAzureName() bool {
	return k.FixedName == "" && (k.Operator == nil || !k.Operator.NoDefaultAzureName) && k.Spec.Child("azureName") != nil
}

// ARMType is what the corpus shows about one ARM resource type across its
// api-versions (the recordings' answers, the REST specs' definitions),
// independent of the ASO kinds that map to it. Paths are ARM body paths,
// keys joined by ".".
type ARMType struct {
	// Type is the ARM resource type, e.g. "Microsoft.Storage/storageAccounts".
	Type string `json:"type"`
	// APIVersions are the api-versions the type is known to serve, oldest
	// first: those of the kinds mapping to it and those the REST specs define it at.
	APIVersions []string `json:"apiVersions,omitempty"`
	// NoDelete says every served kind mapping to the type (at least one)
	// has Kind.NoDelete: Azure deletes such resources only with their parent.
	NoDelete bool `json:"noDelete,omitempty"`
	// FixedNames are the names every resource of the type has, e.g.
	// ["default"] for a storage account's blobServices: the literal names
	// the REST spec allows (at its newest api-version read) and the kinds'
	// Kind.FixedName. Empty when users choose the name.
	FixedNames []string `json:"fixedNames,omitempty"`
	// ReadOnlyType says the REST spec (at its newest api-version read)
	// defines no PUT for the type: nobody creates such a resource (a file
	// service's usages). False for types whose REST spec was not read.
	ReadOnlyType bool `json:"readOnlyType,omitempty"`
	// Create and Update are how ARM answered a successful PUT that created,
	// or updated, a resource of the type in most recordings; nil when none shows it.
	Create *PutAnswer `json:"create,omitempty"`
	Update *PutAnswer `json:"update,omitempty"`
	// Filled are values ARM set at paths under "properties" that the PUT left
	// out, the same in at least two recordings and different in none, once
	// the resource's own values are written as placeholders: {id}, {name},
	// {location}, and {etag}, {guid}, {time} for values ARM generates.
	Filled []FilledValue `json:"filled,omitempty"`
	// SubResourceIDs are arrays of named objects whose items ARM gives an ID
	// (the resource's ID, Segment, the item's name), as the recordings show.
	SubResourceIDs []SubResourceID `json:"subResourceIds,omitempty"`
	// Actions are the POST actions the REST specs define on the type.
	Actions []Action `json:"actions,omitempty"`
	// CreateTiming, UpdateTiming and DeleteTiming are how long-running
	// operations that created, updated or deleted a resource of the type went
	// in the recordings; nil when none shows one (the operation answered at once).
	CreateTiming *Timing `json:"createTiming,omitempty"`
	UpdateTiming *Timing `json:"updateTiming,omitempty"`
	DeleteTiming *Timing `json:"deleteTiming,omitempty"`
}

// Timing is how a type's long-running operation went in the recordings.
type Timing struct {
	// Seconds is the median, over the recorded operations, of the time from
	// the start to the poll that saw the operation succeed, had the client
	// waited each answer's Retry-After (UnhintedPollSeconds where an answer
	// gave none). Recordings keep no clock, so this is the duration as a
	// client following ARM's hints observes it.
	Seconds float64 `json:"seconds"`
	// RetryAfter are the Retry-After seconds of the median operation's
	// answers in order, the answer that started it first, then each poll
	// that found it still running; 0 where an answer carried none. Nil when
	// no answer carried one.
	RetryAfter []int `json:"retryAfter,omitempty"`
	// Operations is how many recorded operations the timing is drawn from.
	Operations int `json:"operations"`
}

// UnhintedPollSeconds is the wait assumed between two polls when ARM's answer
// carried no Retry-After: the Azure SDKs' default poll interval.
const UnhintedPollSeconds = 30

// PutAnswer is the status code of a successful PUT and the header, if any,
// through which the client follows it ("Azure-AsyncOperation" or "Location").
type PutAnswer struct {
	Status int    `json:"status"`
	Async  string `json:"async,omitempty"`
}

// FilledValue is a value ARM fills in at Path.
type FilledValue struct {
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// SubResourceID says the items of the array at Path carry IDs {id}/Segment/{item name}.
type SubResourceID struct {
	Path    string `json:"path"`
	Segment string `json:"segment"`
}

// Action is a POST action on a resource ({id}/{Name}) and the shape of its answer.
type Action struct {
	Name   string `json:"name"`
	Output *Shape `json:"output,omitempty"`
}

// Shape is the outline of a JSON value as a REST spec defines it.
type Shape struct {
	Type   Type              `json:"type"`
	Fields map[string]*Shape `json:"fields,omitempty"`
	Items  *Shape            `json:"items,omitempty"`
	// Enum are the values a string may take (the first is used when one is needed).
	Enum []string `json:"enum,omitempty"`
	// Format is "date-time" for a string the recorded answers show as a time.
	Format string `json:"format,omitempty"`
}
