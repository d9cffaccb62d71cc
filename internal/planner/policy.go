package planner

import (
	"github.com/azkcli/azk/internal/graph"
)

// Where a reconcile policy came from (Policy.Source).
const (
	PolicySourceAnnotation         = "annotation " + graph.AnnotationReconcilePolicy
	PolicySourceAnnotationIfExists = "annotation " + graph.AnnotationReconcilePolicyIfExists
	PolicySourceIfExistsFlag       = "flag --reconcile-policy-if-exists"
	PolicySourceDefaultFlag        = "flag --default-reconcile-policy"
	PolicySourceDefault            = "default" // no annotation nor flag set it
)

// policySourceNamespace is the source of a policy set on the resource's Namespace.
func policySourceNamespace(namespace string) string {
	return "annotation " + graph.AnnotationReconcilePolicy + " on Namespace " + namespace
}

// ResolvePolicy is the reconcile policy in force for n, and whether a
// reconcile-policy decided it (rather than reconcile-policy-if-exists,
// which governs only resources that exist, or the built-in default). The
// operator takes the resource's own reconcile-policy annotation, else the
// one on its Namespace, else its operator-wide DEFAULT_RECONCILE_POLICY;
// reconcile-policy-if-exists, decided once for a resource that exists
// (see PolicyRecord), comes before the Namespace's as the resource's own,
// and ifExistsFlag (--reconcile-policy-if-exists, azk's) after it.
func ResolvePolicy(g *graph.Graph, n *graph.Node, exists bool, ifExistsFlag string) (Policy, bool) {
	annotations := n.Object.Node.GetAnnotations()
	if v, ok := annotations[graph.AnnotationReconcilePolicy]; ok {
		return Policy{Value: v, Source: PolicySourceAnnotation}, true
	}
	if v, ok := annotations[graph.AnnotationReconcilePolicyIfExists]; ok && exists {
		return Policy{Value: v, Source: PolicySourceAnnotationIfExists}, false
	}
	if v, ok := g.NamespacePolicy(n); ok {
		return Policy{Value: v, Source: policySourceNamespace(n.Object.Namespace)}, true
	}
	if ifExistsFlag != "" && exists {
		return Policy{Value: ifExistsFlag, Source: PolicySourceIfExistsFlag}, false
	}
	if g.DefaultPolicy != "" {
		return Policy{Value: g.DefaultPolicy, Source: PolicySourceDefaultFlag}, true
	}
	return Policy{Value: graph.PolicyManage, Source: PolicySourceDefault}, false
}

// policy is the reconcile policy that applies to n, and whether a
// reconcile-policy (not reconcile-policy-if-exists) decided it.
func (m *maker) policy(n *graph.Node, exists bool) (Policy, bool) {
	return ResolvePolicy(m.g, n, exists, m.opts.ReconcilePolicyIfExists)
}

// ifExists is the reconcile-policy-if-exists that would decide n's policy
// were it found in Azure, when one would.
func (m *maker) ifExists(n *graph.Node) (Policy, bool) {
	p, explicit := ResolvePolicy(m.g, n, true, m.opts.ReconcilePolicyIfExists)
	return p, !explicit && p.Source != PolicySourceDefault
}

// recordPolicy is what apply writes into n's manifest: the operator applies
// reconcile-policy-if-exists once, at the first reconcile, and records the
// outcome. Under the default (manage) created and adopted resources behave
// alike and nothing needs recording; under another if-exists policy, a
// resource apply creates is recorded as manage (so a later run does not
// take it for a found one) and one it finds under that policy.
func (m *maker) recordPolicy(n *graph.Node, explicit bool, exists bool, p Policy) *PolicyRecord {
	if explicit {
		return nil
	}
	ifExists, ok := m.ifExists(n)
	if !ok || ifExists.Value == graph.PolicyManage {
		return nil
	}
	value := graph.PolicyManage
	if exists {
		value = p.Value
	}
	return &PolicyRecord{Value: value, Source: n.Object.Source.String(), Writable: n.Object.InPlainFile()}
}
