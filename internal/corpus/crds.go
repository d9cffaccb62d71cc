package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/yamlnode"
)

// CRDKinds lists the group and kind of every CRD of the corpus at dir
// (crds/), sorted: the CRDs the operator can install.
func CRDKinds(dir string) ([]registry.GroupKind, error) {
	files, err := filepath.Glob(filepath.Join(dir, "crds", "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []registry.GroupKind
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		// The schemas under spec.versions are most of a CRD: group and
		// names come before them.
		if i := bytes.Index(data, []byte("\n  versions:")); i > 0 {
			data = data[:i+1]
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		root := &doc
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			root = doc.Content[0]
		}
		gk := registry.GroupKind{Group: yamlnode.String(root, "spec", "group"), Kind: yamlnode.String(root, "spec", "names", "kind")}
		if gk.Group == "" || gk.Kind == "" {
			return nil, fmt.Errorf("%s: no spec.group or spec.names.kind", f)
		}
		out = append(out, gk)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Kind < out[j].Kind
	})
	return out, nil
}
