package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/importer"
)

func init() { subcommands = append(subcommands, newImportCommand) }

func newImportCommand(g *globalOptions) *cobra.Command {
	var (
		az        azureFlags
		recursive bool
		policy    string
		outDir    string
		verbose   bool
	)
	cmd := &cobra.Command{
		Use:   "import ARMID... [--recursive] [--policy manage|detach-on-delete|skip] [--out-dir DIR]",
		Short: "Write existing Azure resources as ASO manifests",
		Long: `Import reads resources from Azure and writes them as Azure Service Operator v2
manifests, as the operator's asoctl import azure-resource does, so that azk
(or the operator) can manage what was created outside them:

- each resource at the newest served version of its kind (by api-version date);
- with --recursive, what is below each resource too, found by listing: its
  child resources, its extension resources (role assignments, diagnostic
  settings, ...) and, for a resource group, its resources;
- owners and references as links to the manifests imported with them
  ({name}, with group and kind where the field takes them), so that the
  imported manifests have the graph of what created the resources, else by
  ARM ID ({armId}); a reference that would make a cycle stays by ARM ID;
- only what a PUT can write: read-only properties, and values that set
  nothing (null, empty strings, lists and maps), are left out;
- secrets as references to a Secret the manifest's notes name, never their
  values (Azure does not return them);
- the reconcile-policy annotation --policy gives (default manage): manage
  adopts them, detach-on-delete leaves them in Azure on destroy, skip only
  reads them.

What Azure makes itself and no manifest manages (built-in role definitions
at every scope, a server's system databases and default parameters, role
assignments inherited from above) is left out by design, as asoctl leaves
it out: one line per reason with its count, each resource with -v.

The manifests go to standard output as one YAML stream (-o json: a v1 List),
or with --out-dir one file per resource. A plan of them right after import
shows no changes.`,
		Example: `  azk import /subscriptions/$SUB/resourceGroups/rg --recursive --out-dir imported/
  azk plan imported/
  azk import /subscriptions/$SUB/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet --policy detach-on-delete`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.output == "text" {
				g.output = "yaml"
			}
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			if g.subscriptionID() == "" {
				if id, err := armid.Parse(args[0]); err == nil {
					g.subscription = id.Subscription
				}
			}
			ctx := cmd.Context()
			client, release, err := az.client(ctx, g)
			if err != nil {
				return err
			}
			defer release()
			res, err := importer.Import(ctx, args, importer.Options{Reader: client, Recursive: recursive, Policy: policy, Namespace: g.namespace})
			if err != nil {
				return err
			}
			if err := writeImported(g, res, outDir); err != nil {
				return err
			}
			reportOmitted(g.stderr, res.Omitted, verbose)
			reportImport(g, res, outDir)
			return nil
		},
	}
	az.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&recursive, "recursive", false, "import what is below each resource too: child and extension resources, a resource group's resources")
	f.StringVar(&policy, "policy", "manage", "the serviceoperator.azure.com/reconcile-policy to write: manage, detach-on-delete or skip")
	f.BoolVarP(&verbose, "verbose", "v", false, "list each resource left out by design (built-in role definitions, system databases, default server parameters, inherited role assignments), not only their count")
	f.StringVar(&outDir, "out-dir", "", "write one file per resource into DIR instead of standard output")
	_ = cmd.RegisterFlagCompletionFunc("policy", completeValues(policies...))
	return cmd
}

// writeImported writes the manifests: one stream, or one file each.
func writeImported(g *globalOptions, res *importer.Result, outDir string) error {
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		taken := map[string]bool{}
		for _, r := range res.Resources {
			name := strings.ToLower(r.Kind.Kind) + "-" + r.Name + ".yaml"
			if taken[name] {
				name = strings.ToLower(strings.Split(r.Kind.Group, ".")[0]+"-"+r.Kind.Kind) + "-" + r.Name + ".yaml"
			}
			taken[name] = true
			if err := os.WriteFile(filepath.Join(outDir, name), []byte(r.Manifest), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if g.output == "json" {
		items := []any{}
		for _, r := range res.Resources {
			n, err := yaml.Parse(r.Manifest)
			if err != nil {
				return err
			}
			data, err := n.MarshalJSON()
			if err != nil {
				return err
			}
			items = append(items, json.RawMessage(data))
		}
		return writeJSON(g.stdout, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	}
	for i, r := range res.Resources {
		if i > 0 {
			fmt.Fprintln(g.stdout, "---")
		}
		if _, err := fmt.Fprint(g.stdout, r.Manifest); err != nil {
			return err
		}
	}
	return nil
}

// reportImport tells on standard error what was imported and what needs doing.
func reportImport(g *globalOptions, res *importer.Result, outDir string) {
	for _, w := range res.Warnings {
		fmt.Fprintf(g.stderr, "Warning: %s\n", w)
	}
	// Skipped resources are many where Azure makes them (built-in roles at
	// every scope): one line per reason, with a count and an example.
	var reasons []string
	byReason := map[string][]string{}
	for _, s := range res.Skipped {
		if byReason[s.Reason] == nil {
			reasons = append(reasons, s.Reason)
		}
		byReason[s.Reason] = append(byReason[s.Reason], s.ID)
	}
	for _, r := range reasons {
		ids := byReason[r]
		if len(ids) == 1 {
			fmt.Fprintf(g.stderr, "Skipped %s: %s\n", ids[0], r)
		} else {
			fmt.Fprintf(g.stderr, "Skipped %d resources: %s (such as %s)\n", len(ids), r, ids[0])
		}
	}
	for _, r := range res.Resources {
		for _, n := range r.Notes {
			fmt.Fprintf(g.stderr, "Note: %s/%s %s: %s\n", r.Kind.Group, r.Kind.Kind, r.Name, n)
		}
	}
	where := ""
	if outDir != "" {
		where = " into " + outDir
	}
	fmt.Fprintf(g.stderr, "Imported %s%s.\n", plural(len(res.Resources), "resource"), where)
}
