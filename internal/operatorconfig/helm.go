package operatorconfig

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Facts of the operator's Helm chart (azure-service-operator) that the
// values and their comments name.
const (
	// ReleaseNamespace is the namespace the install line puts the operator in.
	ReleaseNamespace = "azureserviceoperator-system"
	// ServiceAccount is the chart's service account for the controller
	// (serviceAccount.create with no name): the subject of the federated
	// credential workload identity needs is this account in ReleaseNamespace.
	ServiceAccount = "azureserviceoperator-default"
	// TokenAudience is the audience of the token the chart projects into
	// the controller for workload identity.
	TokenAudience = "api://AzureADTokenExchange"
	// GlobalCredential is the Secret the chart makes of the identity values.
	GlobalCredential = "aso-controller-settings"
	// PlaceholderKey marks a value azk cannot know. The chart has no
	// required/fail and no values schema: an empty string would install an
	// operator that cannot sign in. A table where the chart's templates want
	// a string makes Helm refuse to render the chart at all (b64enc: wrong
	// type), with a warning naming the value.
	PlaceholderKey = "azkPlaceholder"
)

// Operator is what azk knows of the operator's own settings, beyond the
// manifests: the identity it signs in as and how often it re-sends every
// resource.
type Operator struct {
	// Subscription and Tenant are the run's; SubscriptionFrom and
	// TenantFrom say where azk found each (a flag, an environment
	// variable, the Azure CLI's profile). Empty when azk found none.
	Subscription, SubscriptionFrom string
	Tenant, TenantFrom             string
	// ClientID is the client (application) ID of the identity the
	// operator signs in as; empty when not given.
	ClientID string
	// SyncPeriod is the operator's AZURE_SYNC_PERIOD: the period the
	// pre-flight's steady-state write check assumes (--sync-period).
	SyncPeriod time.Duration
}

// WriteHelmValues writes the values of the operator's Helm chart for the
// manifests and the identity op: subscription, tenant, client ID with
// workload identity, sync period, crdPattern and target namespaces, with
// the Secret-based alternatives and the per-namespace credential Secrets to
// create as comments. A value azk does not know is a placeholder the chart
// refuses to render.
func (c *Config) WriteHelmValues(w io.Writer, op Operator) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	p("# Helm values for the Azure Service Operator v2 chart (azure-service-operator),")
	p("# made by azk operator-config from the manifests. Install (after cert-manager):")
	p("#   helm repo add aso2 https://raw.githubusercontent.com/Azure/azure-service-operator/main/v2/charts")
	p("#   helm upgrade --install aso2 aso2/azure-service-operator --create-namespace -n %s -f aso-values.yaml", ReleaseNamespace)
	if op.Subscription == "" || op.Tenant == "" || op.ClientID == "" {
		p("# A value azk could not know is a table {%s: ...}: Helm refuses to render the", PlaceholderKey)
		p("# chart until it is replaced.")
	}
	p("")
	p("# The operator's global credential (the chart makes it the Secret %s).", GlobalCredential)
	p("# The subscription the operator acts against%s:", from(op.SubscriptionFrom))
	p("azureSubscriptionID: %s", valueOr(op.Subscription, "the subscription ID: azk operator-config --subscription ID"))
	p("# The Microsoft Entra tenant of the subscription%s:", from(op.TenantFrom))
	p("azureTenantID: %s", valueOr(op.Tenant, "the tenant ID: azk operator-config --tenant ID"))
	clientID, clientIDFrom := op.ClientID, "--client-id"
	if clientID == "" {
		clientID, clientIDFrom = "<client ID>", ""
	}
	p("# The identity the operator signs in as, by workload identity: the client ID of a")
	p("# user-assigned managed identity or app registration%s. Federate it with the", from(clientIDFrom))
	p("# operator's service account, and check its permissions on the plan first:")
	p("#   az identity federated-credential create --name aso --identity-name <identity> --resource-group <group> --issuer <the cluster's OIDC issuer URL> --subject system:serviceaccount:%s:%s --audiences %s", ReleaseNamespace, ServiceAccount, TokenAudience)
	p("#   (for an app registration, az ad app federated-credential create with the same issuer, subject and audience)")
	p("#   azk plan --preflight --as \"$(az ad sp show --id %s --query id -o tsv)\" <the manifests>", clientID)
	p("azureClientID: %s", valueOr(op.ClientID, "the client ID of the operator's identity: azk operator-config --client-id ID"))
	p("useWorkloadIdentityAuth: true")
	p("# Or an app registration's secret instead of workload identity: set useWorkloadIdentityAuth")
	p("# to false and pass the client secret or certificate from a file, never in this one:")
	p("#   --set-file azureClientSecret=<file holding the client secret>")
	p("#   --set-file azureClientCertificate=<PEM file with the private key> [--set-file azureClientCertificatePassword=<file>]")
	p("")
	p("# How often the operator re-sends every resource when nothing changed: the period")
	p("# azk plan --preflight's steady-state write check assumes (--sync-period).")
	p("azureSyncPeriod: %s", strconv.Quote(FormatSyncPeriod(op.SyncPeriod)))
	p("# The CRDs the manifests use, and no other:")
	p("crdPattern: %s", strconv.Quote(c.CRDPattern))
	p("# The manifests' namespaces, the only ones the operator watches (remove to watch all):")
	p("azureTargetNamespaces:")
	for _, ns := range c.Namespaces {
		p("  - %s", strconv.Quote(ns.Name))
	}
	c.writeCredentialSecrets(bw, op)
	return bw.Flush()
}

