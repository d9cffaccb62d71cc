package arm

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/emulator"
)

// offline is a transport that refuses every request, so credential tests
// cannot reach Microsoft Entra, IMDS or anything else.
type offline struct{ calls atomic.Int32 }

func (o *offline) Do(req *http.Request) (*http.Response, error) {
	o.calls.Add(1)
	return nil, errors.New("network disabled in tests")
}

// noAmbientCredentials removes every credential source the machine may have.
func noAmbientCredentials(t *testing.T) {
	for _, k := range []string{"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH",
		"AZURE_USERNAME", "AZURE_FEDERATED_TOKEN_FILE", "AZURE_TOKEN_CREDENTIALS", "IDENTITY_ENDPOINT", "IDENTITY_HEADER",
		"MSI_ENDPOINT", "MSI_SECRET", "IMDS_ENDPOINT", "AZURE_POD_IDENTITY_AUTHORITY_HOST", "AZURE_SUBSCRIPTION_ID"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("PATH", t.TempDir()) // no az, azd or pwsh
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
}

func TestMissingCredentialIsOneClearMessage(t *testing.T) {
	noAmbientCredentials(t)
	net := &offline{}
	cred, err := NewCredential(CredentialOptions{Transport: net})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if err == nil {
		t.Fatal("got a token with no credential anywhere")
	}
	msg := err.Error()
	t.Logf("the message:\n%s", msg)
	if !strings.HasPrefix(msg, "no Azure credential found; tried, in order:\n") {
		t.Errorf("message does not open with what happened")
	}
	order := []string{"environment variables:", "workload identity:", "managed identity:", "Azure CLI:", "Azure Developer CLI:"}
	last := -1
	for _, want := range order {
		i := strings.Index(msg, "\n  "+want)
		if i < 0 {
			t.Errorf("message does not list %q", want)
			continue
		}
		if i < last {
			t.Errorf("%q is out of order", want)
		}
		last = i
	}
	for _, want := range []string{"az login", "--auth env|cli|msi|workload|device", "--emulator"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message does not suggest %q", want)
		}
	}
	if strings.Contains(msg, "\t") || strings.Contains(msg, "----") {
		t.Error("message carries azidentity's response dumps")
	}

	// The failure is remembered: the many requests of a run do not each try again.
	calls := net.calls.Load()
	_, again := cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if again == nil || again.Error() != msg || net.calls.Load() != calls {
		t.Errorf("second GetToken tried again or said something else: %v", again)
	}

	// Through a client, the request names what it was for and carries the same message.
	emu := startEmulator(t, emulator.Options{})
	c := emu.client(t, func(o *Options) { o.Credential = cred })
	_, err = c.Get(testContext(t), rgID("x"), rgAPI)
	if err == nil || !strings.Contains(err.Error(), "GET "+rgID("x")+": ") || !strings.Contains(err.Error(), msg) {
		t.Errorf("client error: %v", err)
	}
	if emu.rec.method(http.MethodGet) != 0 {
		t.Error("a request without a credential reached the endpoint")
	}
}

func TestChosenCredentialNamesItself(t *testing.T) {
	noAmbientCredentials(t)
	cred, err := NewCredential(CredentialOptions{Auth: AuthCLI, Transport: &offline{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cred.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}})
	if err == nil || !strings.HasPrefix(err.Error(), "no Azure credential from Azure CLI (--auth cli):\n  ") {
		t.Errorf("got %v", err)
	}
	_, err = NewCredential(CredentialOptions{Auth: AuthEnv})
	if err == nil || !strings.HasPrefix(err.Error(), "no Azure credential from environment variables (--auth env):\n  ") {
		t.Errorf("env: got %v", err)
	}
	if _, err := NewCredential(CredentialOptions{Auth: "browser"}); err == nil || !strings.Contains(err.Error(), "env, cli, msi, workload, device") {
		t.Errorf("unknown auth: %v", err)
	}
}

// otherSub is the subscription of the credential Secrets in these tests.
const otherSub = "22222222-0000-0000-0000-000000000002"

