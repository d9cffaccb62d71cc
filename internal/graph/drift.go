package graph

import (
	"fmt"

	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/suggest"
)

// AnnotationDrift is azk's own annotation (the operator does not read it)
// choosing what a plan does with drift, the values Azure holds that the
// manifests do not say, on a resource, or on a Namespace for the resources
// in it: DriftMerge, DriftEnforce or DriftReflect.
const AnnotationDrift = "azk.azkcli.io/drift"

// Drift policies (AnnotationDrift, azk plan --drift-policy).
const (
	// DriftMerge: the PUT is the manifests' body laid over what Azure
	// holds, so only the fields the manifests set change.
	DriftMerge = "merge"
	// DriftEnforce: the PUT carries the manifests' body alone, as the
	// operator's does, resetting what it omits. The default.
	DriftEnforce = "enforce"
	// DriftReflect: where Azure differs, the manifests follow Azure (azk
	// refresh writes Azure's values into them) and the PUT keeps Azure's values.
	DriftReflect = "reflect"
)

// DriftPolicies are the drift policies, the default first.
var DriftPolicies = []string{DriftEnforce, DriftMerge, DriftReflect}

// CheckDriftPolicy reports an unknown drift policy, with the nearest known one.
func CheckDriftPolicy(v string) error {
	for _, p := range DriftPolicies {
		if v == p {
			return nil
		}
	}
	hint := ""
	if near := suggest.Nearest(v, DriftPolicies); near != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("unknown drift policy %q: use merge, enforce or reflect%s", v, hint)
}

// driftAnnotation checks the drift annotation of o (a resource or a
// Namespace), when set, names a drift policy.
func (b *builder) driftAnnotation(o *loader.Object) {
	v, ok := o.Node.GetAnnotations()[AnnotationDrift]
	if !ok {
		return
	}
	if err := CheckDriftPolicy(v); err != nil {
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations", AnnotationDrift), "metadata.annotations."+AnnotationDrift, "%v", err)
	}
}

// NamespaceDrift is the drift annotation of the v1 Namespace of n in the
// input; false when there is none.
func (g *Graph) NamespaceDrift(n *Node) (policy string, ok bool) {
	ns := g.Namespaces[n.Object.Namespace]
	if ns == nil {
		return "", false
	}
	policy, ok = ns.Node.GetAnnotations()[AnnotationDrift]
	return policy, ok
}