// writeCredentialSecrets writes, as comments, the kubectl line creating each
// credential Secret the input lacks: those the manifests name first, then
// each namespace's optional aso-credential.
func (c *Config) writeCredentialSecrets(bw *bufio.Writer, op Operator) {
	var named, optional, inInput []Credential
	for _, cr := range c.Credentials {
		switch {
		case cr.InInput:
			inInput = append(inInput, cr)
		case cr.Scope == ScopeNamespace:
			optional = append(optional, cr)
		default:
			named = append(named, cr)
		}
	}
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	if len(named)+len(optional) > 0 {
		p("")
		p("# Per-namespace credential Secrets, to create with kubectl (fill in each <...>). As")
		p("# written, the identity signs in by workload identity and needs a federated credential")
		p("# naming the operator's service account, as above; for an app registration's secret")
		p("# instead, add --from-file=AZURE_CLIENT_SECRET=<file> or")
		p("# --from-file=AZURE_CLIENT_CERTIFICATE=<PEM file>.")
	}
	if len(named) > 0 {
		p("# The manifests name these and the input lacks them: create each before the operator")
		p("# reconciles the resources it is for.")
		for _, cr := range named {
			p("#   %s/%s, %s:", cr.Namespace, cr.Name, usedFor(cr))
			p("#   %s", kubectlCreateSecret(cr, op))
		}
	}
	if len(optional) > 0 {
		p("# Optional: a namespace's %s, for its resources that name no credential; without", NamespaceCredential)
		p("# it they use the global credential above.")
		for _, cr := range optional {
			p("#   %s", kubectlCreateSecret(cr, op))
		}
	}
	for _, cr := range inInput {
		p("# Credential Secret %s/%s is in the input (%s).", cr.Namespace, cr.Name, cr.Source)
	}
}

func usedFor(cr Credential) string {
	if cr.Scope == ScopeNamespaceAnnotation {
		return "named by Namespace " + cr.Namespace + " for its resources"
	}
	return "for " + strings.Join(cr.UsedBy, ", ")
}

// kubectlCreateSecret is the command creating the credential Secret cr
// signing in by workload identity (a credential Secret with neither a client
// secret nor a certificate), with the run's subscription and tenant
// where azk knows them and a placeholder for the identity's client ID.
func kubectlCreateSecret(cr Credential, op Operator) string {
	sub, tenant := op.Subscription, op.Tenant
	if sub == "" {
		sub = "<subscription ID>"
	}
	if tenant == "" {
		tenant = "<tenant ID>"
	}
	return fmt.Sprintf("kubectl create secret generic %s -n %s --from-literal=AZURE_SUBSCRIPTION_ID=%s --from-literal=AZURE_TENANT_ID=%s --from-literal=AZURE_CLIENT_ID=<client ID of its identity>",
		cr.Name, cr.Namespace, sub, tenant)
}

// valueOr is value as a YAML string, or a placeholder table saying what is
// missing when value is empty.
func valueOr(value, missing string) string {
	if value != "" {
		return strconv.Quote(value)
	}
	return "{" + PlaceholderKey + ": " + strconv.Quote(missing) + "}"
}

func from(source string) string {
	if source == "" {
		return ""
	}
	return " (from " + source + ")"
}

// FormatSyncPeriod writes d as the operator parses AZURE_SYNC_PERIOD (Go's
// time.ParseDuration), without the zero units Go's String adds: 1h, not 1h0m0s.
func FormatSyncPeriod(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
