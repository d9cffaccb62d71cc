package main

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
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
			write, err := planWriter(g, views.Options{Color: g.color(), ShowUnchanged: showUnchanged})
			if err != nil {
				return err
			}
			p, err := loadPlanFile(args[0])
			if err != nil {
				return err
			}
			return write(p)
		},
	}
	cmd.Flags().BoolVar(&showUnchanged, "show-unchanged", false, "list the resources that stay as they are, not only their count")
	return cmd
}

// loadPlanFile reads a plan saved by azk plan --out, and says plainly when
// path holds something else (manifests, a folder) instead of how JSON
// decoding failed.
func loadPlanFile(path string) (*planner.Plan, error) {
	info, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			return nil, fmt.Errorf("%s: %w", path, pe.Err)
		}
		return nil, err
	}
	p, err := planfile.LoadIfSaved(path)
	if err != nil || p != nil {
		return p, err
	}
	what := "not a plan"
	if info.IsDir() {
		what = "a folder, not a plan"
	} else if f, err := os.Open(path); err != nil {
		return nil, err
	} else {
		f.Close()
	}
	return nil, fmt.Errorf("%s is %s saved by azk plan --out: azk show prints saved plans (to see what applying manifests would do: azk plan %s)", path, what, shellQuote(path))
}
