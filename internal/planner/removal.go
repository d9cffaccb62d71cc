package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// RemovalOptions configure PlanRemovals; the zero value is usable.
type RemovalOptions struct {
	// IfExists is --reconcile-policy-if-exists: the policy of a resource
	// without a reconcile-policy, as it was adopted under.
	IfExists string
	// Kept are the lower-cased ARM IDs of resources that stay in the
	// manifests: deleting a parent that takes one of them along is a
	// Cascade, never silent.
	Kept map[string]bool
}

// Removals are PlanRemovals' decisions.
type Removals struct {
	// Resources are the decisions for the resources Azure has, in the
	// order they go: dependents and children before what they depend on.
	Resources []*Resource
	// Gone are the resources Azure does not have: nothing to do.
	Gone []*graph.Node
	// Warnings are children that could not be listed: the cascade guard
	// cannot vouch for them.
	Warnings []string
}

// PlanRemovals decides what taking nodes out of the manifests does in
// Azure, as the operator treats a deleted object under its reconcile policy
// (resolved in g, for a resource that exists: azk keeps no state, so it
// takes every resource for one it may have adopted): manage deletes it
// (ActionDelete, ReasonRemoved), detach-on-delete and skip leave it in Azure
// (ActionDetach, ReasonForget). ARM deletes a resource's children with it,
// so a resource whose owner (or the owner's owner) is deleted too is
// deleted by that cascade (CascadedBy), whatever its own policy; where that
// policy says it stays, and wherever the children ARM would delete are not
// among nodes (listed in Azure), the deleted resource carries a Cascade.
// nodes are ARM resources of g with an ARM ID, in g's order; a read that
// fails for another reason than absence is an error.
func PlanRemovals(ctx context.Context, reader Reader, g *graph.Graph, nodes []*graph.Node, opts RemovalOptions) (*Removals, error) {
	type read struct {
		body map[string]any
		etag string
		err  error
	}
	reads := make([]read, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := reader.Get(ctx, n.ID, n.Kind.APIVersion)
			switch {
			case arm.IsNotFound(err):
			case err != nil:
				reads[i].err = fmt.Errorf("%s: %w", n.Address(), err)
			default:
				body := map[string]any{}
				if len(resp.Body) > 0 {
					if err := json.Unmarshal(resp.Body, &body); err != nil {
						reads[i].err = fmt.Errorf("%s: reading the body: %w", n.Address(), err)
						return
					}
				}
				reads[i].body, reads[i].etag = body, resp.ETag
			}
		}()
	}
	wg.Wait()
	for _, r := range reads {
		if r.err != nil {
			return nil, r.err
		}
	}
	out := &Removals{}
	decided := map[*graph.Node]*Resource{}
	for i := len(nodes) - 1; i >= 0; i-- {
		n, rd := nodes[i], reads[i]
		if rd.body == nil {
			out.Gone = append(out.Gone, n)
			continue
		}
		r := &Resource{
			Address: n.Address(), Kind: n.Kind.Kind, Namespace: n.Object.Namespace, Name: n.Object.Name,
			Source: n.Object.Source.String(), ARMID: n.ID, ARMType: n.Kind.ARMType, APIVersion: n.Kind.APIVersion,
			Exists: true, Fingerprint: fingerprint(rd.etag, rd.body), Node: n,
		}
		r.Policy, _ = ResolvePolicy(g, n, true, opts.IfExists)
		if r.Policy.Value == graph.PolicyManage {
			r.Action, r.Reason = ActionDelete, ReasonRemoved
		} else {
			r.Action, r.Reason = ActionDetach, ReasonForget
			r.Notes = append(r.Notes, fmt.Sprintf("reconcile-policy %s: the operator leaves it in Azure when its object is deleted, so no request is sent and it is no longer managed", r.Policy.Value))
		}
		decided[n] = r
		out.Resources = append(out.Resources, r)
	}
	for _, r := range out.Resources {
		var by *Resource
		for a := r.Node.Owner; a != nil; a = a.Owner {
			if ar := decided[a]; ar != nil && ar.Action == ActionDelete {
				by = ar // the outermost deleted ancestor takes it
			}
		}
		if by == nil {
			continue
		}
		if r.Action != ActionDelete {
			by.Cascades = append(by.Cascades, Cascade{By: by.Address, ID: r.ARMID, Address: r.Address, Reason: cascadeMarked(r.Policy.Value)})
			r.Action, r.Reason, r.Notes = ActionDelete, ReasonRemoved, nil
		}
		r.CascadedBy = by.Address
		r.Notes = append(r.Notes, "ARM deletes it with "+by.Address+": no request of its own")
	}
	going := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		going[strings.ToLower(n.ID)] = true
	}
	l := &childLister{reader: reader, fate: func(id string) (bool, string) {
		switch {
		case going[id]:
			return true, ""
		case opts.Kept[id]:
			return false, cascadeKept
		}
		return false, CascadeNotInInput
	}}
	for _, r := range out.Resources {
		if r.Deletes() {
			l.cascades = nil
			l.walk(ctx, r.Address, r.ARMID, r.ARMType)
			r.Cascades = append(r.Cascades, l.cascades...)
		}
	}
	out.Warnings = l.warnings
	return out, nil
}

