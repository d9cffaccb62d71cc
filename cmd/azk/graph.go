package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/views"
)

func init() { subcommands = append(subcommands, newGraphCommand) }

func newGraphCommand(g *globalOptions) *cobra.Command {
	var (
		in      inputFlags
		az      azureFlags
		pf      planFlags
		changes bool
	)
	cmd := &cobra.Command{
		Use:   "graph PATH... [-k DIR] [-o text|dot|mermaid|json|yaml|name] [--changes -o mermaid]",
		Short: "Show the dependency graph with every resource's ARM ID",
		Long: `Graph resolves owners and references offline and prints the dependency graph.

  -o text     the owner tree with ARM IDs; references, secrets and config maps
              as annotations under the resource that uses them (default)
  -o dot      Graphviz: azk graph ./m -o dot | dot -Tsvg > graph.svg
  -o mermaid  a Mermaid flowchart for Markdown
  -o json     machine-readable, every resource with its ARM ID and dependencies
  -o yaml     the same as YAML
  -o name     the addresses, in dependency order

Set --subscription (or AZURE_SUBSCRIPTION_ID) to see real ARM IDs.

--changes -o mermaid draws what a plan would change instead: the resources it
creates, updates or must replace, the dependencies between them and the
unchanged resources next to them, coloured by action, as azk plan -o markdown
shows it in a pull-request comment. It plans, so it reads Azure (or the
emulator: --emulator, --endpoint).`,
		Example: `  azk graph ./manifests
  azk graph ./manifests -o dot | dot -Tpng > graph.png
  azk graph --changes -o mermaid --emulator examples/quickstart`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if changes {
				return graphChanges(cmd, g, &in, &az, &pf, args)
			}
			write, ok := map[string]func(*graph.Graph) error{
				"text":    func(gr *graph.Graph) error { return graph.WriteText(g.stdout, gr) },
				"dot":     func(gr *graph.Graph) error { return graph.WriteDot(g.stdout, gr) },
				"mermaid": func(gr *graph.Graph) error { return graph.WriteMermaid(g.stdout, gr) },
				"json":    func(gr *graph.Graph) error { return graph.WriteJSON(g.stdout, gr) },
				"yaml": func(gr *graph.Graph) error {
					return asYAML(g.stdout, func(w io.Writer) error { return graph.WriteJSON(w, gr) })
				},
				"name": func(gr *graph.Graph) error { return writeNames(g.stdout, nodeAddresses(gr)) },
			}[g.output]
			if !ok {
				return checkOutput(cmd, g)
			}
			gr, diags := in.resolve(g, args)
			printDiagnostics(g.stderr, diags)
			if diags.HasErrors() {
				return failed()
			}
			return write(gr)
		},
	}
	in.register(cmd)
	in.registerDefaultPolicy(cmd)
	az.register(cmd)
	pf.register(cmd)
	_ = cmd.Flags().MarkHidden("show-unchanged") // the graph shows only what is next to a change
	cmd.Flags().BoolVar(&changes, "changes", false, "draw what a plan would change (with -o mermaid; reads Azure or the emulator)")
	return cmd
}

// graphChanges plans the inputs and draws the plan's changes.
func graphChanges(cmd *cobra.Command, g *globalOptions, in *inputFlags, az *azureFlags, pf *planFlags, args []string) error {
	if g.output != "mermaid" {
		return fmt.Errorf("--changes draws the plan as -o mermaid only, not -o %s", g.output)
	}
	ctx := cmd.Context()
	session, diags, err := openSession(ctx, g, az, in, args, &selectFlags{}, graph.WithDependencies)
	if err != nil {
		return err
	}
	defer session.release()
	p, more := session.plan(ctx, g, in, pf, planInputs(g, in, args, &selectFlags{}), false)
	diags = append(diags, more...)
	printDiagnostics(g.stderr, diags)
	if p == nil {
		return failed()
	}
	return views.Mermaid(g.stdout, p)
}
