package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/graph"
)

func init() { subcommands = append(subcommands, newGraphCommand) }

func newGraphCommand(g *globalOptions) *cobra.Command {
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "graph PATH... [-k DIR] [-o text|dot|mermaid|json|yaml|name]",
		Short: "Show the dependency graph with every resource's ARM ID",
		Long: `Graph resolves owners and references offline and prints the dependency graph.

  -o text     the owner tree with ARM IDs; references, secrets and config maps
              as annotations under the resource that uses them (default)
  -o dot      Graphviz: azk graph ./m -o dot | dot -Tsvg > graph.svg
  -o mermaid  a Mermaid flowchart for Markdown
  -o json     machine-readable, every resource with its ARM ID and dependencies
  -o yaml     the same as YAML
  -o name     the addresses, in dependency order

Set --subscription (or AZURE_SUBSCRIPTION_ID) to see real ARM IDs.`,
		Example: `  azk graph ./manifests
  azk graph ./manifests -o dot | dot -Tpng > graph.png`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
}
