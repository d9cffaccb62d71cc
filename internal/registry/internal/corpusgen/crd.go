package corpusgen

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// crd is the part of a CustomResourceDefinition the generator reads.
type crd struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Group string `yaml:"group"`
		Names struct {
			Kind string `yaml:"kind"`
		} `yaml:"names"`
		Versions []crdVersion `yaml:"versions"`
	} `yaml:"spec"`
}

type crdVersion struct {
	Name    string `yaml:"name"`
	Served  bool   `yaml:"served"`
	Storage bool   `yaml:"storage"`
	Schema  struct {
		OpenAPIV3Schema *schema `yaml:"openAPIV3Schema"`
	} `yaml:"schema"`
}

// schema is an openAPIV3Schema node. Description is read only to find the
// ARM URI and the Go name of a property; it is never written out.
type schema struct {
	Description          string             `yaml:"description"`
	Type                 string             `yaml:"type"`
	Properties           map[string]*schema `yaml:"properties"`
	Items                *schema            `yaml:"items"`
	AdditionalProperties *schema            `yaml:"additionalProperties"`
	PreserveUnknown      bool               `yaml:"x-kubernetes-preserve-unknown-fields"`
	Required             []string           `yaml:"required"`
	Enum                 []any              `yaml:"enum"`
	Pattern              string             `yaml:"pattern"`
	MinLength            *int               `yaml:"minLength"`
	MaxLength            *int               `yaml:"maxLength"`
	Minimum              *float64           `yaml:"minimum"`
	Maximum              *float64           `yaml:"maximum"`
	MinItems             *int               `yaml:"minItems"`
	MaxItems             *int               `yaml:"maxItems"`
}

func readCRD(path string) (*crd, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c crd
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if c.Spec.Group == "" || c.Spec.Names.Kind == "" {
		return nil, fmt.Errorf("%s: not a CustomResourceDefinition (no spec.group or spec.names.kind)", path)
	}
	return &c, nil
}

// asoVersionLabel is the label on every CRD of an ASO release naming the
// release (v2.20.0-rev.118).
const asoVersionLabel = "app.kubernetes.io/version"

// armURI returns the "ARM URI:" line of a version's description, or "".
func armURI(description string) string {
	for _, line := range strings.Split(description, "\n") {
		if _, uri, ok := strings.Cut(line, "ARM URI: "); ok {
			return strings.TrimSpace(uri)
		}
	}
	return ""
}

// goNameFromDescription returns the Go field name the ASO generator puts at the
// start of a property description ("FirewallPolicyFilter: Mutually ..."), or "".
func goNameFromDescription(description string) string {
	name, _, ok := strings.Cut(description, ":")
	if !ok || name == "" || strings.ContainsAny(name, " \n") {
		return ""
	}
	return name
}

// oneOfMarker is how ASO describes each alternative of a discriminated union.
const oneOfMarker = "Mutually exclusive with all other properties"

// isOneOf reports whether every property of s is an alternative of a one-of.
func (s *schema) isOneOf() bool {
	if len(s.Properties) == 0 || s.AdditionalProperties != nil {
		return false
	}
	for _, p := range s.Properties {
		if !strings.Contains(strings.Join(strings.Fields(p.Description), " "), oneOfMarker) {
			return false
		}
	}
	return true
}
