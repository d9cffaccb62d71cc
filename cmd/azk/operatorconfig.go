package main

import (
	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/operatorconfig"
)

func init() {
	subcommands = append(subcommands, newOperatorConfigCommand)
	outputFormats["operator-config"] = []string{"text", "yaml", "json"}
}

func newOperatorConfigCommand(g *globalOptions) *cobra.Command {
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "operator-config PATH... [-k DIR] [-o text|yaml|json]",
		Short: "Show what Azure Service Operator needs to take the manifests over: crdPattern, namespaces, credentials",
		Long: `Operator-config reads the manifests offline and says what the operator
(Azure Service Operator v2) needs once they go to a cluster running it, the
last step after azk plan is quiet:

  - crdPattern: the operator installs only the CRDs its crdPattern matches
    ("group/Kind" entries separated by ";", "*" a wildcard, as asoctl export
    template --crd-pattern takes them); this one names exactly the kinds the
    manifests use, each as group/Kind (never group/*, which would also take
    the kinds a later operator release adds to the group);
  - the namespaces of the resources, and whether the input holds each v1
    Namespace;
  - the credential Secrets the operator reads its Azure identity from: those
    named by the serviceoperator.azure.com/credential-from annotation (of a
    resource, or of its Namespace), and each namespace's aso-credential for
    the resources that name none (without it, the operator's global
    credential), and whether the input holds each;
  - the Secrets and ConfigMaps the resources consume (secret and config-map
    references) or export (operatorSpec), and whether the input holds each.

Where the operator itself acts otherwise than azk did (annotations of azk's
it does not read: drift policies, ignore-changes; reconcile-policy-if-exists),
azk plan says so under "operator differs".

  -o text   for people (default)
  -o yaml   the operator Helm chart's values (crdPattern; the rest as comments)
  -o json   everything above, machine-readable`,
		Example: `  azk operator-config ./manifests
  azk operator-config ./manifests -o yaml > aso-values.yaml
  helm upgrade --install aso2 aso2/azure-service-operator -n azureserviceoperator-system -f aso-values.yaml`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			res, diags := loader.Load(loader.Options{Paths: args, Kustomize: in.kustomize, Stdin: g.stdin, Namespace: g.namespace})
			g.secrets.Add(secretValues(res.Secrets)...)
			gr, more := graph.Build(res, graph.Options{Subscription: g.subscriptionID()})
			diags = append(diags, withoutMissingCredentials(gr, more)...)
			printDiagnostics(g.stderr, diags)
			if diags.HasErrors() {
				return failed()
			}
			c := operatorconfig.Build(gr)
			switch g.output {
			case "json":
				return c.WriteJSON(g.stdout)
			case "yaml":
				return c.WriteHelmValues(g.stdout)
			}
			return c.WriteText(g.stdout)
		},
	}
	in.register(cmd)
	return cmd
}

// withoutMissingCredentials drops the errors of credential-from Secrets the
// input does not hold: credentials usually live outside git, and
// operator-config reports each as not in the input.
func withoutMissingCredentials(gr *graph.Graph, diags diag.List) diag.List {
	field := "metadata.annotations." + graph.AnnotationCredentialFrom
	var out diag.List
	for _, d := range diags {
		if d.Field == field && d.Severity == diag.SeverityError && !credentialInInput(gr, d.Resource) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// credentialInInput reports whether the credential Secret the resource at
// address names is in the input.
func credentialInInput(gr *graph.Graph, address string) bool {
	for _, n := range gr.Nodes {
		if n.Address() == address {
			name := n.Object.Node.GetAnnotations()[graph.AnnotationCredentialFrom]
			return gr.Secrets[n.Object.Namespace+"/"+name] != nil
		}
	}
	return false
}
