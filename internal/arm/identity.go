package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/loader"
)

// Auth chooses where the credential comes from.
type Auth string

const (
	// AuthDefault is azidentity's DefaultAzureCredential chain: environment,
	// workload identity, managed identity, Azure CLI, Azure Developer CLI, Azure PowerShell.
	AuthDefault  Auth = ""
	AuthEnv      Auth = "env"      // AZURE_TENANT_ID, AZURE_CLIENT_ID and a secret or certificate
	AuthCLI      Auth = "cli"      // the account "az login" signed in
	AuthMSI      Auth = "msi"      // the managed identity of this VM, container or App Service
	AuthWorkload Auth = "workload" // workload identity federation (AZURE_FEDERATED_TOKEN_FILE)
	AuthDevice   Auth = "device"   // interactive device code sign-in
)

// Auths lists the values --auth accepts.
var Auths = []Auth{AuthEnv, AuthCLI, AuthMSI, AuthWorkload, AuthDevice}

// CredentialOptions configures NewCredential. The zero value is the default
// chain in Azure public cloud.
type CredentialOptions struct {
	Auth Auth
	// Tenant, when set, is the tenant to sign in to.
	Tenant string
	// Cloud is the cloud whose Microsoft Entra authority is used; zero is Azure public cloud.
	Cloud cloud.Configuration
	// Transport carries the credentials' own HTTP requests (token endpoints,
	// managed identity); nil uses azcore's default.
	Transport policy.Transporter
	// Prompt receives device code sign-in instructions; nil means standard error.
	Prompt io.Writer
}

// NewCredential returns the credential o.Auth names. Its failure to get a
// token is one error that lists every source tried and how to fix it.
func NewCredential(o CredentialOptions) (azcore.TokenCredential, error) {
	copts := azcore.ClientOptions{Cloud: o.Cloud, Transport: o.Transport}
	var (
		cred azcore.TokenCredential
		err  error
	)
	switch o.Auth {
	case AuthDefault:
		cred, err = azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: copts, TenantID: o.Tenant})
	case AuthEnv:
		cred, err = azidentity.NewEnvironmentCredential(&azidentity.EnvironmentCredentialOptions{ClientOptions: copts})
	case AuthCLI:
		cred, err = azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: o.Tenant})
	case AuthMSI:
		mo := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: copts}
		if id := os.Getenv("AZURE_CLIENT_ID"); id != "" {
			mo.ID = azidentity.ClientID(id)
		}
		cred, err = azidentity.NewManagedIdentityCredential(mo)
	case AuthWorkload:
		cred, err = azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{ClientOptions: copts, TenantID: o.Tenant})
	case AuthDevice:
		prompt := o.Prompt
		if prompt == nil {
			prompt = os.Stderr
		}
		cred, err = azidentity.NewDeviceCodeCredential(&azidentity.DeviceCodeCredentialOptions{
			ClientOptions: copts,
			TenantID:      o.Tenant,
			UserPrompt: func(_ context.Context, m azidentity.DeviceCodeMessage) error {
				_, err := fmt.Fprintln(prompt, m.Message)
				return err
			},
		})
	default:
		return nil, fmt.Errorf("unknown --auth %q: use one of %s, or leave it unset for the default chain", o.Auth, joinAuths())
	}
	if err != nil {
		return nil, credentialError(authNames[o.Auth], err)
	}
	return &explainedCredential{inner: cred, source: authNames[o.Auth]}, nil
}

func joinAuths() string {
	s := make([]string, len(Auths))
	for i, a := range Auths {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// explainedCredential turns token failures into one message that says what
// was tried. Until it has got a token once it remembers its failure, so that
// the many requests of a run report one missing credential, not many.
type explainedCredential struct {
	inner azcore.TokenCredential
	// source names the credential in messages; "" is the default chain.
	source string

	mu      sync.Mutex
	worked  bool
	missing error
}

func (c *explainedCredential) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.mu.Lock()
	missing := c.missing
	c.mu.Unlock()
	if missing != nil {
		return azcore.AccessToken{}, missing
	}
	tok, err := c.inner.GetToken(ctx, o)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil:
		c.worked = true
		return tok, nil
	case ctx.Err() != nil:
		return tok, err
	case !c.worked:
		c.missing = credentialError(c.source, err)
		return tok, c.missing
	default:
		return tok, credentialError(c.source, err)
	}
}

