package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/graph"
)

func init() { subcommands = append(subcommands, newDestroyCommand) }

func newDestroyCommand(g *globalOptions) *cobra.Command {
	var (
		in           inputFlags
		az           azureFlags
		rf           runFlags
		sel          selectFlags
		allowCascade bool
		allowOther   bool
	)
	cmd := &cobra.Command{
		Use:   "destroy PATH... [-k DIR] | destroy PLANFILE",
		Short: "Delete the manifests' resources from Azure, in reverse dependency order",
		Long: `Destroy deletes the resources of the manifests, each only once nothing that
depends on it remains. Resources with reconcile-policy detach-on-delete are
released and left in Azure; skip resources are untouched. A resource whose
parent is deleted in the same run is not deleted on its own: ARM removes it with
the parent, and it is reported as deleted by cascade. Deleting something that
is already gone succeeds.

Destroy refuses, unless --allow-cascade, when a deletion would take with it
Azure resources that are not in the manifests (found by listing the children of
each resource to delete and the contents of resource groups) or a resource
marked detach-on-delete or skip.

--target ADDRESS (repeatable) and -l/--selector LABELS destroy part of the
inputs: the resources chosen and everything that depends on them (what they
own, what references them). The whole input is still read, so owners
outside the selection resolve.

azk destroy PLANFILE carries out a destroy plan saved with azk plan --destroy
--out, without asking (as azk apply PLANFILE does), and refuses when the
manifests or anything read for the plan changed since; --allow-cascade is
still needed for cascades.

Exit status: 0 success, 1 error, refusal or any deletion failed.`,
		Example: `  azk destroy --emulator --auto-approve examples/quickstart
  azk destroy ./manifests
  azk destroy ./manifests --target VirtualNetworksSubnet/web
  azk plan ./manifests --destroy --out destroy.azk && azk destroy destroy.azk`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			ctx := cmd.Context()
			switch saved, err := savedPlan(args, in.kustomize); {
			case err != nil:
				return err
			case saved != nil && !saved.Destroy:
				return notADestroyPlan
			case saved != nil:
				return applySavedDestroy(cmd, g, saved, &az, &in, &sel, &rf, allowCascade, allowOther)
			}
			session, diags, err := openSession(ctx, g, &az, &in, args, &sel, graph.WithDependents)
			if err != nil {
				return err
			}
			defer session.release()
			printDiagnostics(g.stderr, diags)
			client, gr := session.client, session.graph
			p, err := applier.PlanDestroy(ctx, gr, client)
			if err != nil {
				return err
			}
			if g.output == "text" {
				p.WriteText(g.stdout)
			}
			if err := refuseCascades(p.Cascades, allowCascade, "nothing was deleted"); err != nil {
				return err
			}
			if p.Counts()[applier.DestroyDelete] == 0 {
				if g.output == "text" {
					fmt.Fprintln(g.stdout, "\nNothing to delete.")
				}
				return nil
			}
			if err := rf.confirm(g, "Do you really want to delete these resources?"); err != nil {
				return err
			}
			rep := rf.execute(g, az.parallelism, func(ctx context.Context, opts applier.Options) *applier.Report {
				return applier.Destroy(ctx, p, opts)
			}, client)
			if rep.Failed() || rep.Interrupted {
				return failed()
			}
			return nil
		},
	}
	in.register(cmd)
	in.registerDefaultPolicy(cmd)
	az.register(cmd)
	registerAllowOtherEndpoint(cmd, &allowOther)
	rf.register(cmd)
	sel.register(cmd, "what depends on it")
	cmd.Flags().BoolVar(&allowCascade, "allow-cascade", false, "delete even when that removes resources outside the manifests or marked detach-on-delete or skip")
	return cmd
}
