package main

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/registry"
)

// emulatorSubscription is the subscription used against the emulator when none is given.
const emulatorSubscription = "00000000-0000-0000-0000-000000000000"

// emulatorStateDir is where --emulator keeps its state, relative to the working directory.
var emulatorStateDir = filepath.Join(".azk", "emulator")

// azureFlags are the flags of every command that talks to Azure.
type azureFlags struct {
	auth           string
	tenant         string
	cloud          string
	endpoint       string
	insecureHTTP   bool
	emulator       bool
	parallelism    int
	rateLimit      string
	maxAttempts    int
	maxDelay       time.Duration
	throttledTries int
	throttledFor   time.Duration
	debug          bool

	// emulatorState and pin are a saved plan's emulator state folder and
	// pinned certificate (see useSavedEndpoint); account is the subscription
	// and tenant client() resolved.
	emulatorState, pin string
	account            arm.Account
}

func (f *azureFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.auth, "auth", "", "credential to use: env, cli, msi, workload or device (default: the first that works of environment, workload identity, managed identity, Azure CLI, Azure Developer CLI)")
	fl.StringVar(&f.tenant, "tenant", "", "Microsoft Entra tenant ID (default $AZURE_TENANT_ID, else the Azure CLI's for the subscription)")
	fl.StringVar(&f.cloud, "cloud", "AzurePublic", "Azure cloud: AzurePublic, AzureChinaCloud or AzureUSGovernment")
	fl.StringVar(&f.endpoint, "endpoint", os.Getenv("AZK_ENDPOINT"), "use the azk emulator at this URL instead of Azure (default $AZK_ENDPOINT; its certificate is pinned by $AZK_ENDPOINT_CERT_SHA256)")
	fl.BoolVar(&f.insecureHTTP, "insecure-http", false, "allow a plain-HTTP --endpoint (tests only: the token travels unencrypted)")
	fl.BoolVar(&f.emulator, "emulator", false, "start the azk emulator in-process (state in "+emulatorStateDir+") and use it instead of Azure")
	fl.IntVar(&f.parallelism, "parallelism", arm.DefaultParallelism, "most operations (and reads, and separately writes) in flight at once; 0: no bound, requests are paced by ARM's rate limits")
	fl.StringVar(&f.rateLimit, "rate-limit", "", "ARM's token buckets for each subscription, if not its defaults (reads=250:25,writes=200:10,deletes=200:10), and resource providers' counters (e.g. Microsoft.Compute/PutVMSubscriptionMaximum=1500:8.33): KIND=BURST:PER_SECOND, comma-separated")
	fl.IntVar(&f.maxAttempts, "retry-max-attempts", 6, "tries of one request on throttling, server errors and transient ARM conflicts")
	fl.DurationVar(&f.maxDelay, "retry-max-delay", time.Minute, "longest wait between tries, including a server's Retry-After")
	fl.IntVar(&f.throttledTries, "throttle-max-tries", arm.DefaultThrottledTries, "tries of a read (or POST) ARM keeps answering 429 before the command fails naming the throttled requests")
	fl.DurationVar(&f.throttledFor, "throttle-max-wait", arm.DefaultThrottledFor, "longest a read (or POST) ARM keeps answering 429 is tried before the command fails; writes and deletes wait out any throttle")
	fl.BoolVar(&f.debug, "debug", false, "log every ARM request and response (tokens and bodies redacted) to standard error")
	cmd.MarkFlagsMutuallyExclusive("emulator", "endpoint")
	_ = cmd.RegisterFlagCompletionFunc("auth", completeValues("env", "cli", "msi", "workload", "device"))
	_ = cmd.RegisterFlagCompletionFunc("cloud", completeValues("AzurePublic", "AzureChinaCloud", "AzureUSGovernment"))
}

