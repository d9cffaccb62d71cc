package planner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

// pending is the decision for a resource whose ARM ID is known only once
// another resource of this plan exists: its Azure name is that resource's
// status value. Apply creates the other resource, reads the name, then
// creates this one.
func (m *maker) pending(n *graph.Node, badName error) *Resource {
	r := &Resource{
		Address: n.Address(), Kind: n.Kind.Kind, Namespace: n.Object.Namespace, Name: n.Object.Name,
		Source: n.Object.Source.String(), ARMType: n.Kind.ARMType, APIVersion: n.Kind.APIVersion,
		Action: ActionCreate, Reason: ReasonNameAfterApply, Node: n,
	}
	r.Policy, _ = m.policy(n, false)
	r.RecordPolicy = m.recordPolicy(n, false, false, r.Policy)
	for _, d := range n.DependsOn() {
		r.DependsOn = append(r.DependsOn, d.Address())
	}
	r.Exports = exportsOf(n)
	req, diags := convert.Convert(m.g, n, m.sources(nil, n))
	if reasons := m.dependencyBlockers(n); len(reasons) > 0 || badName != nil {
		if badName != nil {
			reasons = append(reasons, badName.Error())
		}
		r.Action, r.Reason, r.Reasons = ActionBlocked, ReasonBlocked, reasons
		return r
	}
	for _, d := range diags {
		if d.Severity == diag.SeverityError {
			r.Reasons = append(r.Reasons, fieldMessage(d))
		}
	}
	if len(r.Reasons) > 0 {
		r.Action, r.Reason = ActionBlocked, ReasonBlocked
		return r
	}
	r.Request, r.Desired = req, req.Body
	r.Notes = append(r.Notes, req.Notes...)
	r.Notes = append(r.Notes, "its Azure name, and so its ARM ID, is known once "+n.Pending)
	r.Secrets = secretPaths(r.Desired)
	r.Changes = bodydiff.For(n.Kind).Diff(r.Desired, nil)
	return r
}

func (m *maker) decide(st *nodeState) *Resource {
	n := st.node
	m.readReplacedInputs(st)
	r := &Resource{
		Address:    n.Address(),
		Kind:       n.Kind.Kind,
		Namespace:  n.Object.Namespace,
		Name:       n.Object.Name,
		Source:     n.Object.Source.String(),
		ARMID:      n.ID,
		ARMType:    n.Kind.ARMType,
		APIVersion: n.Kind.APIVersion,
		Exists:     st.exists,
		Node:       n,
		Request:    st.request,
		current:    st.current,
	}
	st.decision = r
	if m.threeWay() {
		r.Moved = m.moved(n)
	}
	var explicit bool
	r.Policy, explicit = m.policy(n, st.exists)
	if st.exists {
		r.Fingerprint = fingerprint(st.etag, st.current)
	}
	for _, d := range n.DependsOn() {
		r.DependsOn = append(r.DependsOn, d.Address())
	}
	r.Exports, r.SecretReads = exportsOf(n), secretReads(m.g, n)
	if st.request != nil {
		r.Desired = st.request.Body
		r.Notes = append(r.Notes, st.request.Notes...)
		r.Secrets = secretPaths(r.Desired)
	}
	if reasons := m.blockers(st); len(reasons) > 0 {
		r.Action, r.Reason, r.Reasons = ActionBlocked, ReasonBlocked, reasons
		return r
	}
	if m.opts.Base != nil {
		st.baseDiff = m.baseDiffOf(n, st, r.Desired)
	}
	r.RecordPolicy = m.recordPolicy(n, explicit, st.exists, r.Policy)
	d := bodydiff.For(n.Kind)
	if !st.exists {
		if explicit && r.Policy.Value == graph.PolicySkip {
			r.Action, r.Reason = ActionSkip, ReasonPolicySkip
			r.Reasons = []string{"does not exist, and reconcile-policy skip never creates it"}
			return r
		}
		r.Action, r.Reason = ActionCreate, ReasonMissing
		if st.notRead {
			r.Reason = ReasonOwnerCreated
		}
		if m.replaceSet[r.Address] {
			r.Notes = append(r.Notes, "-replace: it does not exist in Azure, so it is created")
		}
		r.Notes = append(r.Notes, m.waitNotes(n, nil)...)
		if !m.opts.Drift {
			r.Changes = d.Diff(r.Desired, nil)
		}
		return r
	}
	if m.opts.Base != nil && m.baseOf(n) == nil {
		r.Adopt = &Adoption{Policy: r.Policy.Value, Destroy: destroyEffect(r.Policy.Value)}
	}
	if len(n.IgnoreChanges) > 0 {
		r.Ignored = keepIgnored(d, n.IgnoreChanges, r.Desired, st.current) // the operator sends them: see OperatorDiffers
	}
	compared := m.applyDriftPolicy(r, st, d, d.Compare(r.Desired, st.current))
	r.NotReturned = compared.NotReturned
	changes := m.lackingChanges(r, st.baseDiff, compared)
	if m.opts.Drift {
		r.Changes, r.AzureOnly = changes, compared.AzureOnly
	}
	if !m.opts.Drift && m.replace(st, r) {
		r.Ignored, r.DriftPolicy, r.Kept, r.Reflected, r.carried = nil, nil, nil, nil, nil // a create carries the manifests' values
		return r
	}
	if r.Policy.Value == graph.PolicySkip {
		r.Action, r.Reason = ActionSkip, ReasonPolicySkip // never written, so nothing to replace either
		return r
	}
	if reasons := m.replaceReasons(n, r.Desired, st.current); len(reasons) > 0 {
		r.Action, r.Reason, r.Reasons, r.Changes = ActionReplace, ReasonCannotUpdate, reasons, changes
		return r
	}
	if r.Policy.Value == graph.PolicyDetachOnDelete && r.Policy.Source != PolicySourceAnnotation {
		r.Notes = append(r.Notes, "detach-on-delete: azk destroy will leave it in Azure")
	}
	r.Changes = changes
	var rotated []string
	if m.threeWay() {
		rotated = st.baseDiff.secrets
	}
	if len(rotated) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the value of a Secret it sends differs from the base's (compared by digest, never shown) at %s: the PUT sends it again", strings.Join(rotated, ", ")))
	}
	switch state := provisioningState(st.current); {
	case len(r.ReplacedInputs) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonInputReplacedUpdate
	case len(changes) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonChanged
	case len(rotated) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonSecretChanged
	case failedState(state):
		r.Action, r.Reason = ActionUpdate, ReasonFailed
		r.Notes = append(r.Notes, fmt.Sprintf("Azure holds it with provisioningState %s: the PUT is sent again, as the operator would", state))
	case m.sendSecrets[r.Address] && len(r.Secrets) > 0:
		r.Action, r.Reason = ActionUpdate, ReasonSecretsRequested
	default:
		r.Action, r.Reason = ActionNoChange, ReasonMatches
	}
	if r.Action == ActionUpdate {
		r.AzureOnly = compared.AzureOnly // what the PUT may reset
	}
	if r.Action == ActionUpdate && len(r.Secrets) > 0 {
		r.Changes = append(r.Changes, secretChanges(r.Desired)...)
	}
	if r.Writes() {
		r.Notes = append(r.Notes, m.waitNotes(n, st.current)...)
	}
	return r
}

