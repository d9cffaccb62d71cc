package planner

import (
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/graph"
)

// OperatorDifference is one way the operator, given the same manifests,
// would act otherwise than azk on a resource (Resource.OperatorDiffers): what
// changes once the manifests go to a cluster running it. The operator meant
// is the one whose source azk is built from (../shared/aso/operator), not
// the design proposals azk also follows.
type OperatorDifference struct {
	Code    OperatorDifferenceCode `json:"code"`
	Message string                 `json:"message"`
	// Policy is the reconcile policy the operator would apply, for
	// OperatorIgnoresIfExists.
	Policy *Policy `json:"policy,omitempty"`
	// Paths are the body paths concerned, for OperatorSendsIgnoredPaths.
	Paths []string `json:"paths,omitempty"`
}

// OperatorDifferenceCode says, as a stable code for tools, how the
// operator would differ.
type OperatorDifferenceCode string

const (
	// OperatorIgnoresIfExists: the resource exists in Azure and azk takes
	// its policy from reconcile-policy-if-exists (the annotation, or
	// --reconcile-policy-if-exists). The operator has no such annotation
	// (it is a design proposal): it reads reconcile-policy, else the
	// Namespace's, else its DEFAULT_RECONCILE_POLICY, else manage, and under
	// manage it PUTs the manifests over what exists, adopting it.
	OperatorIgnoresIfExists OperatorDifferenceCode = "operator_ignores_if_exists"
	// OperatorSendsIgnoredPaths: azk keeps Azure's values at paths the
	// azk.azkcli.io/ignore-changes annotation names, where Azure differs
	// from the manifests. The operator reads no annotation of azk's: its
	// PUT carries the manifests' values there.
	OperatorSendsIgnoredPaths OperatorDifferenceCode = "operator_sends_ignored_paths"
	// OperatorEnforces: the resource's drift policy (azk.azkcli.io/drift)
	// is merge or reflect, and its PUT carries Azure's values at some paths
	// (Kept, Reflected). The operator reads no annotation of azk's: it
	// always enforces, its PUT carrying the manifests' body alone.
	OperatorEnforces OperatorDifferenceCode = "operator_enforces"
)

// noteOperatorDiffers sets each resource's OperatorDiffers.
func noteOperatorDiffers(g *graph.Graph, rs ...*Resource) {
	for _, r := range rs {
		if r.Node != nil {
			r.OperatorDiffers = operatorDiffers(g, r)
		}
	}
}

// operatorDiffers lists how the operator would act otherwise than azk on r.
func operatorDiffers(g *graph.Graph, r *Resource) []OperatorDifference {
	if !r.Exists {
		return nil // both create it, and manage what they create
	}
	// Without reconcile-policy-if-exists in play, as the operator resolves it.
	operator, _ := ResolvePolicy(g, r.Node, false, "")
	var out []OperatorDifference
	ifExists := r.Policy.Source == PolicySourceAnnotationIfExists || r.Policy.Source == PolicySourceIfExistsFlag
	if ifExists && operator.Value != r.Policy.Value {
		msg := fmt.Sprintf("the operator does not implement %s (a design proposal): on this existing resource it applies %s (%s), %s; azk applies %s (%s), %s",
			graph.AnnotationReconcilePolicyIfExists, operator.Value, operator.Source, policyEffect(operator.Value), r.Policy.Value, r.Policy.Source, policyEffect(r.Policy.Value))
		if rec := r.RecordPolicy; rec != nil && rec.Writable {
			msg += fmt.Sprintf("; they agree once apply writes %s: %s into %s", graph.AnnotationReconcilePolicy, rec.Value, rec.Source)
		}
		op := operator
		out = append(out, OperatorDifference{Code: OperatorIgnoresIfExists, Message: msg, Policy: &op})
	}
	if len(r.Ignored) > 0 && operator.Value != graph.PolicySkip {
		var paths []string
		for _, c := range r.Ignored {
			paths = append(paths, c.Path)
		}
		out = append(out, OperatorDifference{
			Code:    OperatorSendsIgnoredPaths,
			Message: fmt.Sprintf("the operator does not honour %s: its PUT carries the manifests' values at %s, replacing what Azure holds there", graph.AnnotationIgnoreChanges, strings.Join(paths, ", ")),
			Paths:   paths,
		})
	}
	if d, ok := operatorEnforces(r, operator); ok {
		out = append(out, d)
	}
	return out
}

// policyEffect says what a reconcile policy does to an existing resource.
func policyEffect(policy string) string {
	switch policy {
	case graph.PolicySkip:
		return "never writing it"
	case graph.PolicyDetachOnDelete:
		return "writing the manifests over it and leaving it in Azure when it is deleted"
	}
	return "writing the manifests over it and deleting it from Azure with its manifest"
}

// operatorEnforces is how the operator differs where r's drift policy keeps
// Azure's values: it always enforces. Listed where the PUT keeps any.
func operatorEnforces(r *Resource, operator Policy) (OperatorDifference, bool) {
	if r.DriftPolicy == nil || operator.Value == graph.PolicySkip || len(r.Kept)+len(r.Reflected) == 0 {
		return OperatorDifference{}, false
	}
	var paths []string
	for _, v := range r.Kept {
		paths = append(paths, v.Path)
	}
	for _, c := range r.Reflected {
		paths = append(paths, c.Path)
	}
	what := "resetting what Azure holds beyond the manifests"
	if r.DriftPolicy.Value == graph.DriftReflect {
		what = "writing the manifests' values over Azure's"
	}
	return OperatorDifference{
		Code: OperatorEnforces,
		Message: fmt.Sprintf("the operator does not read %s: it always enforces, its PUT carrying the manifests' body alone, %s at %s; drift policy %s is azk's",
			graph.AnnotationDrift, what, strings.Join(paths, ", "), r.DriftPolicy.Value),
		Paths: paths,
	}, true
}
