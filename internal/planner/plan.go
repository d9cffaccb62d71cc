// Package planner decides, per resource, what applying the manifests would do
// to Azure: create, adopt, update, leave alone, skip or block, with
// property-level changes. A Plan is data; rendering it is separate.
//
// Diffs compare only what the desired body sets, under ARM's equivalences:
// ARM IDs, GUIDs and enum values in any case; locations by canonical name;
// numbers by value; named array items by name; empty as absent. Beyond the
// schema, the registry carries what the corpus recordings show ARM does with
// the values of each ARM type (registry.Observed): a property ARM never
// returns is shown on create and not compared after, like a secret; a string
// ARM returns in its own case (Postgres charset UTF8, role definition type
// CustomRole) compares in any case, other strings exactly, because ARM keeps
// their case; a value ARM stores as another one (MySQL utf8 as utf8mb3) and an
// item ARM adds to a named list (a Consumption workload profile) are not
// changes, as a PUT cannot change them.
//
// A stateless plan cannot see a change of Azure name or owner: either is
// another ARM ID, so the old resource is not read and the new one plans as a
// create. Where the input's resource groups hold unmanaged resources of the
// same type, the create says so (see Resource.Notes).
package planner

import (
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
)

// FormatVersion is the version of the plan's JSON form (-o json and saved
// plans). It changes when a field changes meaning.
const FormatVersion = 1

// Action is what applying would do to one resource.
type Action string

const (
	ActionCreate   Action = "create"           // does not exist: PUT
	ActionAdopt    Action = "adopt"            // exists, no explicit reconcile-policy: taken over per reconcile-policy-if-exists
	ActionUpdate   Action = "update"           // exists, explicit manage/detach-on-delete policy, body differs: PUT
	ActionNoChange Action = "no-change"        // exists and matches the desired body
	ActionSkip     Action = "skip"             // reconcile-policy skip (or if-exists skip): read only, never written
	ActionBlocked  Action = "blocked"          // cannot proceed: see Reasons
	ActionReplace  Action = "replace-required" // a change Azure cannot make in place: an error, never applied
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

// Change is one property-level difference between Azure and the desired body.
// Before is absent for an added property, After for a removed one.
type Change struct {
	// Path is the property's location in the ARM body, e.g. "properties.addressSpace.addressPrefixes[0]".
	Path   string `json:"path"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
	// Sensitive values are never compared or shown: Before and After are empty.
	Sensitive bool `json:"sensitive,omitempty"`
	// Unknown means After is known only after a dependency is applied.
	Unknown bool `json:"unknown,omitempty"`
}

// Resource is the decision for one input resource.
type Resource struct {
	// Address is "group/Kind/namespace/name".
	Address   string `json:"address"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Source    string `json:"source"` // file:line
	ARMID     string `json:"armId"`
	ARMType   string `json:"armType"`
	// APIVersion is the ARM api-version of the request.
	APIVersion string `json:"apiVersion"`

	Action Action `json:"action"`
	Policy Policy `json:"policy"`
	// Exists says whether Azure has the resource; false also when it was not
	// read because its owner will be created by this plan.
	Exists bool `json:"exists"`
	// Changes are set for adopt (manage) and update, and in a drift report for
	// every existing resource that drifted.
	Changes []Change `json:"changes,omitempty"`
	// Reasons explain blocked and replace-required.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are other things applying will do (e.g. "will recover a soft-deleted vault").
	Notes []string `json:"notes,omitempty"`
	// DependsOn lists the addresses this resource waits for.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Fingerprint identifies the Azure state the decision was made on: the
	// resource's ETag, else a digest of its body; empty when it does not exist.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Desired is the body to PUT. In memory, secrets are convert.Sensitive and
	// late values convert.Unknown; saved plans hold digests instead of secrets.
	Desired map[string]any `json:"desired,omitempty"`

	// Node and Request link back to the resolved input (nil for a plan read from a file).
	Node    *graph.Node      `json:"-"`
	Request *convert.Request `json:"-"`
}

// Inputs are what a plan was made from, so a saved plan can be applied later
// by resolving the same inputs again (secret values are never saved).
type Inputs struct {
	Paths     []string `json:"paths,omitempty"`
	Kustomize []string `json:"kustomize,omitempty"`
	Namespace string   `json:"namespace"`
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
	// Drift marks a drift report (azk plan --drift): Changes are what changed
	// in Azure against the manifests, and nothing is proposed; such a plan
	// cannot be applied.
	Drift bool `json:"drift,omitempty"`
	// SecretSalt salts the digests that stand for secrets in a saved plan, so
	// that a digest cannot be looked up in a table of common passwords. Set by Save.
	SecretSalt string `json:"secretSalt,omitempty"`
}

// Summary counts the decisions of a plan.
type Summary struct {
	Create int `json:"create"`
	Adopt  int `json:"adopt"`
	// AdoptWithChanges counts the adoptions whose PUT changes Azure.
	AdoptWithChanges int `json:"adoptWithChanges"`
	Update           int `json:"update"`
	NoChange         int `json:"noChange"`
	// Skip counts skip decisions, skip (missing) included.
	Skip            int `json:"skip"`
	Blocked         int `json:"blocked"`
	ReplaceRequired int `json:"replaceRequired"`
	// Drifted counts the resources whose Azure state differs from the
	// manifests, in a drift report only.
	Drifted   int `json:"drifted,omitempty"`
	Unmanaged int `json:"unmanaged"`
}

// Summary counts the plan's decisions.
func (p *Plan) Summary() Summary {
	var s Summary
	for _, r := range p.Resources {
		switch r.Action {
		case ActionCreate:
			s.Create++
		case ActionAdopt:
			s.Adopt++
			if len(r.Changes) > 0 {
				s.AdoptWithChanges++
			}
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
		}
		if p.Drift && r.Exists && len(r.Changes) > 0 {
			s.Drifted++
		}
	}
	s.Unmanaged = len(p.Unmanaged)
	return s
}

// HasChanges reports whether applying the plan would change Azure: a
// create, an update, or an adoption that changes the resource. An adoption
// without changes is not one: its PUT leaves Azure as it is, so
// --detailed-exitcode exits 0 for it, while the summary still counts it under
// "to adopt" (and not "with changes"). For a drift report it says whether
// anything drifted.
func (p *Plan) HasChanges() bool {
	for _, r := range p.Resources {
		if p.Drift {
			if r.Exists && len(r.Changes) > 0 {
				return true
			}
			continue
		}
		if r.Action == ActionCreate || len(r.Changes) > 0 && (r.Action == ActionAdopt || r.Action == ActionUpdate) {
			return true
		}
	}
	return false
}

// HasErrors reports whether the plan holds a decision that is an error:
// a replacement Azure cannot make in place.
func (p *Plan) HasErrors() bool {
	for _, r := range p.Resources {
		if r.Action == ActionReplace {
			return true
		}
	}
	return false
}

// SkipMissing reports a skip decision for a resource that does not exist:
// its dependents are blocked.
func (r *Resource) SkipMissing() bool { return r.Action == ActionSkip && !r.Exists }
