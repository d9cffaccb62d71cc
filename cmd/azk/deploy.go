package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/planner"
)

// engineFlags choose who carries out an apply: azk itself, request by
// request, or ARM's deployment engine.
type engineFlags struct {
	engine string
	stack  string
	// inProcess is set when the emulator runs inside azk (--emulator): its
	// deployments stop with azk.
	inProcess bool
}

func (f *engineFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.engine, "engine", "direct", "who carries out the writes: direct (azk sends each PUT and follows it) or deployment (ARM's deployment engine runs templates azk submits, server-side; see azk export)")
	fl.StringVar(&f.stack, "stack", "", "with --engine deployment: deploy as this deployment stack, which deletes or detaches what the manifests no longer hold (actionOnUnmanage from the reconcile policies)")
}

func (f *engineFlags) check() error {
	switch {
	case f.engine != "direct" && f.engine != "deployment":
		return fmt.Errorf("unknown --engine %q: use direct or deployment", f.engine)
	case f.stack != "" && f.engine != "deployment":
		return fmt.Errorf("--stack needs --engine deployment")
	}
	return nil
}

func (f *engineFlags) deployment() bool { return f.engine == "deployment" }

// followEvery is how often a deployment's operations are read; tests shorten it.
var followEvery = time.Second

// applyDeployment hands the plan to ARM's deployment engine: it builds the
// templates, confirms, submits them and follows their operations, reporting
// per resource as the direct engine does. After an interrupt the
// deployments go on in Azure; it prints how to follow them. register is
// the one write before the templates (--register-providers): it runs only
// once the plan is confirmed, so that "no" leaves Azure as it was.
func applyDeployment(g *globalOptions, rf *runFlags, f *engineFlags, p *planner.Plan, client *arm.Client, saved bool, register func() error) error {
	ctx := context.Background()
	set, err := deployment.Build(p, deployment.Options{Unchanged: f.stack != ""})
	if err != nil {
		return err
	}
	var unmanaged []string
	if f.stack != "" {
		if len(set.Templates) != 1 {
			return fmt.Errorf("a deployment stack holds one template, and these manifests need %d (scopes in several subscriptions, or ARM's limits): apply without --stack, or split the manifests", len(set.Templates))
		}
		if unmanaged, err = deployment.StackLeavers(ctx, client, set.Templates[0], f.stack); err != nil {
			return err
		}
	}
	if !p.HasChanges() && len(unmanaged) == 0 {
		return nothingToApply(g, saved)
	}
	if g.output == "text" {
		describeHandOff(g, set, f, unmanaged)
	}
	if !saved {
		if err := rf.confirm(g, "Do you want to perform these actions?"); err != nil {
			return err
		}
	}
	if err := register(); err != nil {
		return err
	}
	applying(p)
	prefix := "azk-" + time.Now().UTC().Format("20060102-150405.000")
	var submitted []deployment.Submitted
	note := rf.interruptNote
	rf.interruptNote = "\nInterrupt: azk stops following; the deployments it submitted go on in Azure. Press Ctrl-C again to stop at once.\n"
	defer func() { rf.interruptNote = note }()
	rep := rf.execute(g, 0, func(ctx context.Context, opts applier.Options) *applier.Report {
		var rep *applier.Report
		rep, submitted = deployment.Apply(ctx, p, set, deployment.RunOptions{Client: client, Prefix: prefix, Stack: f.stack, Events: opts.Events, Drain: opts.Drain, Poll: followEvery})
		return rep
	}, client)
	for _, s := range submitted {
		for _, id := range s.Deleted {
			fmt.Fprintf(g.stdout, "Deleted by stack %s (no longer in the manifests): %s\n", s.Name, id)
		}
		for _, id := range s.Detached {
			fmt.Fprintf(g.stdout, "Detached by stack %s (no longer in the manifests, left in Azure): %s\n", s.Name, id)
		}
		if !s.Running {
			continue
		}
		if s.Err != nil {
			fmt.Fprintf(g.stderr, "Could not follow %s: %v\n", s.Name, s.Err)
		}
		if f.inProcess {
			fmt.Fprintf(g.stderr, "%s stops with azk: the emulator runs inside it (azk emulator runs one that keeps going).\n", s.Name)
			continue
		}
		fmt.Fprintf(g.stderr, "%s goes on in Azure; follow it with:\n", s.Name)
		for _, c := range s.Follow() {
			fmt.Fprintf(g.stderr, "  %s\n", c)
		}
	}
	if rep.Failed() || rep.Interrupted {
		return failed()
	}
	return nil
}

