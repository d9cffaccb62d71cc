package corpusgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/yamlnode"
)

// The operator's code-generator configuration (operator/config/<group>.yaml)
// says, per ARM api-version and Swagger type, what the operator does beyond
// the REST specs: which status values a resource exports to config maps,
// which secrets it fetches from Azure, which one-of alternatives stand inline
// in the body, how collections are serialised. Only the modifiers ("$...")
// are read; keys are compared case-insensitively, as the operator does.

// operatorConfig is the configuration of every group, by group name
// ("network.frontdoor", without ".azure.com").
type operatorConfig map[string]*groupConfig

type groupConfig struct {
	// payloadType is the group's $payloadType ("" is omitempty).
	payloadType string
	// versions maps an ARM api-version to its types by normalized name.
	versions map[string]map[string]*typeConfig
}

// typeConfig holds the modifiers of one Swagger type at one api-version.
type typeConfig struct {
	name             string
	exportAs         string
	renameTo         string
	generatedConfigs []generatedConfig
	manualConfigs    []string
	generatedSecrets []string
	// defaultAzureName is false when the operator does not default azureName
	// from metadata.name ($defaultAzureName: false).
	defaultAzureName   *bool
	embeddedInParent   string
	properties         map[string]*propertyConfig // by normalized name
	propertyNamesOrder []string
}

// generatedConfig is one $generatedConfigs entry: the export's Go name and
// the Go path under Status it reads ("$.Status.Identity.PrincipalId").
type generatedConfig struct {
	name   string
	status []string
}

// propertyConfig holds the modifiers of one property of a type.
type propertyConfig struct {
	name                string
	referenceType       string // arm, arm+wellknown, arm+compat, simple
	importConfigMapMode string // optional, required
	importSecretMode    string // required, optional, never
	isSecret            bool
	payloadType         string
	renameTo            string
}

// readOperatorConfig reads operator/config under the corpus; a corpus
// without it gives an empty configuration.
func readOperatorConfig(corpus string) (operatorConfig, error) {
	files, err := filepath.Glob(filepath.Join(corpus, "operator", "config", "*.yaml"))
	if err != nil {
		return nil, err
	}
	cfg := operatorConfig{}
	for _, file := range files {
		group := strings.TrimSuffix(filepath.Base(file), ".yaml")
		if group == "azure-arm" {
			continue // the pipeline's own settings and the reference documentation
		}
		gc, err := readGroupConfig(file)
		if err != nil {
			return nil, err
		}
		cfg[group] = gc
	}
	return cfg, nil
}

func readGroupConfig(file string) (*groupConfig, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	gc := &groupConfig{versions: map[string]map[string]*typeConfig{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	model := yamlnode.Value(root, "groupModelConfiguration")
	for _, kv := range mapPairs(model) {
		key, val := kv[0].Value, kv[1]
		if key == "$payloadType" {
			gc.payloadType = val.Value
			continue
		}
		if strings.HasPrefix(key, "$") {
			continue
		}
		types := map[string]*typeConfig{}
		for _, tkv := range mapPairs(val) {
			tc, err := readTypeConfig(tkv[0].Value, tkv[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %v", file, key, tkv[0].Value, err)
			}
			types[normalize(tc.name)] = tc
		}
		gc.versions[key] = types
	}
	return gc, nil
}

func readTypeConfig(name string, n *yaml.Node) (*typeConfig, error) {
	tc := &typeConfig{name: name, properties: map[string]*propertyConfig{}}
	for _, kv := range mapPairs(n) {
		key, val := kv[0].Value, kv[1]
		switch key {
		case "$exportAs":
			tc.exportAs = val.Value
		case "$renameTo":
			tc.renameTo = val.Value
		case "$resourceEmbeddedInParent":
			tc.embeddedInParent = val.Value
		case "$defaultAzureName":
			b := val.Value == "true"
			tc.defaultAzureName = &b
		case "$azureGeneratedSecrets":
			tc.generatedSecrets = scalars(val)
		case "$manualConfigs":
			tc.manualConfigs = scalars(val)
		case "$generatedConfigs":
			for _, gkv := range mapPairs(val) {
				path, ok := strings.CutPrefix(gkv[1].Value, "$.Status.")
				if !ok {
					return nil, fmt.Errorf("$generatedConfigs %s: %q is not a $.Status path", gkv[0].Value, gkv[1].Value)
				}
				tc.generatedConfigs = append(tc.generatedConfigs, generatedConfig{name: gkv[0].Value, status: strings.Split(path, ".")})
			}
		default:
			if strings.HasPrefix(key, "$") || val.Kind != yaml.MappingNode {
				continue
			}
			pc := &propertyConfig{name: key}
			for _, pkv := range mapPairs(val) {
				switch pkv[0].Value {
				case "$referenceType":
					pc.referenceType = pkv[1].Value
				case "$importConfigMapMode":
					pc.importConfigMapMode = pkv[1].Value
				case "$importSecretMode":
					pc.importSecretMode = pkv[1].Value
				case "$isSecret":
					pc.isSecret = pkv[1].Value == "true"
				case "$payloadType":
					pc.payloadType = pkv[1].Value
				case "$renameTo":
					pc.renameTo = pkv[1].Value
				}
			}
			tc.properties[normalize(key)] = pc
			tc.propertyNamesOrder = append(tc.propertyNamesOrder, normalize(key))
		}
	}
	return tc, nil
}

// resource finds the configuration of the resource type exported as kind
// at apiVersion, and the types of that api-version.
func (gc *groupConfig) resource(apiVersion, kind string) (*typeConfig, map[string]*typeConfig) {
	if gc == nil {
		return nil, nil
	}
	types := gc.versions[apiVersion]
	var names []string
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if tc := types[n]; strings.EqualFold(tc.exportAs, kind) {
			return tc, types
		}
	}
	if tc := types[normalize(kind)]; tc != nil && tc.exportAs == "" {
		return tc, types
	}
	return nil, types
}

// typeNamed finds a type of an api-version by its Go name, which is either
// its configured name or what $renameTo made of it.
func typeNamed(types map[string]*typeConfig, goName string) *typeConfig {
	if tc := types[normalize(goName)]; tc != nil {
		return tc
	}
	for _, tc := range types {
		if tc.renameTo != "" && normalize(tc.renameTo) == normalize(goName) {
			return tc
		}
	}
	return nil
}

// mapPairs lists the key and value nodes of a mapping in document order.
func mapPairs(n *yaml.Node) [][2]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([][2]*yaml.Node, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func scalars(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, c.Value)
	}
	return out
}
