package corpusgen

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// Payload types of the operator's configuration ($payloadType).
const (
	payloadExplicitCollections      = "explicitCollections"
	payloadExplicitEmptyCollections = "explicitEmptyCollections"
)

// operatorFacts sets what the operator's configuration says about kind k
// (k.Operator, k.NullCollections, k.EmptyCollections, the ARM paths of
// root one-of alternatives). storage is the schema of k's storage version,
// whose descriptions name the Go type of every object, so that facts given
// per type land on the right fields. It returns the facts it could not place.
func (b *builder) operatorFacts(k *registry.Kind, served, storage *schema, gc *groupConfig) []string {
	if gc == nil || !k.IsARM() {
		return nil
	}
	var unplaced []string
	miss := func(format string, args ...any) {
		unplaced = append(unplaced, fmt.Sprintf("%s/%s/%s: ", k.Group, k.Version, k.Kind)+fmt.Sprintf(format, args...))
	}
	k.NullCollections = gc.payloadType == payloadExplicitCollections
	tc, types := gc.resource(k.APIVersion, k.Kind)
	places := storageTypes(storage)
	op := &registry.Operator{}
	if tc != nil {
		operatorSpec := k.Spec.Child("operatorSpec")
		configMaps, secrets := operatorSpec.Child("configMaps"), operatorSpec.Child("secrets")
		for _, g := range tc.generatedConfigs {
			name := childNamed(configMaps, g.name)
			path, ok := statusPath(k.Status, g.status)
			if name == "" || !ok {
				miss("$generatedConfigs %s: $.Status.%s is not in the schema", g.name, strings.Join(g.status, "."))
				continue
			}
			op.ConfigMaps = append(op.ConfigMaps, registry.ConfigMapExport{Name: name, Status: path})
		}
		for _, m := range tc.manualConfigs {
			if name := childNamed(configMaps, m); name != "" {
				op.ManualConfigMaps = append(op.ManualConfigMaps, name)
			} else {
				miss("$manualConfigs %s is not under spec.operatorSpec.configMaps", m)
			}
		}
		for _, s := range tc.generatedSecrets {
			if name := childNamed(secrets, s); name != "" {
				op.Secrets = append(op.Secrets, name)
			} else {
				miss("$azureGeneratedSecrets %s is not under spec.operatorSpec.secrets", s)
			}
		}
		op.NoDefaultAzureName = tc.defaultAzureName != nil && !*tc.defaultAzureName
		op.RootOneOf = inlineEmbedded(k.Spec, served.Properties["spec"], "spec", tc, types, places)
		inlineEmbedded(k.Status, served.Properties["status"], "status", tc, types, places)
	}
	if k.NullCollections {
		k.EmptyCollections = b.emptyCollections(k, types, places, miss)
	}
	if len(op.ConfigMaps)+len(op.ManualConfigMaps)+len(op.Secrets)+len(op.RootOneOf) > 0 || op.NoDefaultAzureName {
		k.Operator = op
	}
	return unplaced
}

// inlineEmbedded gives an empty ARM path to each root field (of spec or
// status) whose type is configured as embedded in the resource itself: the
// alternatives of a one-of that stand inline at the body root. It returns
// their names. Types embedded in their parent that are not alternatives of
// a one-of (an Azure Firewall's IP configurations) keep their place.
func inlineEmbedded(root *registry.Field, s *schema, at string, resource *typeConfig, types map[string]*typeConfig, places map[string]string) []string {
	if root == nil || s == nil {
		return nil
	}
	var names []string
	for _, f := range root.Fields {
		tc := typeNamed(types, places[at+"."+f.Name])
		if tc == nil || f.ARM == nil || normalize(tc.embeddedInParent) != normalize(resource.name) {
			continue
		}
		if p := s.Properties[f.Name]; p == nil || !strings.Contains(strings.Join(strings.Fields(p.Description), " "), oneOfMarker) {
			continue
		}
		f.ARM = []string{}
		names = append(names, f.Name)
	}
	return names
}

