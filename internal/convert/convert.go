// Package convert turns each resolved resource into the ARM request the
// operator would send: URL, api-version and JSON body, driven by the
// registry's field facts; what the operator does for particular kinds comes
// from internal/extensions.
package convert

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// Sources supplies the values a spec refers to but does not hold. The zero
// Sources reads secrets from the environment only and knows no statuses.
type Sources struct {
	// LookupEnv reads environment variables; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Status returns the status of an input resource as read from ARM (see
	// Status), or nil when it does not exist yet. Nil means never known.
	Status func(n *graph.Node) map[string]any
	// RoleDefinitionID resolves a built-in role name (wellKnownName) to its
	// role definition ARM ID. Nil, or false, leaves the value unknown.
	RoleDefinitionID func(name string) (string, bool)
	// Get reads a resource from ARM: its body, or nil when it does not exist.
	// It feeds the changes the operator makes before a PUT (children kept,
	// key vault recovery). Nil means offline: each resource renders as a create.
	Get func(id, apiVersion string) (map[string]any, error)
	// Secrets returns the keys and values an input resource exports into
	// Secret name (operatorSpec.secrets, secretExpressions), fetched from
	// Azure as the operator fetches them; false while they cannot be known
	// (the resource does not exist yet). Nil means never known: such values
	// stay unknown, (sensitive, known after apply).
	Secrets func(from *graph.Node, name string) (map[string]string, bool, error)
	// ManualConfig returns a config-map value that an input resource's kind
	// fills by hand (extensions.ConfigExporter), read from Azure, by its
	// operatorSpec.configMaps entry name; false while it cannot be known.
	// Nil means never known.
	ManualConfig func(from *graph.Node, name string) (string, bool, error)
}

// Request is one ARM call.
type Request struct {
	Node   *graph.Node
	Method string
	// URL is the path and query: "/subscriptions/...?api-version=2020-11-01".
	URL  string
	Body map[string]any
	// Before are the requests the operator sends before the PUT (purging a
	// soft-deleted key vault), as the kind's extension says.
	Before []extensions.PreWrite
	// Notes say what else the operator does for this request, for the plan.
	Notes []string
}

// Requests converts every ARM resource of the graph, in dependency order.
func Requests(g *graph.Graph, src Sources) ([]*Request, diag.List) {
	var reqs []*Request
	var diags diag.List
	for _, n := range g.Nodes {
		if !n.Kind.IsARM() || n.Pending != "" {
			continue // reported by the graph
		}
		r, more := Convert(g, n, src)
		diags = append(diags, more...)
		if r != nil {
			reqs = append(reqs, r)
		}
	}
	return reqs, diags
}

// Convert builds the PUT for one node.
func Convert(g *graph.Graph, n *graph.Node, src Sources) (*Request, diag.List) {
	c := &converter{g: g, n: n, src: src, edges: map[string]*graph.Edge{}}
	if !n.Kind.IsARM() {
		c.errorf(0, "", "%s has no ARM mapping in the registry: the operator does not manage it through ARM, so azk cannot compute its request", n.Kind.Kind)
		return nil, c.diags
	}
	switch {
	case n.Pending != "" && !namedAfterApply(n):
		c.errorf(0, "", "no ARM ID yet: %s", n.Pending)
		return nil, c.diags
	case n.ID == "" && n.Pending == "":
		c.errorf(0, "", "no ARM ID: resolve the graph errors first")
		return nil, c.diags
	}
	for _, e := range n.Edges {
		c.edges[e.Field] = e
	}
	body := map[string]any{}
	if spec := n.Object.Node.Field("spec"); spec != nil && spec.Value != nil {
		if m, ok := c.value(n.Kind.Spec, spec.Value.YNode(), "spec").(map[string]any); ok {
			body = m
		}
	}
	body["name"] = n.AzureName
	r := &Request{Node: n, Method: "PUT", Body: body}
	// A Pending node is named once another resource of the apply exists: it
	// has no URL yet, and nothing of it exists in Azure to adjust to.
	switch {
	case n.Pending == "":
		r.URL = n.ID + "?api-version=" + n.Kind.APIVersion
		c.adjust(body, r)
	case n.NameSource() != nil:
		body["name"] = Unknown{Reason: n.Pending}
	}
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	if n.Kind.Body != nil {
		markSensitive(body, n.Kind.Body.Sensitive)
	}
	return r, c.diags
}

// namedAfterApply reports a node whose Azure name (or its owner's) is
// another input resource's status value: its request is known but for the
// name and URL, which apply fills in once that resource exists.
func namedAfterApply(n *graph.Node) bool {
	for ; n != nil; n = n.Owner {
		if n.NameSource() != nil {
			return true
		}
		if n.Pending == "" {
			return false
		}
	}
	return false
}