var authNames = map[Auth]string{
	AuthEnv:      "environment variables (--auth env)",
	AuthCLI:      "Azure CLI (--auth cli)",
	AuthMSI:      "managed identity (--auth msi)",
	AuthWorkload: "workload identity (--auth workload)",
	AuthDevice:   "device code sign-in (--auth device)",
}

// credentialNames maps azidentity's credential type names to what users call them.
var credentialNames = map[string]string{
	"EnvironmentCredential":       "environment variables",
	"WorkloadIdentityCredential":  "workload identity",
	"ManagedIdentityCredential":   "managed identity",
	"AzureCLICredential":          "Azure CLI",
	"AzureDeveloperCLICredential": "Azure Developer CLI",
	"AzurePowerShellCredential":   "Azure PowerShell",
	"ClientSecretCredential":      "client secret",
	"ClientCertificateCredential": "client certificate",
	"DeviceCodeCredential":        "device code sign-in",
	"DefaultAzureCredential":      "default credential chain",
}

const credentialHelp = `Sign in with "az login", or set AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET, or choose a source with --auth ` +
	`env|cli|msi|workload|device; to try azk without Azure, use --emulator.`

// credentialError is the one message for a credential that got no token:
// each source tried with the first line of its reason, then what to do.
// source names the credential; "" is the default chain.
func credentialError(source string, err error) error {
	var b strings.Builder
	if source == "" {
		b.WriteString("no Azure credential found; tried, in order:")
	} else {
		fmt.Fprintf(&b, "no Azure credential from %s:", source)
	}
	for _, reason := range attempts(err.Error()) {
		b.WriteString("\n  ")
		b.WriteString(reason)
	}
	if !strings.HasPrefix(source, "credential secret") {
		b.WriteString("\n")
		b.WriteString(credentialHelp)
	}
	return errors.New(b.String())
}

// attempts splits azidentity's error text into one line per credential tried.
// A chain lists them tab-indented under "Attempted credentials:"; details
// (indented deeper: response dumps, troubleshooting links) are left out.
func attempts(msg string) []string {
	lines := strings.Split(msg, "\n")
	var out []string
	if i := indexOf(lines, "Attempted credentials:"); i >= 0 {
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "\t\t") {
				out = append(out, friendly(strings.TrimSpace(l)))
			}
		}
	}
	if len(out) == 0 {
		out = append(out, friendly(strings.TrimSpace(lines[0])))
	}
	return out
}

func indexOf(lines []string, s string) int {
	for i, l := range lines {
		if strings.TrimSpace(l) == s {
			return i
		}
	}
	return -1
}

// friendly replaces a leading azidentity type name by its plain name.
func friendly(line string) string {
	name, rest, ok := strings.Cut(line, " ")
	if !ok {
		return line
	}
	if plain, ok := credentialNames[strings.TrimSuffix(name, ":")]; ok {
		rest = strings.TrimSpace(strings.TrimSuffix(rest, "."))
		return plain + ": " + rest
	}
	return line
}

// Secret keys of an ASO credential Secret (serviceoperator.azure.com/credential-from).
const (
	SecretSubscriptionID        = "AZURE_SUBSCRIPTION_ID"
	SecretTenantID              = "AZURE_TENANT_ID"
	SecretClientID              = "AZURE_CLIENT_ID"
	SecretClientSecret          = "AZURE_CLIENT_SECRET"
	SecretClientCertificate     = "AZURE_CLIENT_CERTIFICATE" // PEM or PKCS#12 content, as ASO reads it
	SecretClientCertificatePath = "AZURE_CLIENT_CERTIFICATE_PATH"
	SecretCertificatePassword   = "AZURE_CLIENT_CERTIFICATE_PASSWORD"
	SecretFederatedTokenFile    = "AZURE_FEDERATED_TOKEN_FILE"
)

