package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/refresh"
)

func init() {
	subcommands = append(subcommands, newRefreshCommand)
	outputFormats["refresh"] = []string{"text", "json", "yaml"}
}

func newRefreshCommand(g *globalOptions) *cobra.Command {
	var (
		in                 inputFlags
		az                 azureFlags
		pf                 planFlags
		sel                selectFlags
		write, autoApprove bool
	)
	cmd := &cobra.Command{
		Use:   "refresh PATH... [--write] [--drift-policy reflect] [--base GITREF|DIR]",
		Short: "Write Azure's values into the manifests where they are to follow Azure (drift policy reflect, ignore-changes)",
		Long: `Refresh plans (see azk plan) and, where the manifests are to follow Azure,
writes Azure's values into the manifest files: the differences a resource
under drift policy reflect keeps (annotation azk.azkcli.io/drift: reflect, on
the resource or its Namespace, or --drift-policy reflect), and the paths its
azk.azkcli.io/ignore-changes annotation names where Azure differs. The change
then goes through review as a normal diff. Nothing is sent to Azure.

Each ARM body path is mapped back to the spec field it is sent from by the
kind's schema (properties.dhcpOptions.dnsServers is spec.dhcpOptions.dnsServers),
and the files are edited in place: only the lines whose values change differ,
every other byte stays (comments, indentation, quoting, line endings, document
markers, a byte-order mark; a .json file stays JSON). Each file is replaced
atomically, keeping its mode and a symbolic link; a read-only file is refused,
and on any failure the file is as it was. Never written back, each with why: a
value the manifest takes from a Secret, a reference (armId or name) or a config
map, a secret Azure returns, a value in standard input, a YAML alias, a file
that says it is generated (named with what generates it), and kustomize output
(-k): refresh names the overlay patch that sets the value (file:line), or the
base's line where no patch does.

Refresh shows what it would write first (the values by resource, then a
unified diff of each file), then asks for confirmation; --write (or
--auto-approve) writes without asking, and without a terminal one of them is
needed.

With --base GITREF|DIR (see azk plan), what the change under review sets is
applied, not reflected: only the drift is written back.

Exit status: 0 success (written, or nothing to write), 1 error or not confirmed.`,
		Example: `  azk refresh ./manifests
  azk refresh ./manifests --write && git diff
  azk refresh ./manifests --drift-policy reflect --write`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			ctx := cmd.Context()
			session, diags, err := openSession(ctx, g, &az, &in, args, &sel, graph.WithDependencies)
			if err != nil {
				return err
			}
			defer session.release()
			p, more := session.plan(ctx, g, &in, &pf, planInputs(g, &in, args, &sel), false)
			diags = append(diags, more...)
			printDiagnostics(g.stderr, diags)
			if p == nil || diags.HasErrors() {
				return failed()
			}
			res, err := refresh.Prepare(p)
			if err != nil {
				return err
			}
			switch g.output {
			case "json":
				err = res.WriteJSON(g.stdout)
			case "yaml":
				err = asYAML(g.stdout, res.WriteJSON)
			default:
				err = res.WriteText(g.stdout)
			}
			if err != nil || len(res.Files) == 0 {
				return err
			}
			rf := runFlags{autoApprove: write || autoApprove}
			if err := rf.confirm(g, "Do you want to write these values into the manifests?"); err != nil {
				return err
			}
			if err := res.Write(); err != nil {
				return err
			}
			wrote(g.stderr, res)
			return nil
		},
	}
	in.register(cmd)
	az.register(cmd)
	sel.register(cmd, "what it depends on")
	f := cmd.Flags()
	f.BoolVar(&write, "write", false, "write the manifests without asking")
	f.BoolVar(&autoApprove, "auto-approve", false, "the same as --write")
	f.StringVar(&pf.driftPolicy, "drift-policy", "", "drift policy of resources whose manifest and Namespace set none: enforce, merge or reflect (default enforce); refresh writes what reflect keeps")
	f.StringVar(&pf.base, "base", "", "the manifests before the change under review, GITREF or DIR (see azk plan): what the change sets is applied, not written back")
	_ = cmd.RegisterFlagCompletionFunc("drift-policy", completeValues(graph.DriftPolicies...))
	return cmd
}

// wrote says which files refresh wrote.
func wrote(w io.Writer, res *refresh.Result) {
	for _, f := range res.Files {
		fmt.Fprintf(w, "Wrote %s\n", f.Path)
	}
}
