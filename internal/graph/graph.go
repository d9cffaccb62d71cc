// Package graph resolves loaded ASO objects into a dependency graph: owners,
// resource references, secret and config-map references become edges, and
// every resource gets the ARM ID the operator would give it.
package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/validate"
)

// SubscriptionPlaceholder stands in ARM IDs when no subscription is known.
const SubscriptionPlaceholder = armid.SubscriptionPlaceholder

// EdgeKind says why one resource depends on another.
type EdgeKind string

const (
	EdgeOwner     EdgeKind = "owner"
	EdgeReference EdgeKind = "reference"
	EdgeSecret    EdgeKind = "secret"
	EdgeConfigMap EdgeKind = "configMap"
)

// Edge is one dependency of a node, found at Field in its spec. Exactly one of
// To (an ASO resource in the input), Object (a v1 Secret or ConfigMap in the
// input) or ARMID (an armId reference outside the input) is set, except for
// secret and config-map references that the input does not satisfy, which
// later stages resolve from the environment.
type Edge struct {
	Kind  EdgeKind `json:"kind"`
	Field string   `json:"field"`
	// To is the resource depended on. For a config-map or secret reference
	// it is the resource exporting that config map or Secret, when one does.
	To     *Node          `json:"-"`
	Object *loader.Object `json:"-"`
	ARMID  string         `json:"armId,omitempty"`
	// Ref is the reference as found in the spec.
	Ref validate.Ref `json:"-"`
}

// Node is one ASO resource of the input.
type Node struct {
	Object *loader.Object
	Kind   *registry.Kind
	// AzureName is spec.azureName, the kind's fixed name, or metadata.name.
	AzureName string
	// ID is the resource's ARM ID; empty for kinds that are not ARM resources.
	ID string
	// Owner is the owning node when the owner is in the input.
	Owner *Node
	// OwnerID is the owner's ARM ID, whether it is in the input or an armId.
	OwnerID string
	// Edges are this node's dependencies, owner first, then in document order.
	Edges []*Edge
	// Refs are every reference field found in the spec, in document order.
	Refs []validate.Ref
	// Pending says why the ARM ID is not known yet (its Azure name is another
	// resource's status value); ID is empty then, and plans block the resource
	// unless that resource exists already (see NameSource and Graph.Name).
	Pending string
	// nameSource is the azureNameFromConfig edge a Pending name waits for.
	nameSource *Edge
	// Exports are the config map values this resource publishes.
	Exports []Export
	// SecretExports are the Secret values this resource publishes.
	SecretExports []SecretExport
	// IgnoreChanges are the ARM body paths whose Azure value the resource's
	// ignore-changes annotation keeps (AnnotationIgnoreChanges).
	IgnoreChanges []armjson.Path
	// ReplaceOnChange are the ARM body paths the resource's replace-on-change
	// annotation declares create-only (AnnotationReplaceOnChange).
	ReplaceOnChange []armjson.Path
	// Credential is the v1 Secret named by the serviceoperator.azure.com/credential-from
	// annotation: the identity, and subscription, the operator uses for this resource.
	Credential *loader.Object

	index int // position in the input, for stable ordering
}

// NameSource is the config-map edge n's Azure name waits for, while Pending:
// the exporting resource is Edge.To, the config map name and key are in Edge.Ref.
func (n *Node) NameSource() *Edge { return n.nameSource }

// Name gives a Pending node its Azure name, once known (from the exporting
// resource's status), and computes its ARM ID and those of its pending children.
func (g *Graph) Name(n *Node, azureName string) error {
	id, err := IDFor(n.Kind, n.OwnerID, g.subscriptionFor(n), azureName)
	if err != nil {
		return err
	}
	n.AzureName, n.ID, n.Pending, n.nameSource = azureName, id, "", nil
	for _, c := range g.Nodes {
		if c.Owner == n && c.Pending != "" && c.nameSource == nil {
			c.OwnerID = id
			if err := g.Name(c, c.AzureName); err != nil {
				return err
			}
		}
	}
	return nil
}

