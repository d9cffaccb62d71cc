package graph

import (
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
)

// Export is a config map value a resource publishes, from
// spec.operatorSpec.configMaps (a status field) or from a
// spec.operatorSpec.configMapExpressions entry.
type Export struct {
	ConfigMap, Key string
	// From is "status" (known once the resource exists), "spec" or
	// "metadata" (known from the manifest).
	From string
	// Path is the field's location under From, in Kubernetes JSON names.
	Path []string
	// Unsupported holds a CEL expression azk cannot evaluate; Path is empty then.
	Unsupported string
}

// fieldPathExpression is the CEL azk evaluates: a plain path into the object,
// such as self.status.principalId or self.metadata.name.
var fieldPathExpression = regexp.MustCompile(`^\s*self\.(status|spec|metadata)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$`)

// exportsOf lists what n publishes into config maps.
func exportsOf(n *Node) []Export {
	var out []Export
	for _, r := range n.Refs {
		if r.Field.Ref != registry.RefConfigMapExport {
			continue
		}
		name, key := stringAt(r.Node, "name"), stringAt(r.Node, "key")
		if name != "" && key != "" {
			out = append(out, Export{ConfigMap: name, Key: key, From: "status", Path: statusSource(n.Kind, r.Field.Name)})
		}
	}
	expressions := mapValue(mapValue(mapValue(n.Object.Node.YNode(), "spec"), "operatorSpec"), "configMapExpressions")
	if expressions == nil || expressions.Kind != yaml.SequenceNode {
		return out
	}
	for _, item := range expressions.Content {
		e := Export{ConfigMap: stringAt(item, "name"), Key: stringAt(item, "key")}
		if e.ConfigMap == "" || e.Key == "" {
			continue
		}
		value := stringAt(item, "value")
		if m := fieldPathExpression.FindStringSubmatch(value); m != nil {
			e.From, e.Path = m[1], strings.Split(m[2][1:], ".")
		} else {
			e.Unsupported = value
		}
		out = append(out, e)
	}
	return out
}

// statusSource is the status path an operatorSpec.configMaps entry exports:
// the status field of that name at the shallowest depth (principalId is
// identity.principalId on many kinds), or for storage's "<x>Endpoint" entries
// primaryEndpoints.<x>.
func statusSource(k *registry.Kind, name string) []string {
	if k.Status == nil {
		return nil
	}
	type candidate struct {
		f    *registry.Field
		path []string
	}
	level := []candidate{{k.Status, nil}}
	for len(level) > 0 {
		var next []candidate
		for _, c := range level {
			for _, child := range c.f.Fields {
				path := append(append([]string(nil), c.path...), child.Name)
				if child.Name == name && child.Type != registry.TypeObject {
					return path
				}
				if child.Type == registry.TypeObject {
					next = append(next, candidate{child, path})
				}
			}
		}
		level = next
	}
	if prefix, ok := strings.CutSuffix(name, "Endpoint"); ok {
		if endpoints := k.Status.Child("primaryEndpoints"); endpoints.Child(prefix) != nil {
			return []string{"primaryEndpoints", prefix}
		}
	}
	return nil
}

// ManifestValue is an export's value when the manifest alone gives it
// (From "spec" or "metadata").
func (e Export) ManifestValue(o *loader.Object) (string, bool) {
	if e.From == "metadata" && len(e.Path) == 1 {
		switch e.Path[0] {
		case "name":
			return o.Name, true
		case "namespace":
			return o.Namespace, true
		}
	}
	if e.From == "spec" {
		if v := stringAt(o.Node.YNode(), append([]string{"spec"}, e.Path...)...); v != "" {
			return v, true
		}
	}
	return "", false
}
