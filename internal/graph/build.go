package graph

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/suggest"
	"github.com/azkcli/azk/internal/validate"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Options configure Build. The zero Options use the embedded registry and no subscription.
type Options struct {
	// Registry defaults to registry.Default().
	Registry *registry.Registry
	// Subscription is used in ARM IDs. When empty, the subscription of the first
	// armId owner is used, else SubscriptionPlaceholder.
	Subscription string
	// DefaultReconcilePolicy is the operator-wide reconcile policy
	// (--default-reconcile-policy, the operator's DEFAULT_RECONCILE_POLICY);
	// empty for none.
	DefaultReconcilePolicy string
}

// Build resolves the loaded input into a graph, returning every problem found.
// The graph is returned even when there are errors, holding what could be resolved.
func Build(in *loader.Result, opts Options) (*Graph, diag.List) {
	reg := opts.Registry
	if reg == nil {
		reg = registry.Default()
	}
	b := &builder{
		reg: reg,
		g: &Graph{
			Secrets:    byNamespacedName(in.Secrets),
			ConfigMaps: byNamespacedName(in.ConfigMaps),
			Namespaces: byName(in.Namespaces),
			Others:     in.Others,
		},
		byKey: map[string]*Node{},
	}
	for _, ns := range in.Namespaces {
		b.namespacePolicy(ns)
		b.driftAnnotation(ns)
	}
	b.g.DefaultPolicy = b.defaultPolicy(opts.DefaultReconcilePolicy)
	nodes := b.kinds(in.Resources)
	b.exports(nodes)
	b.secretExports(nodes)
	for _, n := range nodes {
		b.resolve(n)
		b.credential(n)
		b.ignoreChanges(n)
		b.replaceOnChange(n)
	}
	b.g.Subscription = b.subscription(opts.Subscription, nodes)
	b.g.Nodes = b.order(nodes)
	b.identify()
	return b.g, b.diags
}

type builder struct {
	reg   *registry.Registry
	g     *Graph
	byKey map[string]*Node // namespace/group/kind/name
	// exporters maps namespace/configMapName/key to the node exporting it.
	exporters map[string]*Node
	// secretExporters maps namespace/secretName to the node exporting it.
	secretExporters map[string]*Node
	diags           diag.List
}

func byNamespacedName(objs []*loader.Object) map[string]*loader.Object {
	m := make(map[string]*loader.Object, len(objs))
	for _, o := range objs {
		m[o.Namespace+"/"+o.Name] = o
	}
	return m
}

func byName(objs []*loader.Object) map[string]*loader.Object {
	m := make(map[string]*loader.Object, len(objs))
	for _, o := range objs {
		m[o.Name] = o
	}
	return m
}

func nodeKey(namespace, group, kind, name string) string {
	return namespace + "/" + group + "/" + kind + "/" + name
}

func (b *builder) errorf(o *loader.Object, line int, field, format string, args ...any) {
	src := o.Source
	if line > 0 {
		src.Line = line
	}
	b.diags.Add(diag.Errorf(src, o.Address(), field, format, args...))
}

// kinds looks up each object's kind, checks its spec and annotations, and
// returns the nodes of the objects whose kind is known.
func (b *builder) kinds(objs []*loader.Object) []*Node {
	nodes := make([]*Node, 0, len(objs))
	for i, o := range objs {
		k, ok := b.reg.Lookup(o.Group(), o.Version(), o.Kind)
		if !ok {
			b.errorf(o, loader.FieldLine(o, "apiVersion"), "apiVersion", "%s", b.unknownKind(o))
			continue
		}
		refs, diags := validate.Spec(o, k)
		b.diags = append(b.diags, diags...)
		b.policies(o)
		b.driftAnnotation(o)
		n := &Node{Object: o, Kind: k, Refs: refs, index: i}
		n.AzureName = azureName(o, k)
		if !k.IsARM() {
			b.diags.Add(diag.Warningf(o.Source, o.Address(), "",
				"%s is not an ARM resource (the operator manages it outside Azure Resource Manager); azk validates it but cannot plan it", k.Kind))
		}
		b.byKey[nodeKey(o.Namespace, o.Group(), o.Kind, o.Name)] = n
		nodes = append(nodes, n)
	}
	return nodes
}

