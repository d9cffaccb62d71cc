package graph

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/validate"
	"github.com/azkcli/azk/internal/yamlnode"
)

// AnnotationReplaceOnChange is azk's own annotation (the operator ignores
// it): ARM body paths, separated by commas or new lines, that Azure accepts
// only at creation for this resource, beyond those azk knows (as azapi's
// replace_triggers_refs). A change there plans the resource replace-required.
// Paths are written as for AnnotationIgnoreChanges.
const AnnotationReplaceOnChange = "azk.azkcli.io/replace-on-change"

// replaceOnChange parses the replace-on-change annotation into n.ReplaceOnChange.
func (b *builder) replaceOnChange(n *Node) {
	b.annotationPaths(n, AnnotationReplaceOnChange, "and a change there names another resource, which azk creates", func(p armjson.Path) {
		n.ReplaceOnChange = append(n.ReplaceOnChange, p)
	})
}

// annotationPaths checks each ARM body path of n's annotation key against
// the kind's body, reporting an error at its line (in a literal block, each
// path's own line) for a path that is malformed, part of the ARM ID (idWhy
// ends the sentence saying what that means for the annotation) or names no property, and
// passes the others to add.
func (b *builder) annotationPaths(n *Node, key, idWhy string, add func(armjson.Path)) {
	o := n.Object
	v, ok := o.Node.GetAnnotations()[key]
	if !ok {
		return
	}
	keyLine := loader.FieldLine(o, "metadata", "annotations", key)
	_, value := yamlnode.Entry(yamlnode.Value(yamlnode.Value(o.Node.YNode(), "metadata"), "annotations"), key)
	field := "metadata.annotations." + key
	for start, end := 0, 0; end <= len(v); end++ {
		if end < len(v) && v[end] != ',' && v[end] != '\n' {
			continue
		}
		s, at := strings.TrimSpace(v[start:end]), start
		if start = end + 1; s == "" {
			continue
		}
		line := keyLine
		if value != nil && value.Style&yaml.LiteralStyle != 0 {
			line = value.Line + 1 + strings.Count(v[:at], "\n")
		}
		p, err := armjson.ParsePath(s)
		if err != nil {
			b.errorf(o, line, field, "%v", err)
			continue
		}
		if p[0].Key == "name" || p[0].Key == "id" || p[0].Key == "type" {
			b.errorf(o, line, field, "%q: the resource's %s is part of its ARM ID %s", s, p[0].Key, idWhy)
			continue
		}
		if err := validate.IgnorePath(n.Kind, p); err != nil {
			b.errorf(o, line, field, "%q: %v", s, err)
			continue
		}
		add(p)
	}
}