// destroyEffect says what azk destroy does to a resource under policy.
func destroyEffect(policy string) string {
	switch policy {
	case graph.PolicyDetachOnDelete:
		return "azk destroy leaves it in Azure (detach-on-delete)"
	case graph.PolicySkip:
		return "azk destroy leaves it in Azure (skip)"
	}
	return "azk destroy deletes it from Azure, although it existed before this change"
}

// failedState reports a terminal provisioning state that is not success:
// the last write did not take, so the operator sends it again.
func failedState(state string) bool {
	return strings.EqualFold(state, "Failed") || strings.EqualFold(state, "Canceled") || strings.EqualFold(state, "Cancelled")
}

func provisioningState(body map[string]any) string {
	props, _ := body["properties"].(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}

// dependencyBlockers lists the dependencies of n that keep it from being applied.
func (m *maker) dependencyBlockers(n *graph.Node) []string {
	var reasons []string
	for _, d := range n.DependsOn() {
		var dr *Resource
		if ds := m.states[d]; ds != nil {
			dr = ds.decision
		} else if pn := m.pendingNodes[d]; pn != nil {
			dr = pn.decision
		}
		switch {
		case dr == nil:
		case dr.SkipMissing():
			reasons = append(reasons, fmt.Sprintf("depends on %s, which does not exist and has reconcile-policy skip", dr.Address))
		case dr.Action == ActionBlocked:
			reasons = append(reasons, fmt.Sprintf("depends on %s, which is blocked", dr.Address))
		case dr.Action == ActionReplace:
			reasons = append(reasons, fmt.Sprintf("depends on %s, which needs replacing", dr.Address))
		}
	}
	return reasons
}

// blockers lists why st cannot be applied, if it cannot.
func (m *maker) blockers(st *nodeState) []string {
	reasons := m.dependencyBlockers(st.node)
	reasons = append(reasons, st.missingARMIDs...)
	reasons = append(reasons, st.roleErrors...)
	if st.readErr != nil {
		reasons = append(reasons, "reading it failed: "+st.readErr.Error())
	}
	// A resource's own conversion errors (a secret not found) block it and
	// show in the plan with its dependents, rather than failing the plan.
	kept := st.diags[:0]
	for _, d := range st.diags {
		switch {
		case d.Severity != diag.SeverityError:
			kept = append(kept, d)
		case st.readErr == nil:
			reasons = append(reasons, fieldMessage(d))
		}
	}
	st.diags = kept
	if st.readErr != nil {
		st.diags.Add(diag.Errorf(st.node.Object.Source, st.node.Address(), "", "reading %s: %v", st.node.ID, st.readErr))
	}
	if st.request == nil && len(reasons) == 0 {
		reasons = append(reasons, "no ARM request could be built")
	}
	return reasons
}

func fieldMessage(d *diag.Diagnostic) string {
	if d.Field != "" {
		return d.Field + ": " + d.Message
	}
	return d.Message
}

// fingerprint identifies the state a decision was made on.
func fingerprint(etag string, body map[string]any) string {
	if etag != "" {
		return etag
	}
	b, _ := json.Marshal(body)
	sum := sha256.Sum256(b)
	return bodyDigestPrefix + hex.EncodeToString(sum[:])
}

// bodyDigestPrefix starts a fingerprint that digests a body without an ETag.
const bodyDigestPrefix = "sha256:"
