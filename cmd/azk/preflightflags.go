package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/preflight"
)

// preflightFlags ask Azure, before the first write, what it can tell about
// the plan (azk plan --preflight, azk apply --preflight).
type preflightFlags struct {
	enabled    bool
	as         objectIDFlag
	syncPeriod time.Duration
	// registerProviders is apply's --register-providers.
	registerProviders bool
}

func (f *preflightFlags) register(cmd *cobra.Command, apply bool) {
	fl := cmd.Flags()
	what := "report"
	if apply {
		what = "stop before the first write on"
	}
	fl.BoolVar(&f.enabled, "preflight", false, "ask Azure what it can tell before a write and "+what+" any error: ARM's validation of the exact bodies, global names, provider registration and regions, permissions, Azure Policy, quotas, and the operator's steady-state write cost (reads and read-only checks only)")
	fl.Var(&f.as, "as", "with --preflight, evaluate the permissions of this principal (its object ID, a GUID: the operator's identity) from its role assignments, instead of the caller's; a user-assigned identity's client ID is mapped to its object ID")
	fl.DurationVar(&f.syncPeriod, "sync-period", preflight.DefaultSyncPeriod, "with --preflight, the operator's AZURE_SYNC_PERIOD, for the steady-state write cost")
	if apply {
		fl.BoolVar(&f.registerProviders, "register-providers", false, "register the resource providers the manifests need that the subscription has not registered, before the first write (as Terraform's azurerm provider does)")
	}
}

// check runs the pre-flight checks and puts their findings in the plan.
func (f *preflightFlags) check(ctx context.Context, g *globalOptions, az *azureFlags, client *arm.Client, p *planner.Plan) error {
	if f.as != "" && !f.enabled {
		return fmt.Errorf("--as evaluates permissions in the pre-flight: add --preflight")
	}
	if !f.enabled || p == nil || p.Drift {
		return nil
	}
	limits, err := arm.ParseRateLimits(az.rateLimit)
	if err != nil {
		return fmt.Errorf("--rate-limit: %w", err)
	}
	if isTerminal(g.stderr) {
		fmt.Fprintln(g.stderr, "Pre-flight: asking Azure...")
	}
	as := string(f.as)
	var principal *planner.Finding
	if as != "" {
		objectID, told := preflight.ResolvePrincipal(ctx, client, p, as)
		as, principal = objectID, &told
	}
	p.Preflight = preflight.Run(ctx, client, p, preflight.Options{
		As: as, RegisterProviders: f.registerProviders, Writes: limits.Writes, SyncPeriod: f.syncPeriod, Prefix: exportPrefix(p),
	})
	if principal != nil {
		p.Preflight.Findings = append(p.Preflight.Findings, *principal)
	}
	for i := range p.Preflight.Findings {
		p.Preflight.Findings[i].Message = g.secrets.String(p.Preflight.Findings[i].Message)
	}
	return nil
}

// refusal is apply's refusal to start while the pre-flight found errors.
func (f *preflightFlags) refusal(p *planner.Plan) error {
	if n := p.Preflight.Errors(); n > 0 {
		return fmt.Errorf("the pre-flight found %s (see above); nothing was applied", plural(n, "error"))
	}
	return nil
}

// registerProviders registers what --register-providers asks for.
func (f *preflightFlags) registerNeeded(ctx context.Context, g *globalOptions, client *arm.Client, p *planner.Plan) error {
	if !f.registerProviders {
		return nil
	}
	done, err := preflight.RegisterProviders(ctx, client, p)
	for _, ns := range done {
		fmt.Fprintf(g.stderr, "Registered the resource provider %s.\n", ns)
	}
	return err
}

// objectIDFlag is --as: an object ID, refused at parsing when it is not a
// GUID, with how to find the right one.
type objectIDFlag string

func (o *objectIDFlag) String() string { return string(*o) }

func (o *objectIDFlag) Type() string { return "objectID" }

func (o *objectIDFlag) Set(s string) error {
	if !preflight.IsGUID(s) {
		return fmt.Errorf("%q is not an object ID (a GUID): %s", s, preflight.ObjectIDHint)
	}
	*o = objectIDFlag(s)
	return nil
}