// describeHandOff says what goes to ARM: the templates, and for a stack the
// resources deployed again and what it will delete or detach.
func describeHandOff(g *globalOptions, set *deployment.Set, f *engineFlags, unmanaged []string) {
	fmt.Fprintf(g.stdout, "\nARM's deployment engine will run %s:\n", plural(len(set.Templates), "template"))
	for _, t := range set.Templates {
		fmt.Fprintf(g.stdout, "  %s at %s: %s\n", t.File, t.Scope, plural(len(t.Resources), "resource"))
	}
	if f.stack == "" {
		return
	}
	t := set.Templates[0]
	unchanged := 0
	for _, r := range t.Resources {
		if r.Action == planner.ActionNoChange {
			unchanged++
		}
	}
	action := deployment.ActionOnUnmanage(t.Resources)
	fmt.Fprintf(g.stdout, "Deployment stack %s manages every resource it names, so it deploys the %d unchanged ones again as they are; actionOnUnmanage: resources %s, resource groups %s.\n",
		f.stack, unchanged, action["resources"], action["resourceGroups"])
	for _, id := range unmanaged {
		fmt.Fprintf(g.stdout, "  the stack will %s %s, which it manages and the manifests no longer hold\n", action["resources"], id)
	}
}

// crossCheck asks ARM's what-if about the plan and writes where it differs.
func crossCheck(ctx context.Context, g *globalOptions, client *arm.Client, p *planner.Plan) {
	set, err := deployment.Build(p, deployment.Options{Unchanged: true})
	if err != nil {
		// The plan stands; only the cross-check cannot be made.
		fmt.Fprintf(g.stderr, "Warning: --what-if: %v\n", err)
		return
	}
	verdicts := deployment.WhatIf(ctx, client, p, set, exportPrefix(p))
	w := g.stdout
	if g.output != "text" {
		w = g.stderr // the plan on stdout stays parseable
	}
	deployment.WriteVerdicts(w, verdicts)
}

// awaitEarlierDeployments reads, before anything is decided, what deployments
// an earlier run left running in Azure (an interrupt, a lost connection, a
// crash) at the scopes this plan deploys to: azk waits for each to end, says
// what it wrote, and plans again, so that this run neither races them nor
// writes from a plan they made stale.
func awaitEarlierDeployments(ctx context.Context, g *globalOptions, f *engineFlags, client *arm.Client, p *planner.Plan, replan func() (*planner.Plan, error)) (*planner.Plan, error) {
	set, err := deployment.Build(p, deployment.Options{Unchanged: f.stack != ""})
	if err != nil {
		return p, nil // applyDeployment reports it
	}
	earlier, err := deployment.Unfinished(ctx, client, set)
	if err != nil {
		fmt.Fprintf(g.stderr, "Warning: %v; a deployment an earlier run left running there would race this one.\n", err)
		return p, nil
	}
	if len(earlier) == 0 {
		return p, nil
	}
	for _, e := range earlier {
		fmt.Fprintf(g.stderr, "%s, submitted by an earlier run, is still running in Azure: waiting for it to end before deciding anything.\n", e.Name)
	}
	if err := deployment.Await(ctx, client, p, earlier, deployment.RunOptions{Poll: followEvery}); err != nil {
		return nil, err
	}
	for _, e := range earlier {
		fmt.Fprintf(g.stderr, "%s ended %s: it wrote %s of the plan's, %d failed.\n", e.Name, e.State, plural(len(e.Written), "resource"), len(e.Failed))
		for _, a := range e.Written {
			fmt.Fprintf(g.stderr, "  written: %s\n", a)
		}
		for _, a := range e.Failed {
			fmt.Fprintf(g.stderr, "  failed: %s\n", a)
		}
	}
	fmt.Fprintln(g.stderr, "Planning again from what Azure holds now.")
	return replan()
}
