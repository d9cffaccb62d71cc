package main

import (
	"crypto/sha256"
	"encoding/hex"
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
		az              azureFlags
		recursive       bool
		policy          string
		outDir          string
		skipUnsupported bool
		verbose         bool
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
shows no changes.

A resource found that azk cannot import (an ARM ID it refuses, a type no ASO kind manages, one it
cannot read) is named on its own line, and import then exits 1 after writing
the rest; --skip-unsupported accepts leaving out those azk refuses.`,
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
			res, err := importer.Import(ctx, args, importer.Options{Reader: client, Recursive: recursive, Policy: policy, Namespace: g.namespace, Secrets: g.secrets})
			if err != nil {
				return err
			}
			if err := writeImported(g, res, outDir); err != nil {
				return err
			}
			reportOmitted(g.stderr, res.Omitted, verbose)
			reportImport(g, res, outDir)
			return leftOut(g, res, skipUnsupported)
		},
	}
	az.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&recursive, "recursive", false, "import what is below each resource too: child and extension resources, a resource group's resources")
	f.StringVar(&policy, "policy", "manage", "the serviceoperator.azure.com/reconcile-policy to write: manage, detach-on-delete or skip")
	f.BoolVarP(&verbose, "verbose", "v", false, "list each resource left out by design (built-in role definitions, system databases, default server parameters, inherited role assignments), not only their count")
	f.StringVar(&outDir, "out-dir", "", "write one file per resource into DIR instead of standard output")
	f.BoolVar(&skipUnsupported, "skip-unsupported", false, "exit 0 when the only resources left out are ones azk cannot import (an ARM ID it refuses, a type no ASO kind manages)")
	_ = cmd.RegisterFlagCompletionFunc("policy", completeValues(policies...))
	return cmd
}

// writeImported writes the manifests: one stream, or one file each.
func writeImported(g *globalOptions, res *importer.Result, outDir string) error {
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		names := importedFileNames(res.Resources)
		for i, r := range res.Resources {
			if err := os.WriteFile(filepath.Join(outDir, names[i]), []byte(r.Manifest), 0o644); err != nil {
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

// maxFileName is the longest file name most file systems take (NAME_MAX).
const maxFileName = 255

// importedFileNames names the file of each resource, all before any is
// written: kind-name.yaml, the group added where two kinds share a name,
// and a name too long for a file system shortened and told apart by a
// digest of the whole, so that no name fails halfway through the writing.
func importedFileNames(resources []*importer.Resource) []string {
	names := make([]string, len(resources))
	taken := map[string]bool{}
	for i, r := range resources {
		name := strings.ToLower(r.Kind.Kind) + "-" + r.Name
		if taken[name] {
			name = strings.ToLower(strings.Split(r.Kind.Group, ".")[0]+"-"+r.Kind.Kind) + "-" + r.Name
		}
		taken[name] = true
		if len(name)+len(".yaml") > maxFileName {
			sum := sha256.Sum256([]byte(name))
			digest := "-" + hex.EncodeToString(sum[:4])
			name = name[:maxFileName-len(".yaml")-len(digest)] + digest
		}
		names[i] = name + ".yaml"
	}
	return names
}

// leftOut names each resource import found but could not import, and is
// the error that makes import exit 1 unless all of them are ones azk
// refuses and --skip-unsupported accepts that.
func leftOut(g *globalOptions, res *importer.Result, skipUnsupported bool) error {
	failed := 0
	for _, l := range res.LeftOut {
		fmt.Fprintf(g.stderr, "Left out %s: %s\n", l.ID, l.Reason)
		if !l.Unsupported || !skipUnsupported {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	if skipUnsupported {
		return fmt.Errorf("%s could not be read (see above)", plural(failed, "resource"))
	}
	return fmt.Errorf("%s left out (see above): --skip-unsupported accepts leaving out those azk cannot import", plural(failed, "resource"))
}
