package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/redact"
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
	// Secrets are the run's secret values, scrubbed from Azure's bodies as
	// they are read (see Options.Secrets); nil scrubs nothing.
	Secrets *redact.Set
	// Head is the manifests after the change (nil for destroy): a
	// reconcile-policy they set on a Namespace applies to what they remove
	// from it, as the operator sees that Namespace once the change is applied.
	Head *graph.Graph
}

// Removals are PlanRemovals' decisions.
type Removals struct {
	// Resources are the decisions for the resources Azure has, in the
	// order they go: dependents and children before what they depend on.
	Resources []*Resource
	// Gone are the resources Azure does not have: nothing to do.
	Gone []*graph.Node
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
				scrubbed, _ := opts.Secrets.Value(body)
				reads[i].body, reads[i].etag = scrubbed.(map[string]any), resp.ETag
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
			Exists: true, Fingerprint: fingerprint(rd.etag, rd.body), Node: n, removedBody: rd.body,
		}
		r.Policy = removalPolicy(g, opts.Head, n, opts.IfExists)
		switch {
		case r.Policy.Value != graph.PolicyManage:
			r.Action, r.Reason = ActionDetach, ReasonForget
			r.Notes = append(r.Notes, fmt.Sprintf("reconcile-policy %s: the operator leaves it in Azure when its object is deleted, so no request is sent and it is no longer managed", r.Policy.Value))
		case n.Kind.NoDelete:
			r.Action, r.Reason = ActionDetach, ReasonCannotDelete
			r.Notes = append(r.Notes, cannotDeleteNote(n))
		default:
			r.Action, r.Reason = ActionDelete, ReasonRemoved
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
			if r.Reason != ReasonCannotDelete { // that one goes only with its parent anyway
				by.Cascades = append(by.Cascades, Cascade{By: by.Address, ID: r.ARMID, Address: r.Address, Reason: cascadeMarked(r.Policy.Value)})
			}
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
	return out, nil
}

// removalPolicy is the reconcile policy a removed resource goes under: its
// own, as the base resolves it, unless its own annotations say nothing and
// the head sets one on its Namespace (added in the same change).
func removalPolicy(base, head *graph.Graph, n *graph.Node, ifExists string) Policy {
	p, _ := ResolvePolicy(base, n, true, ifExists)
	if head == nil || p.Source == PolicySourceAnnotation || p.Source == PolicySourceAnnotationIfExists {
		return p
	}
	if v, ok := head.NamespacePolicy(n); ok {
		return Policy{Value: v, Source: policySourceNamespace(n.Object.Namespace)}
	}
	return p
}

// cannotDeleteNote says why a kind Azure cannot delete is left in Azure.
func cannotDeleteNote(n *graph.Node) string {
	return fmt.Sprintf("Azure cannot delete a %s on its own (the operator refuses to: DeleteNotPossibleInAzure): no request is sent; it stays in Azure, no longer managed, until its parent is deleted", n.Kind.Kind)
}

// removedNodes are the ARM resources of the base manifests that these no
// longer hold, and so are to be deleted or detached. With a selection
// (--target, --selector) nothing is: what the selection leaves out is not
// planned. Nothing these manifests still declare is ever removed: a base
// resource whose ARM ID they hold under another object (a rename that keeps
// the ID) stays, and is shown moved; one whose kind and name an object of
// theirs has that azk does not read stays, with a warning naming that
// object. A resource whose ARM ID changed under the same object (a new azureName or owner) is an error,
// as the operator's webhook refuses it, unless -replace names it: then the
// old resource is removed and the new one created.
func (m *maker) removedNodes() []*graph.Node {
	base := m.opts.Base
	if base == nil || m.opts.Drift {
		return nil
	}
	if len(m.opts.Inputs.Targets) > 0 || m.opts.Inputs.Selector != "" {
		m.diags.Add(diag.Warningf(diag.Source{}, "", "", "--base with --target or --selector: resources removed from the manifests are not planned"))
		return nil
	}
	held := map[string]*graph.Node{} // lower-cased ARM ID -> the node of these manifests holding it
	byAddress := map[string]*graph.Node{}
	for _, n := range append(append([]*graph.Node(nil), m.g.Nodes...), m.g.Outside...) {
		byAddress[n.Address()] = n
		if n.ID != "" {
			held[strings.ToLower(n.ID)] = n
		}
	}
	var out []*graph.Node
	for _, n := range base.Nodes {
		if !n.Kind.IsARM() {
			continue
		}
		if head := byAddress[n.Address()]; head != nil {
			if m.idChanged(n, head) && m.replaceSet[head.Address()] {
				out = append(out, n) // -replace: the old one goes, the new one is created
			}
			continue
		}
		if n.ID == "" {
			if n.Pending != "" { // else the base does not resolve it: azk plan counts those
				m.diags.Add(diag.Warningf(n.Object.Source, n.Address(), "", "removed from the manifests, but its Azure name is another resource's status value: azk cannot tell which resource to delete"))
			}
			continue
		}
		if held[strings.ToLower(n.ID)] != nil {
			continue // moved: the resource that holds it says so (Resource.Moved)
		}
		if o := m.g.Declares(n.Object.Kind, n.Object.Namespace, n.Object.Name); o != nil {
			m.diags.Add(diag.Warningf(o.Source, o.Address(), "apiVersion", "declares a %s named %s/%s as the base did (%s), in a form azk does not read (%s): the resource it names is not deleted", n.Kind.Kind, n.Object.Namespace, n.Object.Name, n.Object.Source, o.APIVersion))
			continue
		}
		out = append(out, n)
	}
	return out
}

