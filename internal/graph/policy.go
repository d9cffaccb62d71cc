package graph

import (
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/loader"
)

// The operator's adoption annotations.
const (
	AnnotationReconcilePolicy         = "serviceoperator.azure.com/reconcile-policy"
	AnnotationReconcilePolicyIfExists = "serviceoperator.azure.com/reconcile-policy-if-exists"
	// AnnotationCredentialFrom names a v1 Secret holding the identity (and
	// subscription) the operator uses for one resource.
	AnnotationCredentialFrom = "serviceoperator.azure.com/credential-from"
)

// AnnotationIgnoreChanges is azk's own annotation (the operator ignores it,
// and does not honour it once enabled): ARM body paths, separated by commas
// or new lines, whose value in Azure is kept, like Terraform's
// ignore_changes. Paths are written as plans print them: "tags",
// "tags.owner", `tags["cost.center"]`, "properties.sku.capacity",
// "properties.subnets[name=web].properties.routeTable".
const AnnotationIgnoreChanges = "azk.azkcli.io/ignore-changes"

// credentialSubscription is the Secret key that puts a resource in another subscription.
const credentialSubscription = "AZURE_SUBSCRIPTION_ID"

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
		b.policyValue(o, key)
	}
	_, explicit := annotations[AnnotationReconcilePolicy]
	_, ifExists := annotations[AnnotationReconcilePolicyIfExists]
	if explicit && ifExists {
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations"), "metadata.annotations", "set either %s or %s, not both: the explicit policy already decides what happens to an existing resource",
			AnnotationReconcilePolicy, AnnotationReconcilePolicyIfExists)
	}
}

// policyValue checks that the annotation key of o, when set, names a policy.
func (b *builder) policyValue(o *loader.Object, key string) {
	v, ok := o.Node.GetAnnotations()[key]
	if !ok {
		return
	}
	switch v {
	case PolicyManage, PolicyDetachOnDelete, PolicySkip:
	default:
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations", key), "metadata.annotations."+key, "unknown policy %q: use manage, detach-on-delete or skip", v)
	}
}

// namespacePolicy checks a Namespace's reconcile-policy annotation, which
// the operator applies to the resources in it that set none.
func (b *builder) namespacePolicy(ns *loader.Object) {
	b.policyValue(ns, AnnotationReconcilePolicy)
}

// defaultPolicy checks the operator-wide policy, as the operator checks
// DEFAULT_RECONCILE_POLICY at start.
func (b *builder) defaultPolicy(v string) string {
	switch v {
	case "", PolicyManage, PolicyDetachOnDelete, PolicySkip:
		return v
	}
	b.diags.Add(diag.Errorf(diag.Source{}, "", "", "--default-reconcile-policy %q: use manage, detach-on-delete or skip", v))
	return ""
}

// NamespacePolicy is the reconcile-policy annotation of the v1 Namespace
// of n in the input, and that Namespace's name; false when there is none.
func (g *Graph) NamespacePolicy(n *Node) (policy string, ok bool) {
	ns := g.Namespaces[n.Object.Namespace]
	if ns == nil {
		return "", false
	}
	policy, ok = ns.Node.GetAnnotations()[AnnotationReconcilePolicy]
	return policy, ok
}

// ignoreChanges parses the ignore-changes annotation into n.IgnoreChanges.
func (b *builder) ignoreChanges(n *Node) {
	b.annotationPaths(n, AnnotationIgnoreChanges, "and cannot be ignored", func(p armjson.Path) {
		n.IgnoreChanges = append(n.IgnoreChanges, p)
	})
}

// credential resolves the credential-from annotation to a Secret in the input.
func (b *builder) credential(n *Node) {
	o := n.Object
	name, ok := o.Node.GetAnnotations()[AnnotationCredentialFrom]
	if !ok {
		return
	}
	field := "metadata.annotations." + AnnotationCredentialFrom
	secret := b.g.Secrets[o.Namespace+"/"+name]
	if secret == nil {
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations", AnnotationCredentialFrom), field,
			"credential secret %q is not in the input: add the v1 Secret holding AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID", name)
		return
	}
	sub, ok := secret.Value(credentialSubscription)
	if !ok {
		b.errorf(o, loader.FieldLine(o, "metadata", "annotations", AnnotationCredentialFrom), field,
			"credential secret %q (%s) has no %s", name, secret.Source, credentialSubscription)
		return
	}
	if armid.CheckSubscription(sub) != nil {
		// The value is not printed: it comes from a Secret.
		src := secret.Source
		src.Line = loader.KeyLine(secret, credentialSubscription)
		b.diags.Add(diag.Errorf(src, secret.Address(), credentialSubscription, "is not a subscription ID (a GUID), so %s cannot be put in that subscription", o.Address()))
		return
	}
	n.Credential = secret
}

// subscriptionFor is the subscription n's ARM ID is built in: its credential's, else the graph's.
func (g *Graph) subscriptionFor(n *Node) string {
	if n.Credential != nil {
		if sub, ok := n.Credential.Value(credentialSubscription); ok {
			return sub
		}
	}
	return g.Subscription
}
