package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/planner"
)

func init() { subcommands = append(subcommands, newPlanCommand) }

func newPlanCommand(g *globalOptions) *cobra.Command {
	var (
		in              inputFlags
		az              azureFlags
		out, ifExists   string
		detailed, drift bool
	)
	cmd := &cobra.Command{
		Use:   "plan PATH... [-k DIR] [-o text|json|markdown] [-out FILE]",
		Short: "Show what applying the manifests would do to Azure, resource by resource",
		Long: `Plan reads the current state of every resource from Azure and decides, with the
reconcile policy that drove it, what applying would do: create, adopt, update,
leave unchanged, skip, or block (with the reason). Changes are listed property
by property; secrets print as (sensitive), values that depend on resources not
yet created as (known after apply). Nothing is written to Azure.

  -o text      for people (default), coloured on a terminal
  -o json      versioned, documented in docs/plan-json.md
  -o markdown  a pull-request comment

Existing resources without a reconcile-policy annotation are adopted under
serviceoperator.azure.com/reconcile-policy-if-exists, else
--reconcile-policy-if-exists, else manage.

Exit status: 0 success, 1 error (including a change Azure cannot make in place);
with --detailed-exitcode, 0 no changes, 2 changes present, 1 error. Changes are
creates, updates and adoptions with changes; an adoption without changes writes
nothing Azure does not hold and is not one (the summary counts it under "to
adopt"). With --drift, 2 means something drifted.

A new Azure name or owner is a new ARM ID: the plan cannot tell a rename or a
move from a new resource, and shows a create (with a note naming unmanaged
resources of the same type in its resource group).`,
		Example: `  azk plan ./manifests --out plan.azk
  azk plan ./manifests -o markdown > comment.md
  azk plan ./manifests --drift --detailed-exitcode`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			write, err := planWriter(g)
			if err != nil {
				return err
			}
			if drift && out != "" {
				return fmt.Errorf("--drift makes a report, not a plan to apply: it cannot be saved with --out")
			}
			ctx := cmd.Context()
			session, diags, err := openSession(ctx, g, &az, &in, args)
			if err != nil {
				return err
			}
			defer session.release()
			p, more := session.plan(ctx, g, &az, planner.Inputs{Paths: args, Kustomize: in.kustomize, Namespace: g.namespace}, ifExists, drift)
			diags = append(diags, more...)
			printDiagnostics(g.stderr, diags)
			if p == nil {
				return failed()
			}
			if err := write(p); err != nil {
				return err
			}
			if out != "" {
				if err := planner.Save(out, p, g.secrets.String); err != nil {
					return fmt.Errorf("saving the plan: %w", err)
				}
				fmt.Fprintf(g.stderr, "Saved the plan to %s: apply it with azk apply %s\n", out, out)
			}
			if s := p.Summary(); s.Blocked > 0 {
				fmt.Fprintf(g.stderr, "Warning: %d resources are blocked; apply will not write them (see the reasons above)\n", s.Blocked)
			}
			switch {
			case diags.HasErrors() || p.HasErrors():
				return failed()
			case detailed && p.HasChanges():
				return &exitError{code: 2}
			}
			return nil
		},
	}
	in.register(cmd)
	az.register(cmd)
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "save the plan to FILE for azk apply and azk show (secrets saved as salted argon2id digests, never their values)")
	f.StringVar(&ifExists, "reconcile-policy-if-exists", "", "policy for existing resources without a reconcile-policy annotation: manage, detach-on-delete or skip (default manage)")
	f.BoolVar(&detailed, "detailed-exitcode", false, "exit 0 when there are no changes (adoptions without changes included), 2 when there are, 1 on error")
	f.BoolVar(&drift, "drift", false, "report only what changed in Azure against the manifests, proposing nothing")
	return cmd
}

// planWriter picks the renderer for -o.
func planWriter(g *globalOptions) (func(*planner.Plan) error, error) {
	switch g.output {
	case "text":
		return func(p *planner.Plan) error { return planner.WriteText(g.stdout, p, g.color()) }, nil
	case "json":
		return func(p *planner.Plan) error { return planner.WriteJSON(g.stdout, p) }, nil
	case "markdown":
		return func(p *planner.Plan) error { return planner.WriteMarkdown(g.stdout, p) }, nil
	}
	return nil, fmt.Errorf("unknown output format %q: use text, json or markdown", g.output)
}