// ForSecret returns a client acting as the identity in an ASO credential
// Secret and in its subscription; it shares c's in-flight bound, created-resource record
// and role cache. data is the Secret's decoded data, name is used in errors.
// The identity is a client secret, else a certificate (content or path), else
// workload identity with the Secret's or the environment's token file. Errors
// name keys, never values. A client of the emulator keeps its credential,
// since the emulator cannot check an Azure identity.
func (c *Client) ForSecret(name string, data map[string]string) (*Client, error) {
	missing := []string{}
	for _, k := range []string{SecretSubscriptionID, SecretTenantID, SecretClientID} {
		if strings.TrimSpace(data[k]) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("credential secret %q: missing %s", name, strings.Join(missing, ", "))
	}
	o := c.opts
	o.principal = name
	o.Subscription = strings.TrimSpace(data[SecretSubscriptionID])
	if armid.CheckSubscription(o.Subscription) != nil {
		return nil, fmt.Errorf("credential secret %q: %s is not a subscription ID (a GUID)", name, SecretSubscriptionID)
	}
	if _, isEmulator := c.opts.Credential.(emulatorCredential); !isEmulator {
		cred, err := secretCredential(name, data, azcore.ClientOptions{Cloud: c.opts.Cloud, Transport: c.opts.Transport, Retry: c.opts.Retry.azcore()})
		if err != nil {
			return nil, err
		}
		o.Credential = &explainedCredential{inner: cred, source: fmt.Sprintf("credential secret %q", name)}
	}
	return newClient(o, c.shared)
}

// maxCertificateBytes bounds a certificate or token file a credential
// Secret names: a PEM or PKCS#12 certificate chain with its key, or a
// federated token, is a few kilobytes.
const maxCertificateBytes = 1 << 20

func secretCredential(name string, data map[string]string, copts azcore.ClientOptions) (azcore.TokenCredential, error) {
	tenant, client := strings.TrimSpace(data[SecretTenantID]), strings.TrimSpace(data[SecretClientID])
	fail := func(key, what string) error { return fmt.Errorf("credential secret %q: %s: %s", name, key, what) }
	switch {
	case data[SecretClientSecret] != "":
		cred, err := azidentity.NewClientSecretCredential(tenant, client, data[SecretClientSecret], &azidentity.ClientSecretCredentialOptions{ClientOptions: copts})
		if err != nil {
			return nil, fail(SecretClientSecret, "not usable")
		}
		return cred, nil
	case data[SecretClientCertificate] != "" || data[SecretClientCertificatePath] != "":
		key, raw := SecretClientCertificate, []byte(data[SecretClientCertificate])
		if len(raw) == 0 {
			key = SecretClientCertificatePath
			var err error
			// The path comes from the manifests: a regular file, bounded.
			if raw, err = loader.ReadFile(data[SecretClientCertificatePath], maxCertificateBytes); err != nil {
				return nil, fail(key, "cannot read the certificate file")
			}
		}
		certs, pk, err := azidentity.ParseCertificates(raw, []byte(data[SecretCertificatePassword]))
		if err != nil {
			return nil, fail(key, "not a PEM or PKCS#12 certificate with its private key (or the password is wrong)")
		}
		cred, err := azidentity.NewClientCertificateCredential(tenant, client, certs, pk, &azidentity.ClientCertificateCredentialOptions{ClientOptions: copts})
		if err != nil {
			return nil, fail(key, "not usable")
		}
		return cred, nil
	default:
		file := data[SecretFederatedTokenFile]
		if file == "" {
			file = os.Getenv(SecretFederatedTokenFile)
		}
		if file == "" {
			return nil, fmt.Errorf("credential secret %q: no %s, %s or %s, and no workload identity token file (%s)",
				name, SecretClientSecret, SecretClientCertificate, SecretClientCertificatePath, SecretFederatedTokenFile)
		}
		// azidentity reads the file for each token: it must be a regular
		// file (a FIFO would block, /dev/zero fill memory). A file not there
		// yet is left to azidentity, as before.
		if _, err := loader.ReadFile(file, maxCertificateBytes); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fail(SecretFederatedTokenFile, "cannot read the token file")
		}
		cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{ClientOptions: copts, TenantID: tenant, ClientID: client, TokenFilePath: file})
		if err != nil {
			return nil, fail(SecretFederatedTokenFile, err.Error())
		}
		return cred, nil
	}
}

