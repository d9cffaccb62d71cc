package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/planner"
)

func init() { subcommands = append(subcommands, newExportCommand) }

func newExportCommand(g *globalOptions) *cobra.Command {
	var (
		in           inputFlags
		az           azureFlags
		pf           planFlags
		sel          selectFlags
		format, dir  string
		allowPartial bool
	)
	cmd := &cobra.Command{
		Use:   "export --format arm-template --out-dir DIR PATH... [-k DIR]",
		Short: "Write the plan's changes as ARM deployment templates",
		Long: `Export plans (see azk plan) and writes what applying would change as ARM
deployment templates, for ARM's own deployment engine to run: one template
per scope azk deploys into (a resource group, a subscription), split at ARM's
limits (800 resources, 4 MB, 256 parameters per template). A template whose
resources live in several scopes of one subscription (a resource group and
what goes into it) deploys at the subscription, with nested deployments into
the resource groups.

Each template carries exactly the plan's creates and updates, with the exact
bodies and api-versions azk would PUT; resources the plan leaves alone are
not in it (an incremental deployment leaves them untouched). Dependencies are
dependsOn, values a resource exports through operatorSpec.configMaps are
reference() expressions (and outputs), and secrets are secureString
parameters: no file holds a secret's value; the Azure CLI asks for them.

DIR also gets index.json: the templates in the order to deploy them, their
scopes, parameters and resources, and the az command for each. The templates
an earlier export left in DIR (those its index.json names) are replaced; no
other file there is removed or overwritten.

azk apply --engine deployment submits the same templates itself.`,
		Example: `  azk export --format arm-template --out-dir out examples/quickstart
  az deployment sub create --location westus2 --template-file out/01-subscription.json`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "arm-template" {
				return fmt.Errorf("unknown export format %q: use arm-template", format)
			}
			if dir == "" {
				return errors.New("--out-dir is required")
			}
			ctx := cmd.Context()
			session, p, err := openPlan(ctx, g, &az, &in, &pf, &sel, args)
			if err != nil {
				return err
			}
			defer session.release()
			if err := refusals(p, allowPartial, true); err != nil {
				return err
			}
			if err := templateRefusal(p); err != nil {
				return err
			}
			set, err := deployment.Build(p, deployment.Options{})
			if err != nil {
				return err
			}
			if err := set.Write(dir, exportPrefix(p)); err != nil {
				return err
			}
			s := p.Summary()
			fmt.Fprintf(g.stdout, "Wrote %s to %s for %d to create and %d to update (%d unchanged left out).\n",
				plural(len(set.Templates), "template"), dir, s.Create, s.Update, s.NoChange)
			for i, t := range set.Templates {
				fmt.Fprintf(g.stdout, "  %s\n", t.Command(deployment.Name(exportPrefix(p), i)))
			}
			for _, addr := range slices.Sorted(maps.Keys(set.Held)) {
				fmt.Fprintf(g.stderr, "Warning: %s is left out: it waits for %s, which cannot be applied\n", addr, set.Held[addr])
			}
			return nil
		},
	}
	in.register(cmd)
	az.register(cmd)
	pf.register(cmd)
	sel.register(cmd, "what it depends on")
	f := cmd.Flags()
	f.StringVar(&format, "format", "arm-template", "what to write: arm-template")
	f.StringVar(&dir, "out-dir", "", "the directory to write the templates into")
	f.BoolVar(&allowPartial, "allow-partial", false, "export what can be applied when some resources are blocked (they, and what depends on them, are left out)")
	return cmd
}

// exportPrefix names an export's deployments after its inputs, so that
// exporting the same manifests twice names them alike.
func exportPrefix(p *planner.Plan) string {
	digest := strings.TrimPrefix(p.InputsDigest, "sha256:")
	if len(digest) > 8 {
		digest = digest[:8]
	}
	return "azk-" + digest
}
