package graph

import (
	"github.com/azkcli/azk/internal/loader"
)

// The operator's adoption annotations.
const (
	AnnotationReconcilePolicy         = "serviceoperator.azure.com/reconcile-policy"
	AnnotationReconcilePolicyIfExists = "serviceoperator.azure.com/reconcile-policy-if-exists"
)

// Reconcile policies accepted by both annotations.
const (
	PolicyManage         = "manage"
	PolicyDetachOnDelete = "detach-on-delete"
	PolicySkip           = "skip"
)

// policies checks the adoption annotations: known values only, and not both
// on one resource (the operator's adoption-policy design forbids it).
func (b *builder) policies(o *loader.Object) {
	annotations := o.Node.GetAnnotations()
	for _, key := range []string{AnnotationReconcilePolicy, AnnotationReconcilePolicyIfExists} {
		v, ok := annotations[key]
		if !ok {
			continue
		}
		switch v {
		case PolicyManage, PolicyDetachOnDelete, PolicySkip:
		default:
			b.errorf(o, loader.FieldLine(o, "metadata", "annotations", key), "metadata.annotations."+key, "unknown policy %q: use manage, detach-on-delete or skip", v)
		}
	}
	_, explicit := annotations[AnnotationReconcilePolicy]
	_, ifExists := annotations[AnnotationReconcilePolicyIfExists]
	if explicit && ifExists {
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations"), "metadata.annotations", "set either %s or %s, not both: the explicit policy already decides what happens to an existing resource",
			AnnotationReconcilePolicy, AnnotationReconcilePolicyIfExists)
	}
}
