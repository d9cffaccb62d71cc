package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/explain"
	"github.com/azkcli/azk/internal/registry"
)

func init() { subcommands = append(subcommands, newExplainCommand, newAPIResourcesCommand) }

func newExplainCommand(g *globalOptions) *cobra.Command {
	var (
		apiVersion string
		recursive  bool
	)
	cmd := &cobra.Command{
		Use:   "explain KIND[.FIELD...] [--api-version GROUP/VERSION] [--recursive]",
		Short: "Describe a kind and its fields: types, required, enums, references, ARM paths",
		Long: `Explain describes an ASO kind, or one of its fields, from azk's registry (the
operator's CRDs, its configuration and the REST specifications), as kubectl
explain does for a cluster's resources: the kind's group, served versions,
ARM type and api-version, scope and owners; the field's type, whether it is
required, its values, the kind of reference it holds and where it lands in
the ARM body.

KIND is Kind, Kind.group or group/Kind, in any case. FIELD is a path from
the object's root (spec.addressSpace, status.provisioningState); a path that
does not start with spec or status is read under spec. List items and map
values are walked through: spec.subnets.addressPrefix.

  -o text  the kubectl layout (default)
  -o json  the same facts, machine-readable
  -o yaml  the same as YAML`,
		Example: `  azk explain VirtualNetwork
  azk explain VirtualNetwork.spec.addressSpace
  azk explain dbforpostgresql.azure.com/FlexibleServer.administratorLoginPassword
  azk explain StorageAccount --recursive`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			version := ""
			if apiVersion != "" {
				_, version, _ = strings.Cut(apiVersion, "/")
				if version == "" {
					version = apiVersion
				}
			}
			e, err := explain.Explain(registry.Default(), args[0], version, recursive)
			if err != nil {
				return err
			}
			switch g.output {
			case "json":
				return writeJSON(g.stdout, e)
			case "yaml":
				return writeYAML(g.stdout, e)
			}
			return explain.WriteText(g.stdout, e)
		},
	}
	cmd.Flags().StringVar(&apiVersion, "api-version", "", "the served version to describe, as GROUP/VERSION or VERSION (default the newest)")
	cmd.Flags().BoolVar(&recursive, "recursive", false, "describe every field below, not only the next level")
	return cmd
}

func newAPIResourcesCommand(g *globalOptions) *cobra.Command {
	var group string
	cmd := &cobra.Command{
		Use:   "api-resources [--api-group GROUP] [-o text|wide|json|yaml|name]",
		Short: "List the ASO kinds azk knows: version, ARM type, api-version, scope",
		Long: `API-resources lists every kind of Azure Service Operator v2 that azk
validates and plans, at its newest served version (by api-version date,
stable before preview), with its ARM resource type, the ARM api-version the
operator sends, and its scope, as kubectl api-resources lists a cluster's.

  -o text  a table (default)
  -o wide  with the owner kinds and every served version
  -o json  every fact, machine-readable; -o yaml the same as YAML
  -o name  group/Kind, one a line`,
		Example: `  azk api-resources
  azk api-resources --api-group network.azure.com -o wide
  azk api-resources -o name | grep -i postgres`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			kinds := explain.Kinds(registry.Default(), group)
			switch g.output {
			case "json":
				return writeJSON(g.stdout, kinds)
			case "yaml":
				return writeYAML(g.stdout, kinds)
			case "name":
				names := make([]string, len(kinds))
				for i, k := range kinds {
					names[i] = k.Group + "/" + k.Kind
				}
				return writeNames(g.stdout, names)
			}
			return explain.WriteKinds(g.stdout, kinds, g.output == "wide")
		},
	}
	cmd.Flags().StringVar(&group, "api-group", "", "list only the kinds of this group (network.azure.com)")
	_ = cmd.RegisterFlagCompletionFunc("api-group", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var groups []string
		for _, gvk := range registry.Default().All() {
			if len(groups) == 0 || groups[len(groups)-1] != gvk.Group {
				groups = append(groups, gvk.Group)
			}
		}
		return groups, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// completeKinds offers the kinds for explain; after a kind and a dot, its
// fields at that level.
func completeKinds(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if i := strings.LastIndexByte(toComplete, '.'); i > 0 {
		e, err := explain.Explain(registry.Default(), toComplete[:i], "", false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, f := range e.Field.Fields {
			out = append(out, toComplete[:i+1]+f.Path[strings.LastIndexByte(f.Path, '.')+1:])
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	var out []string
	for _, k := range explain.Kinds(registry.Default(), "") {
		out = append(out, k.Kind)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
