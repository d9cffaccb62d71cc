// Package loader reads ASO manifests from files, folders, standard input and
// kustomize overlays, and keeps where each object came from for later errors.
package loader

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
)

// Object is one Kubernetes object read from the input.
type Object struct {
	// Source is where the object starts. For kustomize output it is the file
	// kustomize read the object from, or the kustomization directory when
	// kustomize cannot tell (Line 0).
	Source diag.Source
	// Kustomization is the -k directory the object was built from; "" for
	// objects read directly.
	Kustomization string
	// HeadFile is, for an object LoadEarlier read, the absolute path its
	// file has in the working tree; "" otherwise.
	HeadFile   string
	APIVersion string
	Kind       string
	Namespace  string // metadata.namespace, or the default namespace when unset
	Name       string
	// Node is the whole object as parsed; line numbers of its fields are kept.
	Node *yaml.RNode
}

// Group is the API group of the object's apiVersion ("" for core v1).
func (o *Object) Group() string {
	if i := strings.IndexByte(o.APIVersion, '/'); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// Version is the version part of the object's apiVersion.
func (o *Object) Version() string {
	return o.APIVersion[strings.IndexByte(o.APIVersion, '/')+1:]
}

// Address names the object in messages: "group/Kind/namespace/name" ("v1/Secret/ns/name" for core).
func (o *Object) Address() string {
	g := o.Group()
	if g == "" {
		g = "v1"
	}
	return g + "/" + o.Kind + "/" + o.Namespace + "/" + o.Name
}

// InPlainFile reports whether the object was read directly from a file, so
// that a change to it can be written back there (not standard input, not
// kustomize output).
func (o *Object) InPlainFile() bool {
	return o.Kustomization == "" && o.Source.File != "" && o.Source.File != "-"
}

// IsSecret reports whether the object is a core v1 Secret.
func (o *Object) IsSecret() bool { return o.APIVersion == "v1" && o.Kind == "Secret" }

// IsNamespace reports whether the object is a core v1 Namespace.
func (o *Object) IsNamespace() bool { return o.APIVersion == "v1" && o.Kind == "Namespace" }

// IsConfigMap reports whether the object is a core v1 ConfigMap.
func (o *Object) IsConfigMap() bool { return o.APIVersion == "v1" && o.Kind == "ConfigMap" }
