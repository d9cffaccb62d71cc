package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/convert"
)

func init() { subcommands = append(subcommands, newRenderCommand) }

func newRenderCommand(g *globalOptions) *cobra.Command {
	var in inputFlags
	var showSensitive bool
	cmd := &cobra.Command{
		Use:   "render PATH... [-k DIR] [-o text|json|yaml|name]",
		Short: "Print the exact ARM requests the operator would send, offline",
		Long: `Render computes, for every resource in dependency order, the ARM request the
operator would send: method, URL with api-version, and JSON body. Nothing is
sent to Azure.

Secret references take their value from a v1 Secret in the input or from the
environment variable AZK_SECRET_<NAME>_<KEY> (upper-cased, other characters as
"_"); they print as (sensitive) unless --show-sensitive. Values exported by
another resource's status (operatorSpec.configMaps) and built-in role names
print as (known after apply).

  -o text   one block per request (default)
  -o json   one JSON array: {"resource","method","url","body"} per request
  -o yaml   the same as YAML
  -o name   the address of each resource, in dependency order`,
		Example: `  azk render ./manifests --subscription $AZURE_SUBSCRIPTION_ID
  azk render ./manifests -o json | jq '.[].url'`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			gr, diags := in.resolve(g, args)
			if !diags.HasErrors() {
				reqs, more := convert.Requests(gr, convert.Sources{})
				diags = append(diags, more...)
				if !diags.HasErrors() {
					printDiagnostics(g.stderr, diags)
					return writeRequests(g, reqs, showSensitive)
				}
			}
			printDiagnostics(g.stderr, diags)
			return failed()
		},
	}
	in.register(cmd)
	cmd.Flags().BoolVar(&showSensitive, "show-sensitive", false, "print secret values instead of (sensitive)")
	return cmd
}

type renderedRequest struct {
	Resource string `json:"resource"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Body     any    `json:"body"`
}

func writeRequests(g *globalOptions, reqs []*convert.Request, showSensitive bool) error {
	w := g.stdout
	out := make([]renderedRequest, len(reqs))
	for i, r := range reqs {
		var body any = r.Body
		if showSensitive {
			body = convert.RevealSecrets(r.Body)
		}
		out[i] = renderedRequest{Resource: r.Node.Address(), Method: r.Method, URL: r.URL, Body: body}
	}
	switch g.output {
	case "json":
		return writeJSON(w, out)
	case "yaml":
		return writeYAML(w, out)
	case "name":
		names := make([]string, len(out))
		for i, r := range out {
			names[i] = r.Resource
		}
		return writeNames(w, names)
	}
	for i, r := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "# %s (%s)\n%s %s\n", r.Resource, reqs[i].Node.Object.Source, r.Method, r.URL)
		if err := writeJSON(w, r.Body); err != nil {
			return err
		}
	}
	return nil
}