type converter struct {
	g     *graph.Graph
	n     *graph.Node
	src   Sources
	edges map[string]*graph.Edge // by spec field path
	diags diag.List
}

func (c *converter) errorf(line int, field, format string, args ...any) {
	src := c.n.Object.Source
	if line > 0 {
		src.Line = line
	}
	c.diags.Add(diag.Errorf(src, c.n.Address(), field, format, args...))
}

// value converts the YAML value n, described by f, to its ARM form.
func (c *converter) value(f *registry.Field, n *yaml.Node, path string) any {
	n = yamlnode.Deref(n)
	if yamlnode.IsNull(n) {
		return nil
	}
	switch f.Ref {
	case registry.RefResource, registry.RefWellKnown:
		if n.Kind == yaml.MappingNode {
			return c.reference(f, n, path)
		}
	case registry.RefSecret:
		return c.secret(n, path)
	case registry.RefSecretMap:
		return c.secretMap(n, path)
	case registry.RefConfigMap:
		return c.configMap(n, path)
	}
	switch f.Type {
	case registry.TypeObject:
		return c.object(f, n, path)
	case registry.TypeArray:
		if f.KeyedByRef {
			return c.keyedByRef(f, n, path)
		}
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			return nil // ARM omits empty lists, as the operator's omitempty does
		}
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			if f.Items == nil {
				out = append(out, armjson.FromYAML(item))
				continue
			}
			if v := c.value(f.Items, item, fmt.Sprintf("%s[%d]", path, i)); v != nil {
				out = append(out, v)
			}
		}
		return out
	case registry.TypeMap:
		if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
			return nil
		}
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if f.Values == nil {
				out[key] = armjson.FromYAML(n.Content[i+1])
			} else if v := c.value(f.Values, n.Content[i+1], path+"."+key); v != nil {
				out[key] = v
			}
		}
		return out
	}
	return armjson.FromYAML(n)
}

// object converts a spec object: each field lands at its ARM path, fields that
// never reach ARM are dropped, and a one-of alternative's fields stand inline.
func (c *converter) object(f *registry.Field, n *yaml.Node, path string) any {
	if n.Kind != yaml.MappingNode {
		return armjson.FromYAML(n)
	}
	out := map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		child := f.Child(key.Value)
		if child == nil || child.ARM == nil {
			continue
		}
		v := c.value(child, val, path+"."+key.Value)
		if v == nil {
			continue
		}
		if len(child.ARM) == 0 {
			if inline, ok := v.(map[string]any); ok {
				for k, e := range inline {
					out[k] = e
				}
			}
			continue
		}
		armjson.Put(out, child.ARM, v)
	}
	return out
}

// reference resolves a resource reference to an ARM ID.
func (c *converter) reference(f *registry.Field, n *yaml.Node, path string) any {
	if name := yamlnode.String(n, "wellKnownName"); name != "" && f.Ref == registry.RefWellKnown {
		// Sent as the name itself; a kind that resolves it (a role
		// assignment's built-in role) does so in its body modifier.
		return name
	}
	e := c.edges[path]
	switch {
	case e == nil:
		c.errorf(n.Line, path, "reference was not resolved")
		return nil
	case e.ARMID != "":
		return e.ARMID
	case e.To != nil && e.To.ID != "":
		return e.To.ID
	case e.To != nil:
		c.errorf(n.Line, path, "%s has no ARM ID to refer to", e.To.Address())
	}
	return nil
}

// keyedByRef turns a list of {reference} objects into ARM's map keyed by ARM ID.
func (c *converter) keyedByRef(f *registry.Field, n *yaml.Node, path string) any {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || f.Items == nil {
		return nil
	}
	out := make(map[string]any, len(n.Content))
	for i, item := range n.Content {
		for _, ref := range f.Items.Fields {
			if ref.Ref != registry.RefResource {
				continue
			}
			refNode := yamlnode.Value(item, ref.Name)
			if refNode == nil {
				continue
			}
			if id, ok := c.reference(ref, yamlnode.Deref(refNode), fmt.Sprintf("%s[%d].%s", path, i, ref.Name)).(string); ok {
				out[id] = map[string]any{}
			}
		}
	}
	return out
}

// secretEnvName is where a secret not in the input is read from:
// AZK_SECRET_<NAME>_<KEY>, upper-cased, non-alphanumerics as "_".
func secretEnvName(name, key string) string {
	return "AZK_SECRET_" + envSafe.ReplaceAllString(strings.ToUpper(name+"_"+key), "_")
}

var envSafe = regexp.MustCompile(`[^A-Z0-9]`)