// baseOf is the base's object for n: the one at its address, or else the
// one holding its ARM ID at an address the manifests no longer hold.
func (m *maker) baseOf(n *graph.Node) *graph.Node {
	if bn := m.baseNodes[n.Address()]; bn != nil {
		return bn
	}
	if bn := m.baseByID[strings.ToLower(n.ID)]; n.ID != "" && bn != nil && m.headNodes[bn.Address()] == nil {
		return bn
	}
	return nil
}

// moved is where the base declared n, when it was another address or
// another file with the same ARM ID; nil otherwise.
func (m *maker) moved(n *graph.Node) *Move {
	bn := m.baseOf(n)
	if bn == nil || n.ID == "" || !strings.EqualFold(bn.ID, n.ID) {
		return nil
	}
	if bn.Address() == n.Address() && (bn.Object.HeadFile == "" || sameFile(bn.Object.HeadFile, n.Object.Source.File)) {
		return nil
	}
	return &Move{From: bn.Address(), Source: bn.Object.Source.String()}
}

// sameFile reports whether the working tree's file a is b, through links
// (a checkout under a linked folder); a file gone from it is not.
func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}

// idChanged reports, with an error unless -replace names the resource,
// whether head, the same object as base's n, names another ARM resource:
// the operator's webhook refuses a change of azureName or owner, and
// following it would leave the old resource behind, unmanaged.
func (m *maker) idChanged(n, head *graph.Node) bool {
	if n.ID == "" || head.ID == "" || strings.EqualFold(n.ID, head.ID) {
		return false
	}
	if m.replaceSet[head.Address()] {
		return true
	}
	field, what := "spec.owner", "its owner"
	if n.AzureName != head.AzureName {
		field, what = "spec.azureName", "its Azure name"
	}
	src := head.Object.Source
	if line := loader.FieldLine(head.Object, strings.Split(field, ".")...); line > 0 {
		src.Line = line
	}
	m.diags.Add(diag.Errorf(src, head.Address(), field,
		"%s changed since the base, so its ARM ID would change from %s to %s: the operator refuses this, and azk will not leave the old resource behind. "+
			"To rename or move it, give the object a new metadata.name as well (the base's object is then removed: apply --base creates the new resource and deletes the old one), "+
			"or pass -replace=%s to delete the old resource and create the new one", what, n.ID, head.ID, head.Address()))
	return true
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
	rm, err := PlanRemovals(m.ctx, m.opts.Reader, m.opts.Base, nodes, RemovalOptions{IfExists: m.opts.ReconcilePolicyIfExists, Kept: m.keptIDs(), Head: m.g, Secrets: m.opts.Secrets})
	if err != nil {
		diags.Add(diag.Errorf(diag.Source{}, "", "", "reading the resources removed from the manifests: %v", err))
		return nil, diags
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

// orderUnique makes each create wait for the removal whose resource holds
// what the created one is unique by (see extensions.Unique): ARM would
// refuse the create while the removed one exists, and removals otherwise
// go last. A renamed role assignment is deleted, then created.
func orderUnique(p *Plan) {
	held := map[string]*Resource{}
	for _, r := range p.Resources {
		if r.Action == ActionDelete && r.Deletes() {
			if key := extensions.UniqueKey(r.ARMType, r.ARMID, r.removedBody); key != "" {
				held[strings.ToLower(r.ARMType)+"|"+key] = r
			}
		}
	}
	if len(held) == 0 {
		return
	}
	for _, r := range p.Resources {
		if r.Action != ActionCreate {
			continue
		}
		if d := held[strings.ToLower(r.ARMType)+"|"+extensions.UniqueKey(r.ARMType, r.ID(), r.Desired)]; d != nil {
			r.After = append(r.After, d.Address)
			r.Notes = append(r.Notes, fmt.Sprintf("created once %s is deleted: Azure holds one %s for what it is unique by, and that one holds it now", d.Address, r.Kind))
		}
	}
}
