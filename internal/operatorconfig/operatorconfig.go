// Package operatorconfig works out, from resolved manifests and offline,
// what Azure Service Operator v2 needs to take them over: the crdPattern
// naming exactly the CRDs they use (the operator installs only the CRDs its
// crdPattern matches: `group/Kind` entries separated by ";", with "*"
// wildcards, as asoctl export template --crd-pattern takes them), the
// namespaces they are in, the credential Secrets the operator will look for
// (the serviceoperator.azure.com/credential-from annotation, and the
// namespace's aso-credential) and the Secrets and ConfigMaps the resources
// consume or export, each with whether the input holds it.
package operatorconfig

import (
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// NamespaceCredential is the Secret the operator reads, in a resource's
// namespace, for the resources there that name no credential of their own;
// without it, it uses its global credential (aso-controller-settings).
const NamespaceCredential = "aso-credential"

// Config is what the operator needs to take the manifests over.
type Config struct {
	// CRDPattern is the operator's crdPattern covering exactly Kinds.
	CRDPattern string `json:"crdPattern"`
	// Kinds are the CRDs the manifests use, by group then kind.
	Kinds []Kind `json:"kinds"`
	// Namespaces are those of the manifests' resources.
	Namespaces []Namespace `json:"namespaces"`
	// Credentials are the Secrets the operator reads its Azure identity from.
	Credentials []Credential `json:"credentials,omitempty"`
	// Secrets and ConfigMaps are those the resources consume or export.
	Secrets    []Object `json:"secrets,omitempty"`
	ConfigMaps []Object `json:"configMaps,omitempty"`
}

// Kind is one CRD the manifests use.
type Kind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Versions are the CRD versions the manifests write (apiVersion).
	Versions []string `json:"versions"`
	// Resources counts the manifests of this kind.
	Resources int `json:"resources"`
}

// Namespace is one namespace of the manifests' resources.
type Namespace struct {
	Name      string `json:"name"`
	Resources int    `json:"resources"`
	// InInput says the input holds its v1 Namespace (Source, file:line).
	InInput bool   `json:"inInput"`
	Source  string `json:"source,omitempty"`
}

// Where a credential is named (Credential.Scope).
const (
	// ScopeResource: a resource's credential-from annotation.
	ScopeResource = "resource"
	// ScopeNamespaceAnnotation: the credential-from annotation of the v1 Namespace.
	ScopeNamespaceAnnotation = "namespace annotation"
	// ScopeNamespace: the namespace's aso-credential, for the resources
	// there that name none.
	ScopeNamespace = "namespace"
)

// Credential is a Secret holding an identity the operator acts as.
type Credential struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Scope     string `json:"scope"`
	// UsedBy are the addresses of the resources it is for (the Namespace,
	// "Namespace NAME", for a namespace annotation).
	UsedBy  []string `json:"usedBy"`
	InInput bool     `json:"inInput"`
	Source  string   `json:"source,omitempty"`
}

// Object is a v1 Secret or ConfigMap the resources consume or export.
type Object struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Consumers are the resources that read it (Field, the spec path;
	// Key, the key read, empty for a whole Secret).
	Consumers []Use `json:"consumers,omitempty"`
	// Exporters are the resources whose operatorSpec writes it (Key, the
	// key written; empty for an expression yielding a map of keys).
	Exporters []Use  `json:"exporters,omitempty"`
	InInput   bool   `json:"inInput"`
	Source    string `json:"source,omitempty"`
}

// Use is one resource's use of a Secret or ConfigMap.
type Use struct {
	Address string `json:"address"`
	Field   string `json:"field"`
	Key     string `json:"key,omitempty"`
}

// Build works out the operator configuration of g.
func Build(g *graph.Graph) *Config {
	c := &Config{}
	kinds := map[registry.GroupKind]*Kind{}
	namespaces := map[string]*Namespace{}
	for _, n := range g.Nodes {
		o := n.Object
		gk := registry.GroupKind{Group: o.Group(), Kind: o.Kind}
		k := kinds[gk]
		if k == nil {
			k = &Kind{Group: gk.Group, Kind: gk.Kind}
			kinds[gk] = k
		}
		k.Resources++
		if !contains(k.Versions, o.Version()) {
			k.Versions = append(k.Versions, o.Version())
		}
		ns := namespaces[o.Namespace]
		if ns == nil {
			ns = &Namespace{Name: o.Namespace}
			if obj := g.Namespaces[o.Namespace]; obj != nil {
				ns.InInput, ns.Source = true, obj.Source.String()
			}
			namespaces[o.Namespace] = ns
		}
		ns.Resources++
	}
	for _, k := range kinds {
		sort.Strings(k.Versions)
		c.Kinds = append(c.Kinds, *k)
	}
	sort.Slice(c.Kinds, func(i, j int) bool {
		if c.Kinds[i].Group != c.Kinds[j].Group {
			return c.Kinds[i].Group < c.Kinds[j].Group
		}
		return c.Kinds[i].Kind < c.Kinds[j].Kind
	})
	for _, ns := range namespaces {
		c.Namespaces = append(c.Namespaces, *ns)
	}
	sort.Slice(c.Namespaces, func(i, j int) bool { return c.Namespaces[i].Name < c.Namespaces[j].Name })
	c.CRDPattern = crdPattern(c.Kinds)
	c.Credentials = credentials(g)
	c.Secrets, c.ConfigMaps = objects(g)
	return c
}

