package planner

import (
	"context"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// Reasons of a destroy plan's decisions (azk plan --destroy).
const (
	// ReasonDestroy: delete, the destroy plan deletes every resource of the
	// manifests under reconcile-policy manage.
	ReasonDestroy Reason = "delete_because_destroy"
	// ReasonDestroyForget: detach, a resource of the destroy plan under
	// detach-on-delete or skip: the operator leaves it in Azure.
	ReasonDestroyForget Reason = "forget_because_destroy"
)

// DestroyNodes are the resources destroying g acts on: its ARM resources
// with an ARM ID, in g's order (a resource whose Azure name is known only
// after apply was never created by these manifests).
func DestroyNodes(g *graph.Graph) []*graph.Node {
	var nodes []*graph.Node
	for _, n := range g.Nodes {
		if n.Kind != nil && n.Kind.IsARM() && n.ID != "" {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// MakeDestroy plans destroying the resources of g (azk plan --destroy, as
// terraform plan -destroy): the decisions azk destroy makes, as data. Each
// resource Azure has is deleted under reconcile-policy manage, deleted by
// ARM with its owner (CascadedBy), or left in Azure under detach-on-delete
// or skip (detach); what a deletion would take along that the manifests do
// not delete is listed in Cascades, which apply refuses without
// --allow-cascade. A resource Azure does not have is not listed, as a
// three-way plan does not list one either. Of opts, Reader, Inputs, Secrets and
// ReconcilePolicyIfExists are used; a base, a drift report, -replace and
// --send-secrets plan changes, not a destroy, and are refused.
func MakeDestroy(ctx context.Context, g *graph.Graph, opts Options) (*Plan, diag.List) {
	var diags diag.List
	switch {
	case opts.Reader == nil:
		diags.Add(diag.Errorf(diag.Source{}, "", "", "planning needs a reader of Azure state"))
	case opts.Base != nil || opts.Drift || len(opts.Replace) > 0 || len(opts.SendSecrets) > 0:
		diags.Add(diag.Errorf(diag.Source{}, "", "", "a destroy plan deletes everything: it takes no --base, --drift, -replace or --send-secrets"))
	}
	switch opts.ReconcilePolicyIfExists {
	case "", graph.PolicyManage, graph.PolicyDetachOnDelete, graph.PolicySkip:
	default:
		diags.Add(diag.Errorf(diag.Source{}, "", "", "--reconcile-policy-if-exists %q: use manage, detach-on-delete or skip", opts.ReconcilePolicyIfExists))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	rm, err := PlanRemovals(ctx, opts.Reader, g, DestroyNodes(g), RemovalOptions{IfExists: opts.ReconcilePolicyIfExists, Secrets: opts.Secrets})
	if err != nil {
		diags.Add(diag.Errorf(diag.Source{}, "", "", "reading the resources to destroy: %v", err))
		return nil, diags
	}
	p := &Plan{
		FormatVersion: FormatVersion,
		Subscription:  g.Subscription,
		Inputs:        opts.Inputs,
		InputsDigest:  inputsDigest(g, nil, opts.ReconcilePolicyIfExists),
		Resources:     rm.Resources,
		Destroy:       true,
	}
	for _, r := range p.Resources {
		switch r.Reason {
		case ReasonRemoved:
			r.Reason = ReasonDestroy
		case ReasonForget:
			r.Reason = ReasonDestroyForget
		}
	}
	return p, diags
}