// EmulatorCredential is the credential for azk's ARM emulator, which accepts
// any bearer token but, like ARM, refuses requests without one.
var EmulatorCredential azcore.TokenCredential = emulatorCredential{}

type emulatorCredential struct{}

func (emulatorCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "azk-emulator", ExpiresOn: time.Now().Add(24 * time.Hour)}, nil
}

// Clouds maps --cloud names to azcore's cloud configurations.
var Clouds = map[string]cloud.Configuration{
	"AzurePublic":       cloud.AzurePublic,
	"AzureChinaCloud":   cloud.AzureChina,
	"AzureUSGovernment": cloud.AzureGovernment,
}

// CloudNamed returns the cloud for a --cloud name, matched case-insensitively.
func CloudNamed(name string) (cloud.Configuration, error) {
	for n, c := range Clouds {
		if strings.EqualFold(n, name) {
			return c, nil
		}
	}
	return cloud.Configuration{}, fmt.Errorf("unknown cloud %q: use AzurePublic, AzureChinaCloud or AzureUSGovernment", name)
}

// Account is the subscription and tenant azk works in, and where each came from.
type Account struct {
	Subscription, SubscriptionFrom string
	Tenant, TenantFrom             string
}

// ResolveAccount picks the subscription from the flag, else
// AZURE_SUBSCRIPTION_ID, else the Azure CLI's default subscription; the tenant
// from the flag, else AZURE_TENANT_ID, else the Azure CLI profile's tenant of
// that subscription. The CLI profile is azureProfile.json in $AZURE_CONFIG_DIR
// or ~/.azure; a missing profile is not an error, an unreadable one is.
func ResolveAccount(subscriptionFlag, tenantFlag string) (Account, error) {
	a := Account{}
	pick := func(flagValue, flagName, env string) (string, string) {
		if flagValue != "" {
			return flagValue, flagName
		}
		if v := os.Getenv(env); v != "" {
			return v, "$" + env
		}
		return "", ""
	}
	a.Subscription, a.SubscriptionFrom = pick(subscriptionFlag, "--subscription", "AZURE_SUBSCRIPTION_ID")
	a.Tenant, a.TenantFrom = pick(tenantFlag, "--tenant", "AZURE_TENANT_ID")
	if a.Subscription != "" && a.Tenant != "" {
		return a, nil
	}
	path, subs, err := readCLIProfile()
	if err != nil || len(subs) == 0 {
		return a, err
	}
	for _, s := range subs {
		chosen := a.Subscription == "" && s.IsDefault || strings.EqualFold(a.Subscription, s.ID)
		if !chosen {
			continue
		}
		if a.Subscription == "" {
			a.Subscription, a.SubscriptionFrom = s.ID, path
		}
		if a.Tenant == "" && s.TenantID != "" {
			a.Tenant, a.TenantFrom = s.TenantID, path
		}
		break
	}
	return a, nil
}

type cliSubscription struct {
	ID        string `json:"id"`
	TenantID  string `json:"tenantId"`
	IsDefault bool   `json:"isDefault"`
}

func readCLIProfile() (string, []cliSubscription, error) {
	dir := os.Getenv("AZURE_CONFIG_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", nil, nil
		}
		dir = filepath.Join(home, ".azure")
	}
	path := filepath.Join(dir, "azureProfile.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return path, nil, fmt.Errorf("reading the Azure CLI profile: %w", err)
	}
	// The Azure CLI writes the file with a UTF-8 byte order mark.
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	var profile struct {
		Subscriptions []cliSubscription `json:"subscriptions"`
	}
	if err := json.Unmarshal(raw, &profile); err != nil {
		return path, nil, fmt.Errorf("%s: not an Azure CLI profile: %w", path, err)
	}
	return path, profile.Subscriptions, nil
}
