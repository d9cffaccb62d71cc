package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/views"
)

// destroyPlanConflicts refuses what azk plan --destroy cannot combine with:
// the flags that plan changes rather than a teardown.
func destroyPlanConflicts(pf *planFlags, drift, whatIf bool) error {
	var with []string
	if pf.base != "" {
		with = append(with, "--base")
	}
	if drift {
		with = append(with, "--drift")
	}
	if len(pf.replace) > 0 {
		with = append(with, "-replace")
	}
	if len(pf.sendSecrets) > 0 {
		with = append(with, "--send-secrets")
	}
	if whatIf {
		with = append(with, "--what-if")
	}
	if len(with) > 0 {
		return fmt.Errorf("--destroy plans deleting every resource of the inputs: it does not combine with %s", strings.Join(with, ", "))
	}
	return nil
}

// planDestroy makes the destroy plan of the session's inputs (azk plan
// --destroy): what azk destroy would do, as a plan.
func (s *azureSession) planDestroy(ctx context.Context, pf *planFlags, inputs planner.Inputs, secrets *redact.Set) (*planner.Plan, diag.List) {
	p, diags := planner.MakeDestroy(ctx, s.graph, planner.Options{Reader: s.client, ReconcilePolicyIfExists: pf.ifExists, Inputs: inputs, Secrets: secrets})
	if p != nil {
		p.Endpoint = &s.endpoint
	}
	return p, diags
}

// applySavedDestroy carries out a destroy plan saved with azk plan
// --destroy --out (azk destroy PLANFILE, azk apply PLANFILE): the inputs it
// records are resolved and planned for destroy again, and a plan that moved
// since (the manifests, anything read from Azure, a decision) is refused
// before anything is deleted. Like any saved plan it goes without asking;
// like destroy it refuses cascades unless --allow-cascade; and it goes
// where it was made, unless allowOther (see useSavedEndpoint).
func applySavedDestroy(cmd *cobra.Command, g *globalOptions, saved *planner.Plan, az *azureFlags, in *inputFlags, sel *selectFlags, rf *runFlags, allowCascade, allowOther bool) error {
	ctx := cmd.Context()
	var pf planFlags
	args, err := restoreSavedFlags(saved, g, in, &pf, sel)
	if err != nil {
		return err
	}
	if err := useSavedEndpoint(cmd, g, az, saved, allowOther); err != nil {
		return err
	}
	session, diags, err := openSession(ctx, g, az, in, args, sel, graph.WithDependents)
	if err != nil {
		return err
	}
	defer session.release()
	fresh, more := session.planDestroy(ctx, &pf, planInputs(g, in, args, sel), g.secrets)
	diags = append(diags, more...)
	printDiagnostics(g.stderr, diags)
	if fresh == nil || diags.HasErrors() {
		return failed()
	}
	if moved := planfile.Stale(ctx, saved, fresh); len(moved) > 0 {
		return fmt.Errorf("the saved plan is stale; nothing was deleted. What moved:\n  %s\nMake a new plan with azk plan --destroy --out", strings.Join(moved, "\n  "))
	}
	if err := cascadeRefusal(fresh, allowCascade); err != nil {
		return err
	}
	if !fresh.HasChanges() {
		if events, closeEvents := eventsWriter(g); events != nil {
			defer closeEvents()
			return (&applier.Report{Operation: applier.OperationDestroy}).WriteJSONSummary(events)
		}
		for _, gone := range goneSince(saved, fresh) {
			fmt.Fprintf(g.stdout, "%s: already gone (the plan deletes it; it left Azure since)\n", gone)
		}
		fmt.Fprintln(g.stdout, views.NoDestroyLine)
		return nil
	}
	dp, err := applier.DestroyPlanOf(session.graph, fresh)
	if err != nil {
		return err
	}
	applying(fresh)
	rep := rf.execute(g, az.parallelism, func(ctx context.Context, opts applier.Options) *applier.Report {
		return applier.Destroy(ctx, dp, opts)
	}, session.client)
	if rep.Failed() || rep.Interrupted {
		return failed()
	}
	return nil
}

// notADestroyPlan is azk destroy's answer to a plan that applies changes.
var notADestroyPlan = errors.New("this saved plan creates and updates, it does not destroy: apply it with azk apply PLANFILE, or make a destroy plan with azk plan --destroy --out FILE")

// goneSince are the addresses a saved destroy plan deletes that the fresh
// plan no longer lists: gone from Azure since it was made.
func goneSince(saved, fresh *planner.Plan) []string {
	listed := map[string]bool{}
	for _, r := range fresh.Resources {
		listed[r.Address] = true
	}
	var out []string
	for _, r := range saved.Resources {
		if r.Deletes() && !listed[r.Address] {
			out = append(out, r.Address)
		}
	}
	return out
}
