package graph

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/yamlnode"
)

// stableNameSpace is the UUIDv5 namespace the operator uses for role
// assignment and role definition names.
var stableNameSpace = uuid.MustParse("9a329043-7ad7-4b1c-812f-9c7a93d6392a")

// hasStableUUIDName reports whether the kind's Azure name defaults to the
// operator's stable UUID rather than metadata.name: its configuration says
// the name is not defaulted ($defaultAzureName: false), and its defaulter
// generates one (role assignments and definitions, Cosmos DB SQL role assignments).
func hasStableUUIDName(n *Node) bool {
	return n.Kind.Operator != nil && n.Kind.Operator.NoDefaultAzureName
}

// stableName assigns a role assignment or definition without spec.azureName the
// name the operator gives it: metadata.name when that already is a UUID, else a
// UUIDv5 over its owner and its own identity. With namingConvention random the
// name is unknown until the operator creates it, so azk refuses to guess.
func (b *builder) stableName(n *Node) bool {
	root := n.Object.Node.YNode()
	if yamlnode.String(root, "spec", "azureName") != "" {
		return true
	}
	if yamlnode.String(root, "spec", "operatorSpec", "namingConvention") == "random" {
		b.errorf(n.Object, loader.FieldLine(n.Object, "spec", "operatorSpec", "namingConvention"), "spec.operatorSpec.namingConvention",
			"namingConvention random gives a name that is unknown until the operator creates the resource; azk cannot plan it (set spec.azureName or use stable)")
		return false
	}
	if _, err := uuid.Parse(n.Object.Name); err == nil && len(n.Object.Name) == 36 {
		n.AzureName = n.Object.Name
		return true
	}
	owner := n.OwnerID
	if n.Owner != nil {
		o := n.Owner.Object
		owner = o.Group() + "/" + o.Kind + ":" + o.Namespace + "/" + o.Name
	}
	o := n.Object
	n.AzureName = uuid.NewSHA1(stableNameSpace, []byte(owner+":"+o.Kind+"/"+o.Group()+":"+o.Namespace+"/"+o.Name)).String()
	return true
}

// nameFromConfig applies spec.azureNameFromConfig: the Azure name is a config
// map value. A v1 ConfigMap in the input, or a value another resource exports
// from its manifest, gives it now; a value from another resource's status
// exists only once that resource is applied, so the node is left Pending.
// It returns false when no ARM ID can be built.
func (b *builder) nameFromConfig(n *Node) bool {
	for _, e := range n.Edges {
		if e.Kind != EdgeConfigMap || e.Field != "spec.azureNameFromConfig" {
			continue
		}
		name, key := e.ConfigMapKey()
		switch {
		case e.Object != nil:
			if v, ok := e.Object.Value(key); ok && v != "" {
				n.AzureName = v
				return true
			}
		case e.To != nil:
			if x, ok := e.To.Export(name, key); ok && x.FromManifest() {
				if v, ok, _ := x.Value(e.To, key, nil); ok && v != "" {
					n.AzureName = v
					return true
				}
			}
			n.Pending = fmt.Sprintf("its Azure name comes from %s's status (%s), known once that exists in Azure: apply again afterwards, or set spec.azureName",
				e.To.Address(), e.Field)
			n.nameSource = e
			src := n.Object.Source
			src.Line = e.Ref.Line
			b.diags.Add(diag.Warningf(src, n.Address(), e.Field, "%s", n.Pending))
			return false
		}
	}
	return true
}