// emptyCollections lists the ARM paths of the collections configured as
// sent empty rather than null ($payloadType: explicitEmptyCollections on a
// property), wherever their type stands in the body: found through the spec
// (storage schema), or for types the spec flattens, through the REST spec.
func (b *builder) emptyCollections(k *registry.Kind, types map[string]*typeConfig, places map[string]string, miss func(string, ...any)) []string {
	placed := map[string][]string{} // normalized Go type -> spec JSON paths
	for path, goType := range places {
		if rest, ok := strings.CutPrefix(path, "spec"); ok {
			placed[normalize(goType)] = append(placed[normalize(goType)], rest)
		}
	}
	var arm map[string]armPlace
	var out []string
	for _, tc := range types {
		for _, key := range tc.propertyNamesOrder {
			pc := tc.properties[key]
			if pc.payloadType != payloadExplicitEmptyCollections {
				continue
			}
			paths := placed[normalize(tc.name)]
			if tc.renameTo != "" {
				paths = append(paths, placed[normalize(tc.renameTo)]...)
			}
			for _, rest := range paths {
				if p, ok := armPathOf(k.Spec, rest, pc.name); ok {
					out = append(out, p)
				} else {
					miss("%s.%s: explicitEmptyCollections property has no ARM path", tc.name, pc.name)
				}
			}
			if len(paths) > 0 {
				continue
			}
			if arm == nil {
				arm = b.armTypeNames(k.ARMType, k.APIVersion)
			}
			if place, ok := arm[normalize(tc.name)]; ok {
				for _, prop := range place.props {
					if normalize(prop) == key {
						out = append(out, dotted(place.path, prop))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// armPathOf finds the field at the JSON path rest (".a.b[]", "" for the
// root) of spec, then its property named like goName, and spells where that
// lands in the ARM body: keys joined by ".", list items as "[]".
func armPathOf(spec *registry.Field, rest, goName string) (string, bool) {
	f, arm := spec, ""
	for _, seg := range splitJSONPath(rest) {
		switch seg {
		case "[]":
			f, arm = f.Items, arm+"[]"
		case "{}":
			return "", false // a map of objects: no fixed path
		default:
			f = f.Child(seg)
			if f == nil || f.ARM == nil {
				return "", false
			}
			arm = dotted(arm, strings.Join(f.ARM, "."))
		}
		if f == nil {
			return "", false
		}
	}
	name := childNamed(f, goName)
	if name == "" {
		return "", false
	}
	prop := f.Child(name)
	if len(prop.ARM) == 0 {
		return "", false
	}
	return dotted(arm, strings.Join(prop.ARM, ".")), true
}

// splitJSONPath splits ".a.b[].c" into a, b, [], c (and map values as {}).
func splitJSONPath(p string) []string {
	var out []string
	for _, seg := range strings.Split(p, ".") {
		var suffixes []string
		for {
			if rest, ok := strings.CutSuffix(seg, "[]"); ok {
				seg, suffixes = rest, append([]string{"[]"}, suffixes...)
			} else if rest, ok := strings.CutSuffix(seg, "{}"); ok {
				seg, suffixes = rest, append([]string{"{}"}, suffixes...)
			} else {
				break
			}
		}
		if seg != "" {
			out = append(out, seg)
		}
		out = append(out, suffixes...)
	}
	return out
}

// storageTypes maps each JSON path of a storage version's schema
// ("spec.agentPoolProfiles[]") to the Go type its description names
// ("Storage version of v1api20240901.ManagedClusterAgentPoolProfile").
func storageTypes(root *schema) map[string]string {
	out := map[string]string{}
	var walk func(s *schema, path string)
	walk = func(s *schema, path string) {
		if s == nil {
			return
		}
		if goType := storageTypeName(s.Description); goType != "" {
			out[path] = goType
		}
		for name, p := range s.Properties {
			walk(p, strings.TrimPrefix(path+"."+name, "."))
		}
		walk(s.Items, path+"[]")
		walk(s.AdditionalProperties, path+"{}")
	}
	walk(root, "")
	return out
}

const storagePrefix = "Storage version of "

// storageTypeName reads the Go type from a storage schema's description.
func storageTypeName(description string) string {
	rest, ok := strings.CutPrefix(description, storagePrefix)
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "\n")
	_, name, ok := strings.Cut(rest, ".")
	if !ok {
		return ""
	}
	return strings.TrimSpace(name)
}

// childNamed is the JSON name of f's field spelt like goName, or "".
func childNamed(f *registry.Field, goName string) string {
	if f == nil {
		return ""
	}
	for _, c := range f.Fields {
		if normalize(c.Name) == normalize(goName) {
			return c.Name
		}
	}
	return ""
}

// statusPath spells a Go path under Status in the status schema's JSON names.
func statusPath(status *registry.Field, goPath []string) ([]string, bool) {
	f := status
	out := make([]string, 0, len(goPath))
	for _, seg := range goPath {
		name := childNamed(f, seg)
		if name == "" {
			return nil, false
		}
		out = append(out, name)
		f = f.Child(name)
	}
	return out, f != nil && f.Type != registry.TypeObject
}

// storageSchema returns the schema of the storage variant of version name.
func storageSchema(c *crd, name string) *schema {
	for _, v := range c.Spec.Versions {
		if v.Name == name+"storage" {
			return v.Schema.OpenAPIV3Schema
		}
	}
	return nil
}

// dotted joins two ARM paths spelt with ".".
func dotted(base, rest string) string {
	if base == "" {
		return rest
	}
	return base + "." + rest
}

// armTypeNames maps the REST spec's object type names to the ARM body paths
// where they stand ("ManagedClusterAgentPoolProfileProperties" -> "properties"),
// for the resource type armType at apiVersion, from the REST specifications'
// types. It places the types the operator flattens into the spec, which the
// storage schema does not name. Nil when the types are absent.
func (b *builder) armTypeNames(armType, apiVersion string) map[string]armPlace {
	files, _ := filepath.Glob(filepath.Join(b.armTypes, "*", strings.ToLower(strings.Split(armType, "/")[0]), apiVersion, "types.json"))
	for _, file := range files {
		types, err := readTypes(file)
		if err != nil {
			continue
		}
		for _, t := range types {
			if t.Type == "ResourceType" && t.Body != nil && strings.EqualFold(t.Name, armType+"@"+apiVersion) {
				out := map[string]armPlace{}
				walkPlaces(types, *t.Body, "", out, map[int]bool{})
				return out
			}
		}
	}
	return nil
}

// armPlace is where an object type stands in the ARM body, and the JSON
// names of its properties.
type armPlace struct {
	path  string
	props []string
}

func walkPlaces(types []typeNode, ref typeRef, path string, out map[string]armPlace, seen map[int]bool) {
	i, err := ref.index()
	if err != nil || i < 0 || i >= len(types) || seen[i] {
		return
	}
	seen[i] = true
	defer delete(seen, i)
	t := types[i]
	switch t.Type {
	case "ObjectType":
		if _, dup := out[normalize(t.Name)]; !dup && path != "" {
			place := armPlace{path: path}
			for name := range t.Properties {
				place.props = append(place.props, name)
			}
			out[normalize(t.Name)] = place
		}
		for name, p := range t.Properties {
			walkPlaces(types, p.Type, dotted(path, name), out, seen)
		}
	case "ArrayType":
		if t.ItemType != nil {
			walkPlaces(types, *t.ItemType, path+"[]", out, seen)
		}
	}
}
