// Package registry holds the facts azk knows about every ASO kind: its ARM
// resource type and api-version, where it lives (scope), which kinds may own
// it, and the schema of its spec and status with the ARM location of every
// field. The facts are generated from the ASO corpus by ./gen and embedded.
package registry

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
	// NullCollections says the operator sends every unset list and map inside
	// the objects of its PUT body as an explicit null (its explicit-collections
	// payload mode), as its recorded requests for the kind's group show.
	NullCollections bool `json:"nullCollections,omitempty"`
	// EmptyCollections are the ARM paths (keys joined by ".", list items as
	// "[]") of collections that, with NullCollections, the operator sends as
	// an empty list or map rather than null, as its recorded requests show.
	EmptyCollections []string `json:"emptyCollections,omitempty"`
	// Observed is what the corpus recordings show ARM does with the values
	// it is sent for this ARM type; nil when no recording shows anything.
	Observed *Observed `json:"observed,omitempty"`
	// Spec is the schema of .spec; every field carries where it lands in the ARM PUT body.
	Spec *Field `json:"spec,omitempty"`
	// Status is the schema of .status; every field carries where it is read from in the ARM GET body.
	Status *Field `json:"status,omitempty"`
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

// Observed are facts about an ARM type that no schema carries, learnt by
// comparing each recorded PUT body with the body of the last successful GET
// that followed it. Paths are ARM body paths with array items as "[]", e.g.
// "properties.workloadProfiles[].name". The zero Observed knows nothing.
type Observed struct {
	// WriteOnly are paths ARM accepted at this api-version but left out of
	// every GET after a PUT that set them: they cannot be read back.
	WriteOnly []string `json:"writeOnly,omitempty"`
	// CaseFolded are string paths whose value ARM returned at this
	// api-version in another case than it was sent.
	CaseFolded []string `json:"caseFolded,omitempty"`
	// Rewrites are values ARM stored as another value, the same way in at
	// least two recordings of the ARM type (at any api-version): a
	// normalisation, not a value ARM assigned at random.
	Rewrites []Rewrite `json:"rewrites,omitempty"`
	// AddedItems are items of arrays of named objects that ARM added when a
	// PUT left them out, in at least two recordings of the ARM type.
	AddedItems []AddedItem `json:"addedItems,omitempty"`
}

// Rewrite is one value ARM stores in place of the one sent.
type Rewrite struct {
	Path   string `json:"path"`
	Sent   any    `json:"sent"`
	Stored any    `json:"stored"`
}

// AddedItem is an item ARM keeps in an array of named objects.
type AddedItem struct {
	Path string `json:"path"`
	Name string `json:"name"`
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
}

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
