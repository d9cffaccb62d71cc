package importer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
)

// manifests names every resource, then writes its manifest: parents come
// first, so each child's owner link names its parent's manifest, and every
// resource is named before any reference to it is written.
func manifests(r *Result, opts Options) error {
	byID := map[string]*Resource{}
	used := map[string]bool{} // group/Kind/name taken
	links := newLinker()
	parents := make([]*Resource, len(r.Resources))
	for i, res := range r.Resources {
		parent := byID[strings.ToLower(res.parent)]
		res.Name = uniqueName(res, parent, used)
		byID[strings.ToLower(res.ID)] = res
		parents[i] = parent
		links.add(res, parent)
	}
	for i, res := range r.Resources {
		if err := res.write(parents[i], opts, links.referrer(res)); err != nil {
			return fmt.Errorf("%s: %w", res.ID, err)
		}
	}
	return nil
}

var notNameChars = regexp.MustCompile(`[^a-z0-9]+`)

// kubernetesName makes an Azure name a valid metadata.name (lower-case
// letters, digits and "-", starting and ending with a letter or digit).
func kubernetesName(name string) string {
	return strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

// uniqueName is res's metadata.name: its Azure name, made valid; for kinds
// whose Azure name is fixed ("default") or a name taken by another
// resource of the kind, prefixed with its parent's; then numbered.
func uniqueName(res *Resource, parent *Resource, used map[string]bool) string {
	azureName := armIDName(res.ID)
	base := kubernetesName(azureName)
	prefixed := base
	if parent != nil {
		prefixed = parent.Name + "-" + base
	}
	if base == "" || res.Kind.FixedName != "" {
		base = prefixed
	}
	key := func(name string) string { return res.Kind.Group + "/" + res.Kind.Kind + "/" + name }
	name := base
	for i := 2; used[key(name)]; i++ {
		if name == base && prefixed != base && !used[key(prefixed)] {
			name = prefixed
			continue
		}
		name = fmt.Sprintf("%s-%d", prefixed, i)
	}
	used[key(name)] = true
	return name
}

func armIDName(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return id[strings.LastIndexByte(id, '/')+1:]
	}
	return parsed.Name()
}

// write builds res's manifest, writing references with refer.
func (res *Resource) write(parent *Resource, opts Options, refer func(id string) map[string]any) error {
	k := res.Kind
	sw := newSpecWriter(k, res.Name+"-secrets")
	sw.refer = refer
	spec := sw.spec(res.body)
	azureName := armIDName(res.ID)
	if k.FixedName == "" && k.Spec.Child("azureName") != nil && (azureName != res.Name || !k.DefaultsAzureName()) {
		spec["azureName"] = azureName
	}
	owner, note := ownerOf(k, res, parent)
	if owner != nil {
		spec["owner"] = owner
	}
	res.Notes = append(res.Notes, sw.notes...)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	if len(sw.secrets) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("Azure never returns secrets, and azk never copies them: create Secret %s with the keys %s (or set AZK_SECRET_<NAME>_<KEY> for each) before planning",
			sw.secretName, strings.Join(sw.secrets, ", ")))
	}
	if len(sw.optionalSecrets) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("Azure never returns secrets, so whether these were set is unknown: %s left out; add Secret references to send them",
			strings.Join(sw.optionalSecrets, ", ")))
	}

	meta := map[string]any{"name": res.Name, "annotations": map[string]any{graph.AnnotationReconcilePolicy: opts.Policy}}
	if opts.Namespace != "" && opts.Namespace != "default" {
		meta["namespace"] = opts.Namespace
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range []struct {
		key   string
		value any
	}{
		{"apiVersion", k.GVK.APIVersion()},
		{"kind", k.Kind},
		{"metadata", meta},
	} {
		if err := appendField(doc, f.key, f.value); err != nil {
			return err
		}
	}
	specNode := &yaml.Node{Kind: yaml.MappingNode}
	for _, key := range specOrder(spec) {
		if err := appendField(specNode, key, spec[key]); err != nil {
			return err
		}
	}
	doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "spec"}, specNode)
	doc.HeadComment = "Imported by azk from " + res.ID
	for _, n := range res.Notes {
		doc.HeadComment += "\nNote: " + n
	}
	s, err := yaml.NewRNode(doc).String()
	if err != nil {
		return err
	}
	res.Manifest = s
	return nil
}

// specOrder puts owner and azureName first, as manifests are written, then
// the rest by name.
func specOrder(spec map[string]any) []string {
	var keys []string
	for _, first := range []string{"owner", "azureName"} {
		if _, ok := spec[first]; ok {
			keys = append(keys, first)
		}
	}
	var rest []string
	for k := range spec {
		if k != "owner" && k != "azureName" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

func appendField(m *yaml.Node, key string, value any) error {
	v, err := armjson.ToYAML(value)
	if err != nil {
		return err
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return nil
}

// ownerOf links res to its parent: by name when the parent was imported
// too, else by ARM ID. A note says what could not be linked.
func ownerOf(k *registry.Kind, res, parent *Resource) (map[string]any, string) {
	field := k.Spec.Child("owner")
	if field == nil {
		return nil, "" // a resource group: the subscription is implied
	}
	if parent != nil {
		if field.Child("kind") != nil {
			return map[string]any{"group": parent.Kind.Group, "kind": parent.Kind.Kind, "name": parent.Name}, ""
		}
		return map[string]any{"name": parent.Name}, ""
	}
	if field.Child("armId") != nil {
		return map[string]any{"armId": res.parent}, ""
	}
	return map[string]any{"name": kubernetesName(armIDName(res.parent))},
		fmt.Sprintf("the owner %s was not imported and %s owners cannot be given by ARM ID: import it too", res.parent, k.Kind)
}