func TestForSecretErrorsNameKeysNeverValues(t *testing.T) {
	noAmbientCredentials(t)
	c, err := New(Options{Credential: &explainedCredential{inner: EmulatorCredential}, Transport: &offline{}, Retry: fastRetry})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "do-not-print-me"
	cases := []struct {
		data map[string]string
		want string
	}{
		{map[string]string{SecretClientSecret: secret}, `credential secret "creds": missing AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID, AZURE_CLIENT_ID`},
		{map[string]string{SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c"}, `credential secret "creds": no AZURE_CLIENT_SECRET, AZURE_CLIENT_CERTIFICATE or AZURE_CLIENT_CERTIFICATE_PATH, and no workload identity token file`},
		{map[string]string{SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c", SecretClientCertificate: secret, SecretCertificatePassword: secret}, `credential secret "creds": AZURE_CLIENT_CERTIFICATE: not a PEM or PKCS#12 certificate`},
		{map[string]string{SecretSubscriptionID: otherSub, SecretTenantID: "t", SecretClientID: "c", SecretClientCertificatePath: filepath.Join(t.TempDir(), secret)}, `credential secret "creds": AZURE_CLIENT_CERTIFICATE_PATH: cannot read the certificate file`},
	}
	for _, tc := range cases {
		_, err := c.ForSecret("creds", tc.data)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error shows a secret value: %v", err)
		}
	}
	sc, err := c.ForSecret("creds", map[string]string{SecretSubscriptionID: " " + otherSub + " ", SecretTenantID: "t", SecretClientID: "c", SecretClientSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Subscription() != otherSub {
		t.Errorf("subscription %q", sc.Subscription())
	}
	// A subscription that is not a GUID would become part of every request path.
	injected := otherSub + "/resourceGroups/victim?x="
	if _, err := c.ForSecret("creds", map[string]string{SecretSubscriptionID: injected, SecretTenantID: "t", SecretClientID: "c", SecretClientSecret: secret}); err == nil ||
		err.Error() != `credential secret "creds": AZURE_SUBSCRIPTION_ID is not a subscription ID (a GUID)` {
		t.Errorf("an injected subscription: %v", err)
	}
	// A token request for it goes to Entra ID (refused here) and fails without the secret.
	_, err = sc.Get(context.Background(), "/subscriptions/"+otherSub+"/resourceGroups/x", rgAPI)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), `no Azure credential from credential secret "creds":`+"\n  client secret: ") {
		t.Errorf("got %v", err)
	}
}

func TestResolveAccount(t *testing.T) {
	noAmbientCredentials(t)
	dir := os.Getenv("AZURE_CONFIG_DIR")
	// The Azure CLI writes its profile with a UTF-8 byte order mark.
	profile := "\xef\xbb\xbf" + `{"installationId":"x","subscriptions":[
	 {"id":"aaaa","name":"dev","tenantId":"tenant-a","isDefault":false,"state":"Enabled"},
	 {"id":"bbbb","name":"prod","tenantId":"tenant-b","isDefault":true,"state":"Enabled"}]}`
	if err := os.WriteFile(filepath.Join(dir, "azureProfile.json"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	profilePath := filepath.Join(dir, "azureProfile.json")

	a, err := ResolveAccount("", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Account{Subscription: "bbbb", SubscriptionFrom: profilePath, Tenant: "tenant-b", TenantFrom: profilePath}); a != want {
		t.Errorf("from profile: %+v, want %+v", a, want)
	}

	t.Setenv("AZURE_SUBSCRIPTION_ID", "aaaa")
	a, _ = ResolveAccount("", "")
	if a.Subscription != "aaaa" || a.SubscriptionFrom != "$AZURE_SUBSCRIPTION_ID" || a.Tenant != "tenant-a" {
		t.Errorf("from env: %+v (tenant must follow the chosen subscription)", a)
	}

	t.Setenv("AZURE_TENANT_ID", "env-tenant")
	a, _ = ResolveAccount("flag-sub", "")
	if a.Subscription != "flag-sub" || a.SubscriptionFrom != "--subscription" || a.Tenant != "env-tenant" || a.TenantFrom != "$AZURE_TENANT_ID" {
		t.Errorf("flag and env: %+v", a)
	}

	if err := os.WriteFile(profilePath, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("AZURE_SUBSCRIPTION_ID")
	if _, err := ResolveAccount("", ""); err == nil || !strings.Contains(err.Error(), profilePath) {
		t.Errorf("broken profile: %v", err)
	}
	os.Remove(profilePath)
	if a, err := ResolveAccount("", ""); err != nil || a.Subscription != "" {
		t.Errorf("no profile: %+v, %v", a, err)
	}
}

func TestCloudNamed(t *testing.T) {
	c, err := CloudNamed("azurechinacloud")
	if err != nil || c.ActiveDirectoryAuthorityHost != "https://login.chinacloudapi.cn/" {
		t.Errorf("got %+v, %v", c.ActiveDirectoryAuthorityHost, err)
	}
	if _, err := CloudNamed("Mars"); err == nil {
		t.Error("unknown cloud accepted")
	}
	client, err := New(Options{Credential: EmulatorCredential, Cloud: Clouds["AzureUSGovernment"]})
	if err != nil || client.Endpoint() != "https://management.usgovcloudapi.net" {
		t.Errorf("US Government endpoint %q, %v", client.Endpoint(), err)
	}
	if _, err := New(Options{Credential: EmulatorCredential, Endpoint: "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "plain HTTP") {
		t.Errorf("plain HTTP without AllowHTTP: %v", err)
	}
}
