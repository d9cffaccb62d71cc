package graph

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Export is a config map value a resource publishes: a
// spec.operatorSpec.configMaps entry (a status value, as the operator's
// configuration says) or a spec.operatorSpec.configMapExpressions entry (CEL).
type Export struct {
	// ConfigMap and Key say where the value goes. Key is empty for an
	// expression yielding a map: each of its entries is a key.
	ConfigMap, Key string
	// Field is where the export is declared in the spec.
	Field string
	// Name is an operatorSpec.configMaps entry's name ("principalId").
	Name string
	// Status is the status path an operatorSpec.configMaps entry reads.
	Status []string
	// Program is a configMapExpressions entry's compiled expression.
	Program *expression.Program
	// Manual marks an operatorSpec.configMaps entry that the operator's
	// hand-written extension for the kind fills (extensions.ConfigExporter):
	// Value does not know it.
	Manual bool
}

// FromManifest reports whether the value is known from the manifest alone.
func (e Export) FromManifest() bool { return e.Program != nil && !e.Program.ReadsStatus }

// Value is the exported value for key. status is the exporter's status as
// read from Azure, or nil while it does not exist; ok is false while the
// value is not known. An error says the expression failed.
func (e Export) Value(from *Node, key string, status map[string]any) (value string, ok bool, err error) {
	switch {
	case e.Manual:
		return "", false, nil
	case e.Program != nil:
		if e.Program.ReadsStatus && status == nil {
			return "", false, nil
		}
		s, m, err := e.Program.Eval(from.Self(status), nil)
		if err != nil {
			return "", false, fmt.Errorf("%s: CEL expression %q: %v", e.Field, e.Program.Source, err)
		}
		if e.Program.Output == expression.Map {
			s, ok = m[key]
			return s, ok, nil
		}
		return s, true, nil
	case status != nil && len(e.Status) > 0:
		if v, found := armjson.Lookup(status, e.Status); found && v != nil {
			return fmt.Sprint(v), true, nil
		}
	}
	return "", false, nil
}

// exportsOf lists what n publishes into config maps. Expressions that do not
// compile are left out: validation reports them.
func exportsOf(n *Node) []Export {
	var out []Export
	for _, r := range n.Refs {
		if r.Field.Ref != registry.RefConfigMapExport {
			continue
		}
		name, key := yamlnode.String(r.Node, "name"), yamlnode.String(r.Node, "key")
		if name == "" || key == "" {
			continue
		}
		e := Export{ConfigMap: name, Key: key, Field: r.Path, Name: r.Field.Name}
		if x := n.Kind.ConfigMapExport(r.Field.Name); x != nil {
			e.Status = x.Status
		} else {
			e.Manual = true
		}
		out = append(out, e)
	}
	for _, x := range expressionEntries(n, "configMapExpressions") {
		out = append(out, Export{ConfigMap: x.name, Key: x.key, Field: x.field, Program: x.program})
	}
	return out
}

// expressionEntry is one entry of an operatorSpec expressions list, compiled.
type expressionEntry struct {
	item             *yaml.Node
	field, name, key string
	program          *expression.Program
}

// expressionEntries lists the entries of spec.operatorSpec.<list>
// (configMapExpressions, secretExpressions) that name their destination and
// compile. The others are left out: validation reports them.
func expressionEntries(n *Node, list string) []expressionEntry {
	expressions := yamlnode.Value(yamlnode.Value(yamlnode.Value(n.Object.Node.YNode(), "spec"), "operatorSpec"), list)
	if expressions == nil || expressions.Kind != yaml.SequenceNode {
		return nil
	}
	var out []expressionEntry
	for i, item := range expressions.Content {
		name := yamlnode.String(item, "name")
		if name == "" {
			continue
		}
		p, err := expression.Compile(n.Kind, yamlnode.String(item, "value"))
		if err != nil {
			continue
		}
		out = append(out, expressionEntry{item: item, field: fmt.Sprintf("spec.operatorSpec.%s[%d]", list, i), name: name, key: yamlnode.String(item, "key"), program: p})
	}
	return out
}

// Self is the resource as the operator's expressions see it (self): its
// apiVersion, kind, metadata, the spec after the operator's defaulting, and
// status (nil while the resource does not exist).
func (n *Node) Self(status map[string]any) map[string]any {
	root, _ := armjson.FromYAML(n.Object.Node.YNode()).(map[string]any)
	self := map[string]any{"apiVersion": n.Object.APIVersion, "kind": n.Object.Kind, "spec": n.Spec()}
	if md, ok := root["metadata"].(map[string]any); ok {
		self["metadata"] = md
	}
	if status != nil {
		self["status"] = status
	}
	return self
}

// Spec is the resource's spec after the operator's defaulting: azureName is
// set to the name the operator gives the resource when the manifest leaves it
// out (metadata.name, or the stable UUID of a role assignment).
func (n *Node) Spec() map[string]any {
	spec, _ := armjson.FromYAML(yamlnode.Value(n.Object.Node.YNode(), "spec")).(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	if name, _ := spec["azureName"].(string); name == "" && n.Kind.Spec.Child("azureName") != nil && n.Pending == "" && n.AzureName != "" {
		spec["azureName"] = n.AzureName
	}
	return spec
}