// unknownKind explains an apiVersion/kind the registry does not serve and
// suggests what was probably meant: the served version nearest in date, the
// served group nearest by spelling, the kind of that name in another group,
// or the nearest kind by spelling.
func (b *builder) unknownKind(o *loader.Object) string {
	group, version, kind := o.Group(), o.Version(), o.Kind
	if versions := b.reg.Versions(group, kind); len(versions) > 0 {
		return fmt.Sprintf("%s %s is not served by ASO v2; served versions: %s (nearest: %s/%s)",
			kind, o.APIVersion, strings.Join(versions, ", "), group, registry.NearestVersion(version, versions))
	}
	kinds := map[string][]string{} // group -> its kinds
	var sameName []string          // groups serving a kind of this name
	for _, gvk := range b.reg.All() {
		if !slices.Contains(kinds[gvk.Group], gvk.Kind) {
			kinds[gvk.Group] = append(kinds[gvk.Group], gvk.Kind)
			if strings.EqualFold(gvk.Kind, kind) {
				sameName = append(sameName, gvk.Group)
			}
		}
	}
	// nearest is the kind of g named kind, ignoring case, else the nearest by spelling.
	nearest := func(g string) string {
		if i := slices.IndexFunc(kinds[g], func(k string) bool { return strings.EqualFold(k, kind) }); i >= 0 {
			return kinds[g][i]
		}
		return suggest.Nearest(kind, kinds[g])
	}
	meant := func(g, k string) string {
		return fmt.Sprintf("%s/%s %s", g, registry.NearestVersion(version, b.reg.Versions(g, k)), k)
	}
	if kinds[group] == nil {
		// Most often a slip in typing the group (storage.azure.con,
		// Storage.azure.com: lookups are case-sensitive): name the served
		// group nearest by spelling, preferring those serving the kind.
		g := suggest.Nearest(group, sameName)
		if g == "" {
			g = suggest.Nearest(group, slices.Sorted(maps.Keys(kinds)))
		}
		if g == "" && len(sameName) > 0 {
			g = sameName[0]
		}
		notASO := fmt.Sprintf("apiVersion group %q is not an ASO group", group)
		if g == "" {
			return fmt.Sprintf("%s, and %s is not an ASO v2 resource kind", notASO, kind)
		}
		if k := nearest(g); k != "" {
			return fmt.Sprintf("%s; did you mean %s?", notASO, meant(g, k))
		}
		return fmt.Sprintf("%s; did you mean %s? It serves no kind like %s", notASO, g, kind)
	}
	if len(sameName) > 0 {
		g := suggest.Nearest(group, sameName)
		if g == "" {
			g = sameName[0]
		}
		return fmt.Sprintf("unknown kind %s in %s; did you mean %s?", kind, group, meant(g, nearest(g)))
	}
	if nearKind := nearest(group); nearKind != "" {
		return fmt.Sprintf("unknown kind %s %s; did you mean %s?", o.APIVersion, kind, meant(group, nearKind))
	}
	return fmt.Sprintf("unknown kind %s %s: not an ASO v2 resource kind", o.APIVersion, kind)
}

func azureName(o *loader.Object, k *registry.Kind) string {
	if k.FixedName != "" {
		return k.FixedName
	}
	if v := yamlnode.String(o.Node.YNode(), "spec", "azureName"); v != "" {
		return v
	}
	return o.Name
}

// keyLine is the line of key in a mapping node, else line.
func keyLine(n *yaml.Node, key string, line int) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return line
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return line
}