// crdPattern names each kind as group/Kind, joined by ";". A group is never
// written group/*, even where the manifests use its every kind: an operator
// release that adds a kind to the group would install that CRD too.
func crdPattern(kinds []Kind) string {
	entries := make([]string, len(kinds))
	for i, k := range kinds {
		entries[i] = k.Group + "/" + k.Kind
	}
	return strings.Join(entries, ";")
}

// credentials lists the credential Secrets the operator reads for the
// resources: each named by a credential-from annotation (the resource's,
// else its Namespace's), and the namespace's aso-credential for those
// naming none.
func credentials(g *graph.Graph) []Credential {
	byKey := map[string]*Credential{}
	var order []string
	use := func(ns, name, scope, by string) {
		key := scope + "\x00" + ns + "/" + name
		cr := byKey[key]
		if cr == nil {
			cr = &Credential{Namespace: ns, Name: name, Scope: scope}
			if s := g.Secrets[ns+"/"+name]; s != nil {
				cr.InInput, cr.Source = true, s.Source.String()
			}
			byKey[key] = cr
			order = append(order, key)
		}
		if !contains(cr.UsedBy, by) {
			cr.UsedBy = append(cr.UsedBy, by)
		}
	}
	for _, n := range g.Nodes {
		o := n.Object
		if name := o.Node.GetAnnotations()[graph.AnnotationCredentialFrom]; name != "" {
			use(o.Namespace, name, ScopeResource, o.Address())
			continue
		}
		if ns := g.Namespaces[o.Namespace]; ns != nil {
			if name := ns.Node.GetAnnotations()[graph.AnnotationCredentialFrom]; name != "" {
				use(o.Namespace, name, ScopeNamespaceAnnotation, o.Address())
				continue
			}
		}
		if n.Kind.IsARM() {
			use(o.Namespace, NamespaceCredential, ScopeNamespace, o.Address())
		}
	}
	sort.Strings(order)
	out := make([]Credential, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// objects lists the Secrets and ConfigMaps the resources consume (their
// secret and config-map references) or export (operatorSpec).
func objects(g *graph.Graph) (secrets, configMaps []Object) {
	type table struct {
		byKey map[string]*Object
		input map[string]*loader.Object
	}
	tables := map[bool]*table{
		true:  {byKey: map[string]*Object{}, input: g.Secrets},
		false: {byKey: map[string]*Object{}, input: g.ConfigMaps},
	}
	at := func(secret bool, ns, name string) *Object {
		t := tables[secret]
		o := t.byKey[ns+"/"+name]
		if o == nil {
			o = &Object{Namespace: ns, Name: name}
			if in := t.input[ns+"/"+name]; in != nil {
				o.InInput, o.Source = true, in.Source.String()
			}
			t.byKey[ns+"/"+name] = o
		}
		return o
	}
	for _, n := range g.Nodes {
		ns := n.Object.Namespace
		for _, r := range n.Refs {
			name := yamlnode.String(r.Node, "name")
			if name == "" {
				continue
			}
			u := Use{Address: n.Address(), Field: r.Path, Key: yamlnode.String(r.Node, "key")}
			switch r.Field.Ref {
			case registry.RefSecret, registry.RefSecretMap:
				o := at(true, ns, name)
				o.Consumers = append(o.Consumers, u)
			case registry.RefConfigMap:
				o := at(false, ns, name)
				o.Consumers = append(o.Consumers, u)
			}
		}
		for _, e := range n.Exports {
			o := at(false, ns, e.ConfigMap)
			o.Exporters = append(o.Exporters, Use{Address: n.Address(), Field: e.Field, Key: e.Key})
		}
		for _, e := range n.SecretExports {
			o := at(true, ns, e.Secret)
			o.Exporters = append(o.Exporters, Use{Address: n.Address(), Field: e.Field, Key: e.Key})
		}
	}
	list := func(t *table) []Object {
		keys := make([]string, 0, len(t.byKey))
		for k := range t.byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]Object, 0, len(keys))
		for _, k := range keys {
			out = append(out, *t.byKey[k])
		}
		return out
	}
	return list(tables[true]), list(tables[false])
}

// Match reports whether the operator's crdPattern pattern covers the CRD of
// group and kind: one of its ";"-separated entries matches "group/Kind", in
// any case, "*" standing for any run of characters and "?" for one.
func Match(pattern, group, kind string) bool {
	name := strings.ToLower(group + "/" + kind)
	for _, entry := range strings.Split(pattern, ";") {
		if entry = strings.TrimSpace(entry); entry != "" && glob(strings.ToLower(entry), name) {
			return true
		}
	}
	return false
}

// glob matches s against a pattern of literal characters, "*" and "?".
func glob(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if glob(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
