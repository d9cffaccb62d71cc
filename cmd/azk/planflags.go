package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// planFlags are the flags that shape a plan, shared by plan and apply.
type planFlags struct {
	ifExists      string
	sendSecrets   []string
	showUnchanged bool
	// base is --base GITREF|DIR: the manifests before the change under review.
	base string
	// replace are the -replace addresses.
	replace []string
	// driftPolicy is --drift-policy: merge, enforce or reflect.
	driftPolicy string
	// unmanagedChildren is --unmanaged-children: list the children of
	// managed resources that the manifests do not hold.
	unmanagedChildren bool
	// history is --history: read Azure's change history to classify what
	// the manifests leave unsaid; showDefaults is --show-defaults.
	history, showDefaults bool
}

func (f *planFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.ifExists, "reconcile-policy-if-exists", "", "policy for existing resources without a reconcile-policy annotation: manage, detach-on-delete or skip (default manage)")
	fl.StringArrayVar(&f.sendSecrets, "send-secrets", nil, "send the secrets of this resource again (ADDRESS: group/Kind/namespace/name, Kind/namespace/name or Kind/name; repeatable): Azure never returns secrets, so a plan cannot see them change")
	fl.BoolVar(&f.showUnchanged, "show-unchanged", false, "list the resources that stay as they are, not only their count")
	fl.Var(baseValue{&f.base}, "base", "the manifests before the change under review, GITREF (a revision of the repository holding the inputs) or DIR (a checkout of it): the plan tells this change from drift, deletes or detaches what the change removes, sends the Secrets it rotates, and flags what it adopts")
	fl.StringArrayVar(&f.replace, "replace", nil, "delete this resource and create it again, with the children ARM deletes with it (ADDRESS as for --send-secrets; repeatable; Terraform's -replace=ADDRESS)")
	fl.StringVar(&f.driftPolicy, "drift-policy", "", "what the PUT does with values Azure holds that the manifests do not say, for resources whose manifest and Namespace set no azk.azkcli.io/drift annotation: enforce (the operator's: reset them), merge (keep them: only the fields the manifests set change) or reflect (keep Azure's values where Azure differs; azk refresh writes them into the manifests) (default enforce)")
	fl.BoolVar(&f.unmanagedChildren, "unmanaged-children", true, "list the children Azure holds under the managed resources that the manifests do not (a subnet or firewall rule added in the portal); a list per child collection of each resource: =false saves those reads on a large estate")
	fl.BoolVar(&f.history, "history", true, "read Azure's change history (Resource Graph's change records, the Activity Log for older writes) of the resources read, to tell the values Azure set and nobody changed (never \"may reset\") from what another principal changed since azk's last write (drift, with who, when and through what) and from what Azure keeps where the manifests say otherwise; --history=false skips it")
	fl.BoolVar(&f.showDefaults, "show-defaults", false, "list the values Azure set at creation or at azk's write that nobody changed since (the history's defaults), which the plan otherwise leaves out")
	_ = cmd.RegisterFlagCompletionFunc("drift-policy", completeValues(graph.DriftPolicies...))
	_ = cmd.RegisterFlagCompletionFunc("replace", completeAddresses)
	_ = cmd.RegisterFlagCompletionFunc("reconcile-policy-if-exists", completeValues(policies...))
	_ = cmd.RegisterFlagCompletionFunc("send-secrets", completeAddresses)
}

func (f *planFlags) render(g *globalOptions) views.Options {
	return views.Options{Color: g.color(), ShowUnchanged: f.showUnchanged, ShowDefaults: f.showDefaults}
}

// plan reads every resource from Azure and decides what applying would do;
// with --base, against the manifests before the change too.
func (s *azureSession) plan(ctx context.Context, g *globalOptions, in *inputFlags, pf *planFlags, inputs planner.Inputs, drift bool) (*planner.Plan, diag.List) {
	var progress io.Writer
	if isTerminal(g.stderr) {
		progress = g.stderr
	}
	var base *graph.Graph
	var baseDiags diag.List
	if loader.NullRevision(pf.base) {
		fmt.Fprintf(g.stderr, "Notice: --base %s is git's null revision (GitHub's github.event.before on a branch's first push): no earlier manifests, so nothing is removed; the plan is two-way\n", pf.base)
	} else if pf.base != "" {
		var err error
		if base, inputs.Base, baseDiags, err = baseGraph(g, in, pf.base, inputs.Paths, s.graph); err != nil {
			return nil, diag.List{diag.Errorf(diag.Source{}, "", "", "%v", err)}
		}
	}
	opts := planner.Options{
		Reader:                  s.client,
		ReconcilePolicyIfExists: pf.ifExists,
		Inputs:                  inputs,
		Progress:                progress,
		Drift:                   drift,
		Base:                    base,
		SendSecrets:             pf.sendSecrets,
		Replace:                 pf.replace,
		DriftPolicy:             pf.driftPolicy,
		NoUnmanagedChildren:     !pf.unmanagedChildren,
		Secrets:                 g.secrets,
	}
	if pf.history {
		opts.History = s.client
	}
	p, diags := planner.Make(ctx, s.graph, opts)
	if p != nil {
		p.Endpoint = &s.endpoint
		if base != nil {
			baseDiags = append(baseDiags, declaredElsewhere(g, in, inputs.Paths, s.graph, p)...)
		}
	}
	return p, append(baseDiags, diags...)
}

// baseValue is --base, refused as it is parsed when it cannot be a
// directory or a revision, so that no command reads anything first.
type baseValue struct{ base *string }

func (v baseValue) String() string {
	if v.base == nil {
		return ""
	}
	return *v.base
}

func (v baseValue) Set(s string) error {
	if err := loader.CheckBase(s); err != nil {
		return err
	}
	*v.base = s
	return nil
}

func (baseValue) Type() string { return "GITREF|DIR" }

// savedDriftPolicyFlag is the --drift-policy a saved plan was made with, as
// the decisions it drove record it; "" when none did.
func savedDriftPolicyFlag(p *planner.Plan) string {
	for _, r := range p.Resources {
		if r.DriftPolicy != nil && r.DriftPolicy.Source == planner.DriftSourceFlag {
			return r.DriftPolicy.Value
		}
	}
	return ""
}
