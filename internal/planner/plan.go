// Package planner decides, per resource, what applying the manifests would do
// to Azure, and the plan it makes is the contract apply keeps: a PUT for each
// create and update (each with its reason code), nothing for the rest. A Plan
// is data; comparing bodies (bodydiff), showing a plan (views) and keeping it
// in a file (planfile) are separate.
//
// The plan needs no state of its own. An existing resource that matches the
// manifests is no change and one that differs is an update, whether azk
// created it or found it, as the operator's default reconcile-policy-if-exists
// (manage) makes them behave the same. A changed PUT body is shown with
// everything it changes, removals of what Azure holds beyond the body
// included (see package bodydiff for the comparison rules).
//
// A stateless plan cannot see a change of Azure name or owner: either is
// another ARM ID, so the old resource is not read and the new one plans as a
// create. Where the input's resource groups hold unmanaged resources of the
// same type, the create says so (see Resource.Notes). Secrets are never
// returned by ARM, so a changed secret is not seen either: the plan lists
// each resource's secret paths, and --send-secrets sends them on request.
package planner

import (
	"strings"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// FormatVersion is the version of the plan's JSON form (-o json and saved
// plans). It changes when a field changes meaning.
const FormatVersion = 2

// Action is what applying does to one resource. Only create and update write
// to Azure (one PUT each); every other action reads at most.
type Action string

const (
	ActionCreate   Action = "create"           // does not exist: PUT
	ActionUpdate   Action = "update"           // exists, and the PUT changes it (see Reason): PUT
	ActionNoChange Action = "no-change"        // exists and matches the desired body: nothing is sent
	ActionSkip     Action = "skip"             // reconcile-policy skip: read only, never written
	ActionBlocked  Action = "blocked"          // cannot proceed: see Reasons
	ActionReplace  Action = "replace-required" // a change Azure cannot make in place: an error, never applied
	// ActionRecreate: delete, then create (-replace=ADDRESS): a DELETE and
	// a PUT, or only the PUT when ARM deletes it with its owner (CascadedBy).
	ActionRecreate Action = "replace"
	// ActionDelete: removed from the manifests (azk plan --base), or
	// destroyed (azk plan --destroy), under reconcile-policy manage: a
	// DELETE, or none when ARM deletes it with its owner (CascadedBy).
	ActionDelete Action = "delete"
	// ActionDetach: removed from the manifests, or destroyed, under
	// detach-on-delete or skip: left in Azure, no request; azk stops
	// managing it.
	ActionDetach Action = "detach"
)

// Reason says why a resource got its action, as a stable code for tools
// (like Terraform's action reasons); Reasons and Notes say it for people.
type Reason string

const (
	// ReasonMissing: create, Azure does not have it.
	ReasonMissing Reason = "create_because_missing"
	// ReasonOwnerCreated: create, its owner is created by this plan, so it was not read.
	ReasonOwnerCreated Reason = "create_because_owner_created"
	// ReasonNameAfterApply: create, its Azure name is another resource's
	// status value, read once that resource is applied (azureNameFromConfig).
	ReasonNameAfterApply Reason = "create_because_name_known_after_apply"
	// ReasonChanged: update, the body changes what Azure holds (see Changes).
	ReasonChanged Reason = "update_because_changed"
	// ReasonFailed: update, Azure holds it in a failed provisioning state;
	// the PUT is sent again, as the operator would.
	ReasonFailed Reason = "update_because_provisioning_failed"
	// ReasonSecretsRequested: update, the user asked to send its secrets
	// again (ARM never returns them, so a plan cannot see them change).
	ReasonSecretsRequested Reason = "update_because_secrets_requested"
	// ReasonMatches: no-change, Azure matches the desired body.
	ReasonMatches Reason = "no_change_because_matches"
	// ReasonPolicySkip: skip, under reconcile-policy skip.
	ReasonPolicySkip Reason = "skip_because_policy"
	// ReasonBlocked: blocked, see Reasons.
	ReasonBlocked Reason = "blocked"
	// ReasonCannotUpdate: replace-required, see Reasons.
	ReasonCannotUpdate Reason = "replace_because_cannot_update"
	// ReasonReplaceRequested: replace, named by -replace=ADDRESS.
	ReasonReplaceRequested Reason = "replace_because_requested"
	// ReasonOwnerReplaced: replace, its owner is replaced and ARM deletes
	// it with the owner, so it is created again after the owner.
	ReasonOwnerReplaced Reason = "replace_because_owner_replaced"
	// ReasonSecretChanged: update, the value of a v1 Secret it sends changed
	// between the base manifests and these (azk plan --base); the values
	// are compared by digest, never shown.
	ReasonSecretChanged Reason = "update_because_secret_changed"
	// ReasonRemoved: delete, the resource is in the base manifests and not
	// in these, under reconcile-policy manage.
	ReasonRemoved Reason = "delete_because_removed_from_manifests"
	// ReasonForget: detach, the resource is in the base manifests and not
	// in these, under detach-on-delete or skip: the operator leaves it.
	ReasonForget Reason = "forget_because_removed_from_manifests"
	// ReasonCannotDelete: detach, a kind Azure cannot delete on its own
	// (the operator's DeleteNotPossibleInAzure: a blob service, a server's
	// configuration) is removed or destroyed while its parent stays: no
	// DELETE is sent; it goes when its parent does.
	ReasonCannotDelete Reason = "forget_because_azure_cannot_delete"
)

// Origin says, in a three-way plan (azk plan --base), where a difference
// comes from (see bodydiff.Origin).
type Origin = bodydiff.Origin

const (
	OriginChange = bodydiff.OriginChange
	OriginDrift  = bodydiff.OriginDrift
)

// Policy is the reconcile policy that drove a decision, and where it came from.
type Policy struct {
	// Value is manage, detach-on-delete or skip.
	Value string `json:"value"`
	// Source is "annotation serviceoperator.azure.com/reconcile-policy",
	// "annotation serviceoperator.azure.com/reconcile-policy-if-exists",
	// "flag --reconcile-policy-if-exists" or "default".
	Source string `json:"source"`
}

// Change is one property-level difference between Azure and the desired
// body (see bodydiff.Change).
type Change = bodydiff.Change

// PathValue is a value at a body path: Azure's in Resource.AzureOnly, the
// manifests' in Resource.NotReturned (see bodydiff.PathValue).
type PathValue = bodydiff.PathValue

// Adoption marks a resource that this change of the manifests adds and that
// already exists in Azure (azk plan --base): applying takes it over.
type Adoption struct {
	// Policy is the reconcile policy it will be under.
	Policy string `json:"policy"`
	// Destroy says what azk destroy would then do to it.
	Destroy string `json:"destroy"`
}

// Move marks a resource the base declared under another address, or in
// another file, with the same ARM ID (azk plan --base): moved in the
// manifests, the same resource in Azure.
type Move struct {
	// From is the base's address for it; Source its file and line there.
	From   string `json:"from"`
	Source string `json:"source"`
}

// PolicyRecord is the reconcile-policy apply writes into the resource's
// source file, in place of reconcile-policy-if-exists, once the resource is
// created or adopted: the operator decides reconcile-policy-if-exists once,
// at a resource's first reconcile, and records the outcome on the object.
type PolicyRecord struct {
	// Value is the reconcile-policy written: manage for a resource apply
	// creates, the if-exists policy for one it adopts.
	Value string `json:"value"`
	// Source is the file:line it is written to.
	Source string `json:"source"`
	// Writable is false when the manifest cannot be written back (standard
	// input, kustomize output): apply then refuses unless told to go on
	// without recording.
	Writable bool `json:"writable"`
}

// Resource is the decision for one input resource.
type Resource struct {
	// Address is "group/Kind/namespace/name".
	Address   string `json:"address"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Source    string `json:"source"` // file:line
	// ARMID is empty while the Azure name is known only after apply
	// (ReasonNameAfterApply).
	ARMID   string `json:"armId"`
	ARMType string `json:"armType"`
	// APIVersion is the ARM api-version of the request.
	APIVersion string `json:"apiVersion"`

	Action Action `json:"action"`
	Reason Reason `json:"reason"`
	Policy Policy `json:"policy"`
	// Exists says whether Azure has the resource; false also when it was not
	// read because its owner will be created by this plan.
	Exists bool `json:"exists"`
	// Changes are what the PUT changes: every property set for a create,
	// additions, changes and removals for an update; in a drift report,
	// what drifted.
	Changes []Change `json:"changes,omitempty"`
	// Ignored are differences at paths the resource's ignore-changes
	// annotation names: the PUT carries Azure's value there, so they are not
	// changes. Before is Azure's value, After the manifests'.
	Ignored []Change `json:"ignored,omitempty"`
	// AzureOnly are values Azure holds at paths a PUT can set that the body
	// omits (read-only and secret paths never): an ARM PUT replaces the
	// resource, and whether the provider keeps an omitted value or resets
	// it varies. Listed for updates, and for every resource in a drift report.
	AzureOnly []PathValue `json:"azureOnly,omitempty"`
	// History is what Azure's change history says of AzureOnly and Changes
	// (azk plan --history); nil when it was not read.
	History *History `json:"history,omitempty"`
	// NotReturned are properties the body sets that Azure's GET does not
	// return: what a GET shows says nothing about them, so they are not
	// compared (not changes).
	NotReturned []PathValue `json:"notReturned,omitempty"`
	// DriftPolicy is the drift policy that decided what the PUT does with
	// what Azure holds beyond the manifests (see driftpolicy.go); set on
	// the resources that exist.
	DriftPolicy *Policy `json:"driftPolicy,omitempty"`
	// Kept are, under drift policy merge, the values Azure holds that the
	// body omits which the PUT carries, so they stay (listed for updates).
	Kept []PathValue `json:"kept,omitempty"`
	// Reflected are, under drift policy reflect, the differences the
	// manifests are to follow (azk refresh writes Azure's values into them):
	// the PUT carries Azure's value there. Before is Azure's value, After
	// the manifests' (absent where they set none).
	Reflected []Change `json:"reflected,omitempty"`
	// Secrets are the body paths that carry secrets. ARM never returns them,
	// so a plan cannot compare them: they are sent on create and on
	// ReasonSecretsRequested, and otherwise only with another change.
	Secrets []string `json:"secrets,omitempty"`
	// Adopt is set, with azk plan --base, on a resource new in this change
	// that already exists in Azure.
	Adopt *Adoption `json:"adopt,omitempty"`
	// Moved is set, with azk plan --base, on a resource the base declared
	// elsewhere (see Move); it is never adopted.
	Moved *Move `json:"moved,omitempty"`
	// RecordPolicy is the reconcile-policy apply writes into the manifest.
	RecordPolicy *PolicyRecord `json:"recordPolicy,omitempty"`
	// CascadedBy is, for a delete or replace, the address of the resource
	// ARM deletes it with (its owner, or the owner's owner): no DELETE of
	// its own is sent.
	CascadedBy string `json:"cascadedBy,omitempty"`
	// ReplacedInputs are the values its body takes from resources this plan
	// replaces (config maps and Secrets they export): known only once those
	// are created again (see ReasonInputReplaced, ReasonInputReplacedUpdate).
	ReplacedInputs []ReplacedInput `json:"replacedInputs,omitempty"`
	// Cascades are what deleting it (delete, replace) would remove beyond
	// what the plan deletes: resources not in the manifests, or marked
	// detach-on-delete or skip. Apply refuses unless --allow-cascade.
	Cascades []Cascade `json:"cascades,omitempty"`
	// Reasons explain blocked and replace-required.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are other things applying will do (e.g. "will recover a soft-deleted vault").
	Notes []string `json:"notes,omitempty"`
	// OperatorDiffers says where the operator, given the same manifests,
	// would act otherwise (see operator.go).
	OperatorDiffers []OperatorDifference `json:"operatorDiffers,omitempty"`
	// RuleFindings are the team's policies' findings about it (azk plan
	// --policy), shown beside it; the plan's JSON form lists them under
	// policy.findings.
	RuleFindings []RuleFinding `json:"-"`
	// DependsOn lists the addresses this resource waits for.
	DependsOn []string `json:"dependsOn,omitempty"`
	// After lists the removals (delete) whose DELETE must end before this
	// resource's PUT: ARM holds one resource of its kind per value it is
	// unique by (a role assignment of one role to one principal at one
	// scope), and the removed one holds it (see extensions.Unique).
	After []string `json:"after,omitempty"`
	// Exports are the config map and Secret keys it publishes, and where
	// each value comes from (never the values).
	Exports []Export `json:"exports,omitempty"`
	// SecretReads are the POSTs apply may send, once the resource exists,
	// to read the secrets it exports for the resources that consume them:
	// actions that read keys and change nothing in Azure (listKeys).
	SecretReads []string `json:"secretReads,omitempty"`
	// Fingerprint identifies the Azure state the decision was made on: the
	// resource's ETag, else a digest of its body; empty when it does not exist.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Desired is the body to PUT. In memory, secrets are convert.Sensitive and
	// late values convert.Unknown; saved plans hold digests instead of secrets.
	Desired map[string]any `json:"desired,omitempty"`

	// Node and Request link back to the resolved input (nil for a plan read from a file).
	Node    *graph.Node      `json:"-"`
	Request *convert.Request `json:"-"`
	// carried are the values the body carries from Azure (see CarryAzure).
	carried []carried
	// removedBody is Azure's body of a removed resource, as PlanRemovals read it.
	removedBody map[string]any
	// current is Azure's body, scrubbed of the run's secrets, as the plan
	// read it (see AzureBody).
	current map[string]any
}

// ID is the ARM ID r is written at: the plan's, else its node's when the
// plan does not know it yet.
func (r *Resource) ID() string {
	if r.ARMID != "" {
		return r.ARMID
	}
	if r.Node != nil {
		return r.Node.ID
	}
	return ""
}

// ETag is the entity tag Azure gave the resource when the plan read it,
// "" when it gave none (the fingerprint is then a digest of the body).
func (r *Resource) ETag() string {
	if strings.HasPrefix(r.Fingerprint, bodyDigestPrefix) {
		return ""
	}
	return r.Fingerprint
}

// Writes reports whether applying sends a write (one PUT) for r.
func (r *Resource) Writes() bool {
	return r.Action == ActionCreate || r.Action == ActionUpdate || r.Action == ActionRecreate
}

// Deletes reports whether applying sends a DELETE for r: a delete or a
// replace that ARM does not take care of with its owner.
func (r *Resource) Deletes() bool {
	return (r.Action == ActionDelete || r.Action == ActionRecreate) && r.CascadedBy == ""
}

// Removed reports a decision for a resource the manifests no longer hold
// (delete or detach): apply carries it out after every create and update.
func (r *Resource) Removed() bool { return r.Action == ActionDelete || r.Action == ActionDetach }

// Inputs are what a plan was made from, so a saved plan can be applied later
// by resolving the same inputs again (secret values are never saved).
type Inputs struct {
	Paths     []string `json:"paths,omitempty"`
	Kustomize []string `json:"kustomize,omitempty"`
	Namespace string   `json:"namespace"`
	// Targets and Selector choose part of the inputs (azk plan --target,
	// --selector): those resources and what they depend on.
	Targets  []string `json:"targets,omitempty"`
	Selector string   `json:"selector,omitempty"`
	// Base is the manifests before the change under review (azk plan
	// --base): the commit a git revision named, or the directory. The plan
	// is then three-way: differences carry an Origin, and resources
	// removed since are deleted or detached.
	Base string `json:"base,omitempty"`
}

// Plan is the decisions for every input resource, in dependency order.
type Plan struct {
	FormatVersion int    `json:"formatVersion"`
	Subscription  string `json:"subscription"`
	Inputs        Inputs `json:"inputs"`
	// InputsDigest is a digest of the resolved inputs, so a saved plan can tell
	// when the manifests changed since it was made.
	InputsDigest string      `json:"inputsDigest"`
	Resources    []*Resource `json:"resources"`
	// Unmanaged lists ARM IDs that exist in the input's resource groups but
	// are not in the input.
	Unmanaged []string `json:"unmanaged,omitempty"`
	// UnmanagedChildren are child resources Azure holds under resources of
	// the input that the input does not hold, with their parent (see
	// unmanagedCollections for which children are listed).
	UnmanagedChildren []UnmanagedChild `json:"unmanagedChildren,omitempty"`
	// Drift marks a drift report (azk plan --drift): Changes are what changed
	// in Azure against the manifests, and nothing is proposed; such a plan
	// cannot be applied.
	Drift bool `json:"drift,omitempty"`
	// Destroy marks a destroy plan (azk plan --destroy): every resource is
	// delete or detach, applied by azk destroy PLANFILE or azk apply
	// PLANFILE (see MakeDestroy).
	Destroy bool `json:"destroy,omitempty"`
	// SecretSalt salts the digests that stand for secrets in a saved plan, so
	// that a digest cannot be looked up in a table of common passwords. Set by planfile.Save.
	SecretSalt string `json:"secretSalt,omitempty"`
	// Endpoint is where the plan was made (Azure's cloud, or an emulator),
	// so that a saved plan is applied there; nil in plans saved before it
	// was recorded.
	Endpoint *Endpoint `json:"endpoint,omitempty"`
	// Preflight holds the pre-flight findings (azk plan --preflight); nil without.
	Preflight *Preflight `json:"preflight,omitempty"`
	// Rules holds the findings of the team's policies (azk plan --policy,
	// --require); nil without.
	Rules *Rules `json:"policy,omitempty"`
}

// Summary counts the decisions of a plan.
type Summary struct {
	Create   int `json:"create"`
	Update   int `json:"update"`
	NoChange int `json:"noChange"`
	// Skip counts skip decisions, skip (missing) included.
	Skip            int `json:"skip"`
	Blocked         int `json:"blocked"`
	ReplaceRequired int `json:"replaceRequired"`
	// Replace, Delete and Detach count those actions (-replace, --base).
	Replace int `json:"replace,omitempty"`
	Delete  int `json:"delete,omitempty"`
	Detach  int `json:"detach,omitempty"`
	// Adopt counts the resources flagged for adoption (with --base).
	Adopt int `json:"adopt,omitempty"`
	// Moved counts the resources moved in the manifests (with --base).
	Moved int `json:"moved,omitempty"`
	// Changed counts, in a three-way plan, the resources this change acts
	// on: a difference of origin change (a rotated secret among them, and
	// one Azure cannot make in place), a removal, a replacement, an adoption.
	Changed int `json:"changed,omitempty"`
	// Drifted counts the resources whose Azure state differs from the
	// manifests: in a drift report, every one; in a three-way plan, those
	// with a difference of origin drift (or a failed provisioning).
	Drifted int `json:"drifted,omitempty"`
	// Reflected counts the resources whose manifests are to follow Azure
	// (drift policy reflect: azk refresh).
	Reflected int `json:"reflected,omitempty"`
	// Unmanaged counts both unmanaged lists: the resource groups' and the children.
	Unmanaged int `json:"unmanaged"`
}

// Summary counts the plan's decisions.
func (p *Plan) Summary() Summary {
	var s Summary
	for _, r := range p.Resources {
		switch r.Action {
		case ActionCreate:
			s.Create++
		case ActionUpdate:
			s.Update++
		case ActionNoChange:
			s.NoChange++
		case ActionSkip:
			s.Skip++
		case ActionBlocked:
			s.Blocked++
		case ActionReplace:
			s.ReplaceRequired++
		case ActionRecreate:
			s.Replace++
		case ActionDelete:
			s.Delete++
		case ActionDetach:
			s.Detach++
		}
		if r.Adopt != nil {
			s.Adopt++
		}
		if r.Moved != nil {
			s.Moved++
		}
		if len(r.Reflected) > 0 {
			s.Reflected++
		}
		if p.Drift && r.Exists && r.Drifted() {
			s.Drifted++
		}
		if p.Inputs.Base != "" && !p.Drift {
			change, drift := r.Origins()
			if change {
				s.Changed++
			}
			if drift {
				s.Drifted++
			}
		}
	}
	s.Unmanaged = len(p.Unmanaged) + len(p.UnmanagedChildren)
	return s
}

// HasChanges reports whether applying the plan would write to Azure (a
// create or an update) or record a policy in a manifest. For a drift report
// it says whether anything drifted.
func (p *Plan) HasChanges() bool {
	for _, r := range p.Resources {
		if p.Drift {
			if r.Exists && r.Drifted() {
				return true
			}
			continue
		}
		if r.Writes() || r.Action == ActionDelete || r.RecordPolicy != nil {
			return true
		}
	}
	return false
}

// HasErrors reports whether the plan holds a decision that is an error: a
// blocked resource (apply would stop half-way), a replacement Azure cannot
// make in place, a pre-flight error, or a policy's denial.
func (p *Plan) HasErrors() bool {
	if p.Preflight.Errors() > 0 || p.Rules.Denials() > 0 {
		return true
	}
	for _, r := range p.Resources {
		if r.Action == ActionReplace || r.Action == ActionBlocked {
			return true
		}
	}
	return false
}

// Drifted reports, in a drift report, a resource whose Azure state differs
// from the manifests or that another principal changed since azk's last
// write, whether or not the manifests set what it changed.
func (r *Resource) Drifted() bool {
	return len(r.Changes) > 0 || len(r.History.ChangedOutside()) > 0
}

// SkipMissing reports a skip decision for a resource that does not exist:
// its dependents are blocked.
func (r *Resource) SkipMissing() bool { return r.Action == ActionSkip && !r.Exists }
