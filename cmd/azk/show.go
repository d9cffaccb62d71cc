package main

import (
	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/planner"
)

func init() { subcommands = append(subcommands, newShowCommand) }

func newShowCommand(g *globalOptions) *cobra.Command {
	var showUnchanged bool
	cmd := &cobra.Command{
		Use:   "show FILE [-o text|json|yaml|markdown|name]",
		Short: "Render a plan saved with azk plan --out",
		Long: `Show prints a saved plan in any output format, without reading Azure.
Secrets print as (sensitive): the file holds only salted digests of them.`,
		Example: `  azk show plan.azk
  azk show plan.azk -o markdown > comment.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, err := planWriter(g, planner.RenderOptions{Color: g.color(), ShowUnchanged: showUnchanged})
			if err != nil {
				return err
			}
			p, err := planner.Load(args[0])
			if err != nil {
				return err
			}
			return write(p)
		},
	}
	cmd.Flags().BoolVar(&showUnchanged, "show-unchanged", false, "list the resources that stay as they are, not only their count")
	return cmd
}