// NameFromStatus names a Pending node from the status of the resource its
// Azure name comes from (status as convert.Status reads an ARM body). It
// reports false, and no error, when the status does not hold the name yet.
func (g *Graph) NameFromStatus(n *Node, status map[string]any) (bool, error) {
	src := n.nameSource
	if src == nil || src.To == nil {
		return false, fmt.Errorf("%s does not take its Azure name from another resource", n.Address())
	}
	name, key := src.ConfigMapKey()
	e, ok := src.To.Export(name, key)
	if !ok {
		return false, fmt.Errorf("%s exports no value for the Azure name of %s", src.To.Address(), n.Address())
	}
	v, ok, err := e.Value(src.To, key, status)
	if err != nil || !ok || v == "" {
		return false, err
	}
	return true, g.Name(n, v)
}

// Export finds what n publishes to config map name, key: the entry for that
// key, else an expression yielding a map of keys for that config map.
func (n *Node) Export(name, key string) (Export, bool) {
	return findExport(n.Exports, name, key, func(e Export) (string, string) { return e.ConfigMap, e.Key })
}

// findExport is the export writing key of destination name: the entry for
// that key, else the first expression yielding a map of keys for name.
// destination says where an export writes: its config map or Secret and key.
func findExport[E any](exports []E, name, key string, destination func(E) (name, key string)) (E, bool) {
	found := -1
	for i, e := range exports {
		switch n, k := destination(e); {
		case n == name && k == key:
			return e, true
		case n == name && k == "" && found < 0:
			found = i
		}
	}
	if found >= 0 {
		return exports[found], true
	}
	var none E
	return none, false
}

// Address is the node's "group/Kind/namespace/name".
func (n *Node) Address() string { return n.Object.Address() }

// DependsOn lists the distinct input resources n depends on, in edge order.
func (n *Node) DependsOn() []*Node {
	var deps []*Node
	for _, e := range n.Edges {
		// A node has a few edges: a scan finds those seen without a map.
		if e.To != nil && !slices.Contains(deps, e.To) {
			deps = append(deps, e.To)
		}
	}
	return deps
}

// Graph is the resolved input.
type Graph struct {
	// Nodes are in dependency order: every node after everything it depends on,
	// ties broken by input order.
	Nodes []*Node
	// Secrets and ConfigMaps are the v1 objects of the input, by namespace/name.
	Secrets    map[string]*loader.Object
	ConfigMaps map[string]*loader.Object
	// Namespaces are the v1 Namespaces of the input, by name.
	Namespaces map[string]*loader.Object
	// DefaultPolicy is the operator-wide reconcile policy
	// (Options.DefaultReconcilePolicy); empty for none.
	DefaultPolicy string
	// Subscription is the subscription ID used in ARM IDs, or SubscriptionPlaceholder.
	Subscription string
	// Outside are the input's resources a selection (Select) left out: in
	// the manifests, though not acted on.
	Outside []*Node
	// Others are the input's objects of kinds azk does not read
	// (loader.Result.Others): still declared, so never planned for deletion.
	Others []*loader.Object
}

// Declares is the first object of the input, among Nodes, Outside and
// Others, of that kind (ignoring case), namespace and name; nil when none is.
// A three-way plan asks it before deleting what the base declared.
func (g *Graph) Declares(kind, namespace, name string) *loader.Object {
	match := func(o *loader.Object) bool {
		return strings.EqualFold(o.Kind, kind) && o.Namespace == namespace && o.Name == name
	}
	for _, nodes := range [][]*Node{g.Nodes, g.Outside} {
		for _, n := range nodes {
			if match(n.Object) {
				return n.Object
			}
		}
	}
	for _, o := range g.Others {
		if match(o) {
			return o
		}
	}
	return nil
}

// Dependents maps each node to the nodes that depend on it directly.
func (g *Graph) Dependents() map[*Node][]*Node {
	out := make(map[*Node][]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, d := range n.DependsOn() {
			out[d] = append(out[d], n)
		}
	}
	return out
}