// exports indexes the config maps that resources publish, so references to
// them become edges.
func (b *builder) exports(nodes []*Node) {
	b.exporters = map[string]*Node{}
	for _, n := range nodes {
		n.Exports = exportsOf(n)
		for _, e := range n.Exports {
			k := n.Object.Namespace + "/" + e.ConfigMap + "/" + e.Key
			if other, dup := b.exporters[k]; dup && other != n {
				b.errorf(n.Object, loader.FieldLine(n.Object, "spec", "operatorSpec"), "spec.operatorSpec", "config map %s key %s is also exported by %s (%s)",
					e.ConfigMap, e.Key, other.Address(), other.Object.Source)
				continue
			}
			b.exporters[k] = n
			if e.FromManifest() {
				// Known now: an expression that fails here fails for the operator too.
				if _, _, err := e.Value(n, e.Key, nil); err != nil {
					b.errorf(n.Object, loader.FieldLine(n.Object, "spec", "operatorSpec"), e.Field, "%v", err)
				}
			}
		}
	}
}

// resolve turns n's owner and references into edges.
func (b *builder) resolve(n *Node) {
	for _, r := range n.Refs {
		switch r.Field.Ref {
		case registry.RefOwner:
			if r.Path == "spec.owner" {
				b.owner(n, r)
			}
		case registry.RefResource, registry.RefWellKnown:
			b.reference(n, r)
		case registry.RefSecret, registry.RefSecretMap:
			b.secret(n, r)
		case registry.RefConfigMap:
			b.configMap(n, r)
		}
	}
	if n.Kind.IsARM() && len(n.Kind.Owners) > 0 && n.OwnerID == "" && n.Owner == nil && !hasOwnerField(n) {
		b.errorf(n.Object, 0, "spec.owner", "owner is required: a %s", ownerKinds(n.Kind))
	}
}

func hasOwnerField(n *Node) bool {
	for _, r := range n.Refs {
		if r.Path == "spec.owner" {
			return true
		}
	}
	return false
}

func ownerKinds(k *registry.Kind) string {
	names := make([]string, len(k.Owners))
	for i, o := range k.Owners {
		names[i] = o.Kind
	}
	return strings.Join(names, " or ")
}

func (b *builder) owner(n *Node, r validate.Ref) {
	o := n.Object
	if armID := yamlnode.String(r.Node, "armId"); armID != "" {
		if err := checkARMID(armID); err != nil {
			b.errorf(o, keyLine(r.Node, "armId", r.Line), r.Path+".armId", "%v", err)
			return
		}
		n.OwnerID = armID
		n.Edges = append(n.Edges, &Edge{Kind: EdgeOwner, Field: r.Path, ARMID: armID, Ref: r})
		return
	}
	name := yamlnode.String(r.Node, "name")
	if name == "" {
		b.errorf(o, r.Line, r.Path, "owner needs a name or an armId")
		return
	}
	group, kind := yamlnode.String(r.Node, "group"), yamlnode.String(r.Node, "kind")
	candidates := n.Kind.Owners
	if kind != "" {
		if len(candidates) > 0 && !containsGroupKind(candidates, group, kind) {
			b.errorf(o, r.Line, r.Path, "owner kind %s/%s is not allowed for %s: the owner must be a %s",
				group, kind, n.Kind.Kind, ownerKinds(n.Kind))
			return
		}
		candidates = []registry.GroupKind{{Group: group, Kind: kind}}
	}
	for _, c := range candidates {
		if target := b.byKey[nodeKey(o.Namespace, c.Group, c.Kind, name)]; target != nil {
			n.Owner = target
			n.Edges = append([]*Edge{{Kind: EdgeOwner, Field: r.Path, To: target, Ref: r}}, n.Edges...)
			return
		}
	}
	if len(candidates) == 0 {
		b.errorf(o, r.Line, r.Path, "owner %q needs group and kind: %s can be owned by any resource", name, n.Kind.Kind)
		return
	}
	if other := b.anyNamed(o.Namespace, name); other != nil {
		b.errorf(o, r.Line, r.Path, "owner %q must be a %s, but %s is a %s (%s)",
			name, ownerKinds(n.Kind), name, other.Kind.Kind, other.Object.Source)
		return
	}
	b.errorf(o, r.Line, r.Path, "owner %s %q is not in the input (use armId for a resource that azk does not manage)",
		ownerKinds(n.Kind), name)
}

