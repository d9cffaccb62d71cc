package graph

import (
	"fmt"
	"slices"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// SecretExport is a value a resource publishes into a Kubernetes Secret: a
// spec.operatorSpec.secrets entry, which the kind's exporter fetches from
// Azure (internal/extensions), or a spec.operatorSpec.secretExpressions
// entry (CEL over the resource and the secrets fetched for it).
type SecretExport struct {
	// Secret and Key say where the value goes. Key is empty for an
	// expression yielding a map: each of its entries is a key.
	Secret, Key string
	// Field is where the export is declared in the spec.
	Field string
	// Name is an operatorSpec.secrets entry's name ("key1"), the secret the
	// kind's exporter fetches; empty for an expression.
	Name string
	// Program is a secretExpressions entry's compiled expression.
	Program *expression.Program
	// Annotations and Labels are the destination's, as the Secret the
	// operator writes carries them (expressions' are CEL, unevaluated here).
	Annotations, Labels map[string]string
	// AnnotationExpressions and LabelExpressions are a secretExpressions
	// entry's CEL annotations and labels, by key.
	AnnotationExpressions, LabelExpressions map[string]string
}

// SecretExport finds what n publishes to Secret name, key: the entry for
// that key, else an expression yielding a map of keys for that Secret.
func (n *Node) SecretExport(name, key string) (SecretExport, bool) {
	return findExport(n.SecretExports, name, key, func(e SecretExport) (string, string) { return e.Secret, e.Key })
}

// SecretsRequested are the secrets n's exporter must fetch: the
// operatorSpec.secrets entries and the secrets its secretExpressions read.
func (n *Node) SecretsRequested() []string {
	var out []string
	for _, e := range n.SecretExports {
		names := []string{e.Name}
		if e.Program != nil {
			names = e.Program.Secrets
		}
		for _, name := range names {
			if name != "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// secretExportsOf lists what n publishes into Secrets. Expressions that do
// not compile are left out: validation reports them.
func secretExportsOf(n *Node) []SecretExport {
	var out []SecretExport
	for _, r := range n.Refs {
		if r.Field.Ref != registry.RefSecretExport {
			continue
		}
		name, key := yamlnode.String(r.Node, "name"), yamlnode.String(r.Node, "key")
		if name == "" || key == "" {
			continue
		}
		out = append(out, SecretExport{Secret: name, Key: key, Field: r.Path, Name: r.Field.Name,
			Annotations: stringMap(yamlnode.Value(r.Node, "annotations")), Labels: stringMap(yamlnode.Value(r.Node, "labels"))})
	}
	for _, x := range expressionEntries(n, "secretExpressions") {
		out = append(out, SecretExport{Secret: x.name, Key: x.key, Field: x.field, Program: x.program,
			AnnotationExpressions: stringMap(yamlnode.Value(x.item, "annotations")), LabelExpressions: stringMap(yamlnode.Value(x.item, "labels"))})
	}
	return out
}

// stringMap reads a YAML mapping of strings; nil when there is none.
func stringMap(n *yaml.Node) map[string]string {
	m, _ := armjson.FromYAML(n).(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// secretExports indexes the Secrets resources publish, so references to
// them become edges. The operator writes each resource's Secrets as objects
// it owns and refuses to overwrite one it does not: two resources exporting
// into one Secret, or a resource exporting into a Secret of the input,
// fail for it, and are errors here.
func (b *builder) secretExports(nodes []*Node) {
	b.secretExporters = map[string]*Node{}
	for _, n := range nodes {
		n.SecretExports = secretExportsOf(n)
		seen := map[string]bool{}
		for _, e := range n.SecretExports {
			line := loader.FieldLine(n.Object, "spec", "operatorSpec")
			ns := n.Object.Namespace
			if s := b.g.Secrets[ns+"/"+e.Secret]; s != nil {
				b.errorf(n.Object, line, e.Field, "secret %q is also a v1 Secret in the input (%s): the operator does not overwrite a Secret it does not own", e.Secret, s.Source)
				continue
			}
			if other := b.secretExporters[ns+"/"+e.Secret]; other != nil && other != n {
				b.errorf(n.Object, line, e.Field, "secret %q is also exported by %s (%s): the operator does not overwrite a Secret another resource owns",
					e.Secret, other.Address(), other.Object.Source)
				continue
			}
			if k := e.Secret + "/" + e.Key; e.Key != "" {
				if seen[k] {
					b.errorf(n.Object, line, e.Field, "secret %s key %s is written twice", e.Secret, e.Key)
					continue
				}
				seen[k] = true
			}
			b.secretExporters[ns+"/"+e.Secret] = n
			if e.Program != nil && !e.Program.ReadsStatus && len(e.Program.Secrets) == 0 {
				// Known now: an expression that fails here fails for the operator too.
				if _, _, err := e.Program.Eval(n.Self(nil), nil); err != nil {
					b.errorf(n.Object, line, e.Field, "CEL expression %q: %v", e.Program.Source, err)
				}
			}
		}
	}
}

// exportedSecret is the resource that exports key into Secret name, or nil.
func (b *builder) exportedSecret(namespace, name, key string) (*Node, error) {
	n := b.secretExporters[namespace+"/"+name]
	if n == nil {
		return nil, nil
	}
	if key == "" {
		return n, nil
	}
	if _, ok := n.SecretExport(name, key); !ok {
		return nil, fmt.Errorf("secret %q is exported by %s (%s), which writes no key %q into it", name, n.Address(), n.Object.Source, key)
	}
	if len(n.SecretsRequested()) > 0 && extensions.SecretExporterFor(n.Kind.ARMType) == nil {
		return nil, fmt.Errorf("secret %q is exported by %s (%s), whose secrets azk does not know how to fetch as the operator does for %s", name, n.Address(), n.Object.Source, n.Kind.Kind)
	}
	return n, nil
}
