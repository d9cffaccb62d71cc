package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/operatorconfig"
	"github.com/azkcli/azk/internal/preflight"
)

func init() {
	subcommands = append(subcommands, newOperatorConfigCommand)
	outputFormats["operator-config"] = []string{"text", "yaml", "json"}
}

func newOperatorConfigCommand(g *globalOptions) *cobra.Command {
	var in inputFlags
	var tenant, clientID string
	var syncPeriod time.Duration
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
  -o yaml   the operator Helm chart's values: the subscription and tenant
            (--subscription, --tenant, else as azk plan finds them), the
            identity by workload identity (--client-id; a client secret or
            certificate as comments), azureSyncPeriod (--sync-period, the
            period the pre-flight's steady-state check assumes), crdPattern
            and azureTargetNamespaces; the credential Secrets to create as
            comments with their kubectl lines. A value azk does not know is
            a placeholder Helm refuses to render, never an empty string
  -o json   everything above but the identity, machine-readable`,
		Example: `  azk operator-config ./manifests
  azk operator-config ./manifests -o yaml --client-id 11111111-2222-3333-4444-555555555555 > aso-values.yaml
  helm upgrade --install aso2 aso2/azure-service-operator --create-namespace -n azureserviceoperator-system -f aso-values.yaml`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			if g.output != "yaml" {
				for _, name := range []string{"tenant", "client-id", "sync-period"} {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("--%s is a value of the operator's Helm chart: add -o yaml", name)
					}
				}
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
				op, err := operatorIdentity(g, tenant, clientID, syncPeriod)
				if err != nil {
					return err
				}
				return c.WriteHelmValues(g.stdout, op)
			}
			return c.WriteText(g.stdout)
		},
	}
	in.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&tenant, "tenant", "", "with -o yaml, the operator's Microsoft Entra tenant ID (default $AZURE_TENANT_ID, else the Azure CLI's for the subscription)")
	fl.StringVar(&clientID, "client-id", "", "with -o yaml, the client ID (a GUID) of the identity the operator signs in as: a user-assigned managed identity's or an app registration's")
	fl.DurationVar(&syncPeriod, "sync-period", preflight.DefaultSyncPeriod, "with -o yaml, the operator's AZURE_SYNC_PERIOD (keep it the one azk plan --preflight --sync-period assumes)")
	return cmd
}

// operatorIdentity is what the Helm values say of the operator's identity:
// the subscription and tenant found as for a run against Azure (flags, the
// environment, the Azure CLI's profile; offline), the client ID given.
func operatorIdentity(g *globalOptions, tenant, clientID string, syncPeriod time.Duration) (operatorconfig.Operator, error) {
	if clientID != "" && !preflight.IsGUID(clientID) {
		return operatorconfig.Operator{}, fmt.Errorf("--client-id %q is not a client ID (a GUID): for a user-assigned identity `az identity show -g GROUP -n NAME --query clientId -o tsv`, for an app registration `az ad app list --display-name NAME --query [].appId -o tsv`", clientID)
	}
	if syncPeriod <= 0 {
		return operatorconfig.Operator{}, fmt.Errorf("--sync-period %s: must be positive", syncPeriod)
	}
	account, err := arm.ResolveAccount(g.subscription, tenant)
	if err != nil {
		return operatorconfig.Operator{}, err
	}
	return operatorconfig.Operator{
		Subscription: account.Subscription, SubscriptionFrom: account.SubscriptionFrom,
		Tenant: account.Tenant, TenantFrom: account.TenantFrom,
		ClientID: clientID, SyncPeriod: syncPeriod,
	}, nil
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
