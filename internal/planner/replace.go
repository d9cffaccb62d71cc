package planner

import (
	"fmt"
	"strings"
	"sync"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// matchReplace checks Options.Replace against the plan: a pattern that
// names no resource is an error, as Terraform's -replace is.
func (m *maker) matchReplace(p *Plan) diag.List {
	var diags diag.List
	for _, pattern := range m.opts.Replace {
		matched := false
		for _, r := range p.Resources {
			if !r.Removed() && graph.MatchAddress(r.Address, pattern) {
				matched = true
				break
			}
		}
		if !matched {
			diags.Add(diag.Errorf(diag.Source{}, "", "", "-replace %s: no resource of the plan has that address (group/Kind/namespace/name, Kind/namespace/name or Kind/name)", pattern))
		}
	}
	return diags
}

// replacedOwner is the outermost owner of n that this plan replaces: ARM
// deletes n with it, so n is created again after it.
func (m *maker) replacedOwner(n *graph.Node) *Resource {
	var root *Resource
	for a := n.Owner; a != nil; a = a.Owner {
		if as := m.states[a]; as != nil && as.decision != nil && as.decision.Action == ActionRecreate {
			root = as.decision
		}
	}
	return root
}

// listNotRecreated adds to the replacements' Cascades the resources ARM
// deletes with them that will not be created again, in the plan's order
// (they are decided concurrently): those their policy keeps from it, and
// those that are blocked (apply, even with --allow-partial, would delete
// them with their owner and never create them again).
func listNotRecreated(p *Plan, states map[*graph.Node]*nodeState, replaced func(*graph.Node) *Resource) {
	for _, r := range p.Resources {
		st := states[r.Node]
		switch {
		case st != nil && st.keptByPolicyIn != nil:
			root := st.keptByPolicyIn
			root.Cascades = append(root.Cascades, Cascade{By: root.Address, ID: r.ARMID, Address: r.Address, Reason: cascadeMarked(r.Policy.Value)})
		case r.Action == ActionBlocked && r.Exists && r.Node != nil:
			if root := replaced(r.Node); root != nil {
				root.Cascades = append(root.Cascades, Cascade{By: root.Address, ID: r.ARMID, Address: r.Address, Reason: "blocked (" + strings.Join(r.Reasons, "; ") + "): deleted with it, it would not be created again"})
			}
		}
	}
}

// replace decides r, which exists, as a replacement when -replace names it,
// its owner is replaced, or a value Azure accepts only at creation comes
// from a replaced resource (replacedByInputs), and reports whether it did.
// A replacement is a DELETE then a PUT of the body a create sends (built as
// for a resource that does not exist); a resource ARM deletes with its
// replaced owner gets only the PUT. A policy that keeps the resource in
// Azure (detach-on-delete, skip) blocks a requested replacement.
func (m *maker) replace(st *nodeState, r *Resource) bool {
	n := st.node
	root := m.replacedOwner(n)
	if from := m.nameFromReplaced(n); from != nil {
		r.Action, r.Reason = ActionBlocked, ReasonBlocked
		r.Reasons = append(r.Reasons, fmt.Sprintf("its Azure name comes from %s (azureNameFromConfig), which is replaced: the new one names another %s, which azk cannot create in the same apply as it deletes this one; --allow-partial applies the rest, the next plan creates the new one, and this one stays in Azure until it is deleted", from.Address(), n.Kind.Kind))
		return true
	}
	requested := m.replaceSet[r.Address] || root != nil
	if !requested && !m.replacedByInputs(st, r) {
		return false
	}
	why := "-replace"
	if !requested {
		why = inputsCause(r)
	}
	if root != nil && r.Policy.Value != graph.PolicyManage {
		st.keptByPolicyIn = root
		if r.Policy.Value == graph.PolicySkip {
			r.Notes = append(r.Notes, fmt.Sprintf("ARM deletes it with %s, and reconcile-policy skip never creates it again", root.Address))
			return false
		}
	}
	if root == nil && r.Policy.Value != graph.PolicyManage {
		r.Action, r.Reason = ActionBlocked, ReasonBlocked
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s: under reconcile-policy %s azk never deletes it in Azure, so it cannot replace it", why, r.Policy.Value))
		return true
	}
	if root == nil && n.Kind.NoDelete {
		r.Action, r.Reason = ActionBlocked, ReasonBlocked
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s: Azure cannot delete a %s on its own, so it cannot be replaced: replace its owner", why, n.Kind.Kind))
		return true
	}
	rootID := n.ID
	if root != nil {
		rootID = root.ARMID
	}
	req, diags := convert.Convert(m.g, n, m.sourcesAfterReplacing(nil, n, m.replacedProducers(n), rootID))
	var reasons []string
	for _, d := range diags {
		if d.Severity == diag.SeverityError {
			reasons = append(reasons, fieldMessage(d))
		}
	}
	if len(reasons) > 0 {
		r.Action, r.Reason, r.Reasons = ActionBlocked, ReasonBlocked, reasons
		return true
	}
	r.Action, r.Reason = ActionRecreate, ReasonReplaceRequested
	r.Request, r.Desired = req, req.Body
	r.Secrets = secretPaths(r.Desired)
	r.Changes = bodydiff.For(n.Kind).Diff(r.Desired, nil)
	r.Notes = append([]string(nil), req.Notes...)
	if root != nil {
		r.Reason, r.CascadedBy = ReasonOwnerReplaced, root.Address
		r.Notes = append(r.Notes, "ARM deletes it with "+root.Address+": it is created again after it")
		return true
	}
	if !requested {
		r.Reason = ReasonInputReplaced
		r.Notes = append(r.Notes, fmt.Sprintf("deleted before %s, created again after it with the values it then exports", strings.Join(inputsFrom(r), ", ")))
	}
	r.Notes = append(r.Notes, "deleted, then created again: ARM deletes its children with it, and those in the manifests are created again after it")
	if users := m.referrers(n); len(users) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s refer to it and stay as they are: ARM may refuse to delete it while they do", strings.Join(users, ", ")))
	}
	return true
}

// referrers are the addresses of the resources that refer to n by ARM ID
// without being its children (which go with it); those that read what it
// exports carry the replacement on (replacedByInputs).
func (m *maker) referrers(n *graph.Node) []string {
	var out []string
	for _, o := range m.g.Nodes {
		owned := false
		for a := o.Owner; a != nil; a = a.Owner {
			owned = owned || a == n
		}
		if owned {
			continue
		}
		for _, e := range o.Edges {
			if e.Kind == graph.EdgeReference && e.To == n {
				out = append(out, o.Address())
				break
			}
		}
	}
	return out
}

// replaceCascades lists, for each replacement whose DELETE azk sends, the
// children ARM would delete with it that the manifests do not create again.
func (m *maker) replaceCascades(p *Plan) {
	inInput := sync.OnceValue(m.keptIDs) // only with a replacement
	l := &childLister{reader: m.opts.Reader, fate: func(id string) (bool, string) {
		return inInput()[id], CascadeNotInInput
	}}
	for _, r := range p.Resources {
		if r.Action == ActionRecreate && r.CascadedBy == "" {
			l.cascades = nil
			l.walk(m.ctx, r.Address, r.ARMID, r.ARMType)
			r.Cascades = append(r.Cascades, l.cascades...)
		}
	}
}