// client returns a client ready to use and a function that releases what it
// started (the in-process emulator, debug logging); call it when the command ends.
func (f *azureFlags) client(ctx context.Context, g *globalOptions) (*arm.Client, func(), error) {
	if f.parallelism < 0 {
		return nil, nil, fmt.Errorf("--parallelism %d: must be 0 (no bound) or more", f.parallelism)
	}
	limits, err := arm.ParseRateLimits(f.rateLimit)
	if err != nil {
		return nil, nil, fmt.Errorf("--rate-limit: %w", err)
	}
	if f.maxAttempts <= 0 {
		return nil, nil, fmt.Errorf("--retry-max-attempts %d: must be at least 1", f.maxAttempts)
	}
	if f.throttledTries <= 0 || f.throttledFor <= 0 {
		return nil, nil, fmt.Errorf("--throttle-max-tries %d, --throttle-max-wait %s: both must be positive", f.throttledTries, f.throttledFor)
	}
	cfg, err := arm.CloudNamed(f.cloud)
	if err != nil {
		return nil, nil, err
	}
	account, err := arm.ResolveAccount(g.subscription, f.tenant)
	if err != nil {
		return nil, nil, err
	}
	f.account = account
	opts := arm.Options{
		Subscription:      account.Subscription,
		Cloud:             cfg,
		Parallelism:       f.parallelism,
		RateLimits:        limits,
		Retry:             arm.RetryOptions{MaxAttempts: f.maxAttempts, MaxDelay: f.maxDelay, ThrottledTries: f.throttledTries, ThrottledFor: f.throttledFor},
		OperationDuration: registry.Default().OperationDuration,
		Redact:            g.secrets.String,
		Version:           versionString(),
	}
	var cleanups []func()
	release := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	if f.debug {
		arm.LogRequestsTo(g.stderr)
		// Every request carries the run ID: it finds this run's writes in Azure's records.
		fmt.Fprintf(g.stderr, "azk run ID (x-ms-correlation-request-id): %s\n", arm.RunID())
		cleanups = append(cleanups, func() { arm.LogRequestsTo(nil) })
	}
	switch {
	case f.emulator:
		run, err := emulator.Start(ctx, emulator.Options{StateDir: f.stateDir()}, "127.0.0.1:0", true)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("starting the emulator: %w", err)
		}
		cleanups = append(cleanups, func() { _ = run.Close() })
		for _, w := range run.Server.Warnings() {
			fmt.Fprintf(g.stderr, "Warning: emulator state: %s\n", w)
		}
		opts.Endpoint, opts.Transport, opts.Credential = run.URL, run.HTTPClient(), arm.EmulatorCredential
	case f.endpoint != "":
		transport, err := pinnedTransport(f.certPin())
		if err != nil {
			release()
			return nil, nil, err
		}
		opts.Endpoint, opts.Transport, opts.Credential, opts.AllowHTTP = f.endpoint, transport, arm.EmulatorCredential, f.insecureHTTP
	default:
		if account.Subscription == "" {
			release()
			return nil, nil, errors.New(`no Azure subscription: pass --subscription, set AZURE_SUBSCRIPTION_ID, or choose one with "az account set"`)
		}
		cred, err := arm.NewCredential(arm.CredentialOptions{Auth: arm.Auth(f.auth), Tenant: account.Tenant, Cloud: cfg, Prompt: g.stderr})
		if err != nil {
			release()
			return nil, nil, err
		}
		// Ask for a token now, so a missing credential is one message before any work.
		scope := cfg.Services[cloud.ResourceManager].Audience + "/.default"
		if _, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{scope}, TenantID: account.Tenant}); err != nil {
			release()
			return nil, nil, err
		}
		opts.Credential = cred
	}
	if opts.Subscription == "" {
		opts.Subscription = emulatorSubscription
	}
	c, err := arm.New(opts)
	if err != nil {
		release()
		return nil, nil, err
	}
	return c, release, nil
}

// pinnedTransport trusts exactly the certificate whose SHA-256 is fingerprint
// (hex, colons allowed), as printed by "azk emulator"; with no fingerprint it
// uses the system's roots.
func pinnedTransport(fingerprint string) (policy.Transporter, error) {
	if fingerprint == "" {
		return nil, nil
	}
	want, err := hex.DecodeString(strings.ReplaceAll(fingerprint, ":", ""))
	if err != nil || len(want) != sha256.Size {
		return nil, fmt.Errorf("AZK_ENDPOINT_CERT_SHA256 %q is not a SHA-256 fingerprint", fingerprint)
	}
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			// The emulator's certificate is self-signed: chain verification is
			// replaced by comparing the leaf with the pinned fingerprint.
			InsecureSkipVerify: true,
			VerifyPeerCertificate: func(rawCerts [][]byte, _ [][]*x509.Certificate) error {
				if len(rawCerts) == 0 {
					return errors.New("the endpoint sent no certificate")
				}
				if got := sha256.Sum256(rawCerts[0]); string(got[:]) != string(want) {
					return fmt.Errorf("the endpoint's certificate has SHA-256 %s, not the pinned %s", hex.EncodeToString(got[:]), hex.EncodeToString(want))
				}
				return nil
			},
		},
	}}, nil
}
