package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
)

func init() { subcommands = append(subcommands, newValidateCommand) }

func newValidateCommand(g *globalOptions) *cobra.Command {
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "validate PATH... [-k DIR]",
		Short: "Check manifests offline: schema, owners, references, ARM IDs",
		Long: `Validate reads ASO v2 manifests and checks them without contacting Azure:
every kind and apiVersion is one ASO serves, every spec field exists with the
right type and value, owners and references resolve within the input (or are
armId references), there are no dependency cycles, no two resources share an
ARM ID, names are valid Azure names, reconcile-policy annotations are valid,
and azk.azkcli.io/ignore-changes paths name properties of the kind's body.
It also computes every request as render does, so what plan would block
without reading Azure is reported here: a secret key that is not in its
Secret, a secret neither in the input nor in AZK_SECRET_<NAME>_<KEY>, an
empty secret value. A secret value that the manifests also show as a name,
location, ID or URL is a warning: azk cannot hide it in ARM's messages.

All problems are reported together, each with file and line.
Exit status: 0 when valid, 1 when there are errors.`,
		Example: `  azk validate ./manifests
  kustomize build overlays/prod | azk validate -
  azk validate -k overlays/prod -o json
  azk validate -f ./manifests -o name`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			gr, diags := in.resolve(g, args)
			if !diags.HasErrors() {
				// What plan would block without reading Azure: a secret
				// that is missing or empty, a value nowhere to be found.
				_, more := convert.Requests(gr, convert.Sources{})
				diags = append(diags, more...)
				diags.Sort()
			}
			switch g.output {
			case "json", "yaml":
				write := func(w io.Writer) error { return writeValidateJSON(w, len(gr.Nodes), diags) }
				var err error
				if g.output == "yaml" {
					err = asYAML(g.stdout, write)
				} else {
					err = write(g.stdout)
				}
				if err != nil {
					return err
				}
				if diags.HasErrors() {
					return failed()
				}
				return nil
			}
			printDiagnostics(g.stderr, diags)
			if diags.HasErrors() {
				fmt.Fprintf(g.stderr, "\n%s checked, %s\n", plural(len(gr.Nodes), "resource"), plural(diags.Errors(), "error"))
				return failed()
			}
			if g.output == "name" {
				return writeNames(g.stdout, nodeAddresses(gr))
			}
			fmt.Fprintf(g.stdout, "%s valid\n", plural(len(gr.Nodes), "resource"))
			return nil
		},
	}
	in.register(cmd)
	return cmd
}

func writeValidateJSON(w io.Writer, resources int, diags diag.List) error {
	report := struct {
		Valid       bool               `json:"valid"`
		Resources   int                `json:"resources"`
		Diagnostics []*diag.Diagnostic `json:"diagnostics"`
	}{Valid: !diags.HasErrors(), Resources: resources, Diagnostics: diags}
	if report.Diagnostics == nil {
		report.Diagnostics = []*diag.Diagnostic{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// plural is "1 resource", "2 resources".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// nodeAddresses are the addresses of the graph's resources, in dependency order.
func nodeAddresses(gr *graph.Graph) []string {
	out := make([]string, len(gr.Nodes))
	for i, n := range gr.Nodes {
		out[i] = n.Address()
	}
	return out
}