// removedNodes are the ARM resources of the base manifests that these no
// longer hold (by address, and by ARM ID: a resource that moved to another
// object is not removed). With a selection (--target, --selector) nothing
// is: what the selection leaves out is not planned.
func (m *maker) removedNodes() []*graph.Node {
	base := m.opts.Base
	if base == nil || m.opts.Drift {
		return nil
	}
	if len(m.opts.Inputs.Targets) > 0 || m.opts.Inputs.Selector != "" {
		m.diags.Add(diag.Warningf(diag.Source{}, "", "", "--base with --target or --selector: resources removed from the manifests are not planned"))
		return nil
	}
	kept := m.keptIDs()
	addresses := map[string]bool{}
	for _, n := range append(append([]*graph.Node(nil), m.g.Nodes...), m.g.Outside...) {
		addresses[n.Address()] = true
	}
	var out []*graph.Node
	for _, n := range base.Nodes {
		if !n.Kind.IsARM() || addresses[n.Address()] {
			continue
		}
		if n.ID == "" {
			m.diags.Add(diag.Warningf(n.Object.Source, n.Address(), "", "removed from the manifests, but its Azure name is another resource's status value: azk cannot tell which resource to delete"))
			continue
		}
		if !kept[strings.ToLower(n.ID)] {
			out = append(out, n)
		}
	}
	return out
}

// keptIDs are the lower-cased ARM IDs of the resources of the manifests.
func (m *maker) keptIDs() map[string]bool {
	kept := map[string]bool{}
	for _, n := range append(append([]*graph.Node(nil), m.g.Nodes...), m.g.Outside...) {
		if n.ID != "" {
			kept[strings.ToLower(n.ID)] = true
		}
	}
	return kept
}

// removalResult is planRemovals' answer.
type removalResult struct {
	resources []*Resource
	diags     diag.List
}

// planRemovals decides what the change under review does to the resources
// it removes from the manifests (while the other reads go on).
func (m *maker) planRemovals(nodes []*graph.Node) ([]*Resource, diag.List) {
	if len(nodes) == 0 {
		return nil, nil
	}
	var diags diag.List
	rm, err := PlanRemovals(m.ctx, m.opts.Reader, m.opts.Base, nodes, RemovalOptions{IfExists: m.opts.ReconcilePolicyIfExists, Kept: m.keptIDs()})
	if err != nil {
		diags.Add(diag.Errorf(diag.Source{}, "", "", "reading the resources removed from the manifests: %v", err))
		return nil, diags
	}
	for _, w := range rm.Warnings {
		diags.Add(diag.Warningf(diag.Source{}, "", "", "%s: the cascade guard cannot vouch for what it holds", w))
	}
	for _, r := range rm.Resources {
		r.Notes = append(r.Notes, "removed from the manifests: the base holds it at "+r.Source)
	}
	return rm.Resources, diags
}

// withoutRemoved is the unmanaged list less the resources the plan deletes
// or detaches, which it names itself.
func withoutRemoved(unmanaged []string, removed []*Resource) []string {
	if len(removed) == 0 {
		return unmanaged
	}
	ids := map[string]bool{}
	for _, r := range removed {
		ids[strings.ToLower(r.ARMID)] = true
	}
	out := unmanaged[:0]
	for _, id := range unmanaged {
		if !ids[strings.ToLower(id)] {
			out = append(out, id)
		}
	}
	return out
}