func containsGroupKind(list []registry.GroupKind, group, kind string) bool {
	for _, gk := range list {
		if gk.Kind == kind && (group == "" || gk.Group == group) {
			return true
		}
	}
	return false
}

// anyNamed finds a resource of any kind with the name, to explain wrong-kind owners.
func (b *builder) anyNamed(namespace, name string) *Node {
	var keys []string
	for k := range b.byKey {
		if strings.HasPrefix(k, namespace+"/") && strings.HasSuffix(k, "/"+name) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	return b.byKey[keys[0]]
}

func (b *builder) reference(n *Node, r validate.Ref) {
	o := n.Object
	if r.Node.Kind != yaml.MappingNode {
		return // the schema check reports the type
	}
	if armID := yamlnode.String(r.Node, "armId"); armID != "" {
		if err := checkARMID(armID); err != nil {
			b.errorf(o, keyLine(r.Node, "armId", r.Line), r.Path+".armId", "%v", err)
			return
		}
		if yamlnode.String(r.Node, "name") != "" {
			b.errorf(o, r.Line, r.Path, "set either armId or group/kind/name, not both")
		}
		n.Edges = append(n.Edges, &Edge{Kind: EdgeReference, Field: r.Path, ARMID: armID, Ref: r})
		return
	}
	if r.Field.Ref == registry.RefWellKnown && yamlnode.String(r.Node, "wellKnownName") != "" {
		return // a built-in role name, resolved against Azure when planning
	}
	group, kind, name := yamlnode.String(r.Node, "group"), yamlnode.String(r.Node, "kind"), yamlnode.String(r.Node, "name")
	if group == "" || kind == "" || name == "" {
		b.errorf(o, r.Line, r.Path, "a reference needs armId, or group, kind and name")
		return
	}
	target := b.byKey[nodeKey(o.Namespace, group, kind, name)]
	if target == nil {
		b.errorf(o, r.Line, r.Path, "reference target %s/%s %q is not in the input (use armId for a resource that azk does not manage)",
			group, kind, name)
		return
	}
	n.Edges = append(n.Edges, &Edge{Kind: EdgeReference, Field: r.Path, To: target, Ref: r})
}

func (b *builder) secret(n *Node, r validate.Ref) {
	name := yamlnode.String(r.Node, "name")
	if name == "" {
		return
	}
	key := yamlnode.String(r.Node, "key")
	if r.Field.Ref == registry.RefSecretMap {
		key = ""
	}
	exporter, err := b.exportedSecret(n.Object.Namespace, name, key)
	switch {
	case err != nil:
		b.errorf(n.Object, r.Line, r.Path, "%v", err)
		return
	case exporter != nil:
		n.Edges = append(n.Edges, &Edge{Kind: EdgeSecret, Field: r.Path, To: exporter, Ref: r})
		return
	}
	if s := b.g.Secrets[n.Object.Namespace+"/"+name]; s != nil {
		if r.Field.Ref == registry.RefSecret && key != "" && !hasKey(s, key) {
			b.errorf(n.Object, r.Line, r.Path+".key", "secret %q (%s) has no key %q", name, s.Source, key)
			return
		}
		n.Edges = append(n.Edges, &Edge{Kind: EdgeSecret, Field: r.Path, Object: s, Ref: r})
		return
	}
	// Not in the input: the value comes from the environment when rendering.
	n.Edges = append(n.Edges, &Edge{Kind: EdgeSecret, Field: r.Path, Ref: r})
}

func (b *builder) configMap(n *Node, r validate.Ref) {
	name, key := yamlnode.String(r.Node, "name"), yamlnode.String(r.Node, "key")
	if name == "" || key == "" {
		return
	}
	ns := n.Object.Namespace
	if cm := b.g.ConfigMaps[ns+"/"+name]; cm != nil {
		if !hasKey(cm, key) {
			b.errorf(n.Object, r.Line, r.Path+".key", "config map %q (%s) has no key %q", name, cm.Source, key)
			return
		}
		n.Edges = append(n.Edges, &Edge{Kind: EdgeConfigMap, Field: r.Path, Object: cm, Ref: r})
		return
	}
	exporter := b.exporters[ns+"/"+name+"/"+key]
	if exporter == nil {
		exporter = b.exporters[ns+"/"+name+"/"] // an expression yielding a map of keys
	}
	if exporter != nil {
		n.Edges = append(n.Edges, &Edge{Kind: EdgeConfigMap, Field: r.Path, To: exporter, Ref: r})
		return
	}
	b.errorf(n.Object, r.Line, r.Path, "config map %q key %q is not in the input: add a v1 ConfigMap or a resource that exports it in spec.operatorSpec.configMaps",
		name, key)
}

// subscription picks the subscription for ARM IDs: the given one, else the
// first armId owner's, else the placeholder.
func (b *builder) subscription(given string, nodes []*Node) string {
	if given != "" {
		if err := armid.CheckSubscription(given); err != nil {
			b.diags.Add(diag.Errorf(diag.Source{}, "", "", "the subscription given (--subscription or AZURE_SUBSCRIPTION_ID): %v", err))
			return SubscriptionPlaceholder
		}
		return given
	}
	for _, n := range nodes {
		if n.Owner == nil && n.OwnerID != "" {
			if sub := subscriptionOf(n.OwnerID); sub != "" {
				return sub
			}
		}
	}
	return SubscriptionPlaceholder
}

func subscriptionOf(armID string) string {
	id, err := armid.Parse(armID)
	if err != nil {
		return ""
	}
	return id.Subscription
}

// order sorts nodes so each comes after its dependencies (Kahn's algorithm,
// ties by input order) and reports every cycle among the rest.
func (b *builder) order(nodes []*Node) []*Node {
	indegree := make(map[*Node]int, len(nodes))
	dependents := map[*Node][]*Node{}
	for _, n := range nodes {
		for _, d := range n.DependsOn() {
			indegree[n]++
			dependents[d] = append(dependents[d], n)
		}
	}
	ready := &byIndex{}
	for _, n := range nodes {
		if indegree[n] == 0 {
			heap.Push(ready, n)
		}
	}
	sorted := make([]*Node, 0, len(nodes))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(*Node)
		sorted = append(sorted, n)
		for _, d := range dependents[n] {
			if indegree[d]--; indegree[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	if len(sorted) < len(nodes) {
		b.cycles(nodes, indegree)
	}
	return sorted
}

// cycles reports each dependency cycle among the nodes left with unmet dependencies.
func (b *builder) cycles(nodes []*Node, indegree map[*Node]int) {
	const (
		unvisited = iota
		onPath
		done
	)
	state := map[*Node]int{}
	var path []*Node
	var visit func(n *Node)
	visit = func(n *Node) {
		state[n] = onPath
		path = append(path, n)
		for _, d := range n.DependsOn() {
			switch state[d] {
			case unvisited:
				visit(d)
			case onPath:
				b.reportCycle(path, d)
			}
		}
		path = path[:len(path)-1]
		state[n] = done
	}
	for _, n := range nodes {
		if indegree[n] > 0 && state[n] == unvisited {
			visit(n)
		}
	}
}

func (b *builder) reportCycle(path []*Node, start *Node) {
	i := len(path) - 1
	for path[i] != start {
		i--
	}
	cycle := path[i:]
	names := make([]string, 0, len(cycle)+1)
	for _, n := range cycle {
		names = append(names, n.Object.Kind+"/"+n.Object.Name)
	}
	names = append(names, start.Object.Kind+"/"+start.Object.Name)
	b.errorf(start.Object, 0, "", "dependency cycle: %s", strings.Join(names, " -> "))
}

type byIndex []*Node

func (h byIndex) Len() int           { return len(h) }
func (h byIndex) Less(i, j int) bool { return h[i].index < h[j].index }
func (h byIndex) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byIndex) Push(x any)        { *h = append(*h, x.(*Node)) }
func (h *byIndex) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}

// hasKey reports whether a v1 Secret or ConfigMap sets key; a value the
// loader found malformed (not base64, not a string) is reported there.
func hasKey(o *loader.Object, key string) bool {
	return slices.Contains(o.Keys(), key)
}