func (c *converter) lookupEnv(name string) (string, bool) {
	if c.src.LookupEnv != nil {
		return c.src.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (c *converter) secret(n *yaml.Node, path string) any {
	name, key := yamlnode.String(n, "name"), yamlnode.String(n, "key")
	if e := c.edges[path]; e != nil && e.To != nil {
		return c.exportedSecret(n, path, e.To, name, key)
	}
	ns := c.n.Object.Namespace
	if s := c.g.Secrets[ns+"/"+name]; s != nil {
		v, ok := s.Value(key)
		switch {
		case !ok:
			c.errorf(n.Line, path, "secret %s has no key %q (%s)", name, key, s.Source)
			return nil
		case v == "":
			c.errorf(n.Line, path, "secret %s key %s is empty (%s): fill it in; Azure would be sent an empty secret", name, key, s.Source)
			return nil
		}
		return Sensitive{value: v}
	}
	env := secretEnvName(name, key)
	if v, ok := c.lookupEnv(env); ok {
		if v == "" {
			c.errorf(n.Line, path, "secret %s key %s: the environment variable %s is set but empty (a CI secret that is not defined expands to nothing): fill it in; Azure would be sent an empty secret", name, key, env)
			return nil
		}
		return Sensitive{value: v}
	}
	c.errorf(n.Line, path, "secret %s key %s not found: looked for a v1 Secret %s/%s in the input and for the environment variable %s",
		name, key, ns, name, env)
	return nil
}

func (c *converter) secretMap(n *yaml.Node, path string) any {
	name := yamlnode.String(n, "name")
	if e := c.edges[path]; e != nil && e.To != nil {
		return c.exportedSecret(n, path, e.To, name, "")
	}
	s := c.g.Secrets[c.n.Object.Namespace+"/"+name]
	if s == nil {
		c.errorf(n.Line, path, "secret %s not found: a secret map must be a v1 Secret in the input", name)
		return nil
	}
	out := map[string]any{}
	for _, key := range s.Keys() {
		if v, ok := s.Value(key); ok {
			out[key] = Sensitive{value: v}
		}
	}
	return out
}

// exportedSecret is key of the Secret name that from exports, or with no
// key the whole Secret (a secret map): fetched from Azure through
// Sources.Secrets, unknown (and sensitive) while from does not exist.
func (c *converter) exportedSecret(n *yaml.Node, path string, from *graph.Node, name, key string) any {
	what := "secret " + name
	if key != "" {
		what += " key " + key
	}
	unknown := Unknown{Reason: what + " exported by " + from.Address(), Sensitive: true, ExportedBy: from}
	if c.src.Secrets == nil {
		return unknown
	}
	values, known, err := c.src.Secrets(from, name)
	switch {
	case err != nil:
		c.errorf(0, "", "secrets exported by %s: %v", from.Address(), err)
		return nil
	case !known:
		return unknown
	case key == "":
		out := map[string]any{}
		for k, v := range values {
			out[k] = Sensitive{value: v, fetched: true}
		}
		return out
	}
	if v, ok := values[key]; ok {
		return Sensitive{value: v, fetched: true}
	}
	c.errorf(n.Line, path, "%s: %s exported no such key", what, from.Address())
	return nil
}

func (c *converter) configMap(n *yaml.Node, path string) any {
	name, key := yamlnode.String(n, "name"), yamlnode.String(n, "key")
	e := c.edges[path]
	switch {
	case e != nil && e.Object != nil:
		if v, ok := e.Object.Value(key); ok {
			return v
		}
	case e != nil && e.To != nil:
		return c.exported(e.To, name, key)
	}
	c.errorf(n.Line, path, "config map %s key %s is not in the input", name, key)
	return nil
}

// exported reads a config-map value that another resource publishes: from
// its manifest at once, or from its status, known only once it exists.
func (c *converter) exported(from *graph.Node, name, key string) any {
	unknown := Unknown{Reason: fmt.Sprintf("config map %s key %s exported by %s", name, key, from.Address()), Export: &ExportRef{From: from, ConfigMap: name, Key: key}, ExportedBy: from}
	e, ok := from.Export(name, key)
	if !ok {
		return unknown
	}
	var v string
	var known bool
	var err error
	switch {
	case e.Manual && c.src.ManualConfig == nil:
		return unknown
	case e.Manual:
		v, known, err = c.src.ManualConfig(from, e.Name)
	default:
		var status map[string]any
		if !e.FromManifest() && c.src.Status != nil {
			status = c.src.Status(from)
		}
		v, known, err = e.Value(from, key, status)
	}
	switch {
	case err != nil:
		c.errorf(0, "", "%s: %v", from.Address(), err)
		return nil
	case !known:
		return unknown
	}
	return v
}
