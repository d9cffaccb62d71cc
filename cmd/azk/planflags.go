package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/planner"
)

// planFlags are the flags that shape a plan, shared by plan and apply.
type planFlags struct {
	ifExists      string
	sendSecrets   []string
	showUnchanged bool
}

func (f *planFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.ifExists, "reconcile-policy-if-exists", "", "policy for existing resources without a reconcile-policy annotation: manage, detach-on-delete or skip (default manage)")
	fl.StringArrayVar(&f.sendSecrets, "send-secrets", nil, "send the secrets of this resource again (ADDRESS: group/Kind/namespace/name, Kind/namespace/name or Kind/name; repeatable): Azure never returns secrets, so a plan cannot see them change")
	fl.BoolVar(&f.showUnchanged, "show-unchanged", false, "list the resources that stay as they are, not only their count")
	_ = cmd.RegisterFlagCompletionFunc("reconcile-policy-if-exists", completeValues(policies...))
	_ = cmd.RegisterFlagCompletionFunc("send-secrets", completeAddresses)
}

func (f *planFlags) render(g *globalOptions) planner.RenderOptions {
	return planner.RenderOptions{Color: g.color(), ShowUnchanged: f.showUnchanged}
}

// plan reads every resource from Azure and decides what applying would do.
func (s *azureSession) plan(ctx context.Context, g *globalOptions, pf *planFlags, inputs planner.Inputs, base map[string]bool, drift bool) (*planner.Plan, diag.List) {
	var progress io.Writer
	if isTerminal(g.stderr) {
		progress = g.stderr
	}
	p, diags := planner.Make(ctx, s.graph, planner.Options{
		Reader:                  s.client,
		ReconcilePolicyIfExists: pf.ifExists,
		Inputs:                  inputs,
		Progress:                progress,
		Drift:                   drift,
		Base:                    base,
		SendSecrets:             pf.sendSecrets,
	})
	if p != nil {
		p.Endpoint = &s.endpoint
	}
	return p, diags
}
