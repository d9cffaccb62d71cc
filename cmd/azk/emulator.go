package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/emulator"
)

func init() { subcommands = append(subcommands, newEmulatorCommand) }

func newEmulatorCommand(g *globalOptions) *cobra.Command {
	var (
		addr, stateDir  string
		insecureHTTP    bool
		opts            emulator.Options
		lro, fail, drft []string
		conflicts       []string
		readLimit       string
		writeLimit      string
		deleteLimit     string
		armLimits       bool
		providerLimits  bool
	)
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Serve a local emulator of the Azure Resource Manager API",
		Long: `azk emulator serves an in-process, persistent emulator of the Azure Resource
Manager REST API: resource CRUD on ARM paths, long-running operations, cascade
delete, ETags, built-in role definitions, key vault soft delete, and faults on
demand. A Bearer token is required: tokens its own token service issued
(client credentials at /{tenant}/oauth2/v2.0/token, any client ID and secret;
a managed identity at /metadata/identity/oauth2/token) are verified, any other
token is accepted as the default principal. Its cloud metadata
(/metadata/endpoints) lets the Azure CLI, Terraform and Pulumi use it: it
prints the settings for each.

It writes its certificate as a PEM file beside its state and prints the path.
Faults can also be changed while it runs through the admin API:
GET/PUT /_emulator/faults and POST /_emulator/drift, each with the admin token
it prints ('Authorization: Bearer TOKEN') and 'Content-Type: application/json'.
One emulator at a time may use a state folder.`,
		Example: `  azk emulator --insecure-http --addr 127.0.0.1:8080
  azk emulator --lro 'Microsoft.Network/*=2s' --lro 'Microsoft.Resources/resourceGroups=0,5s'
  azk emulator --seed 42 --transient-rate 0.1 --write-limit 20/1
  azk emulator --arm-limits --recorded-timing --time-compression 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.StateDir = stateDir
			// On the command line 0 keeps nothing; in Options it means Azure's default.
			for _, d := range []*time.Duration{&opts.ChangesRetention, &opts.ActivityRetention} {
				if *d <= 0 {
					*d = -1
				}
			}
			var err error
			if opts.LRO, err = parseLRORules(lro); err != nil {
				return err
			}
			if opts.Faults.Failures, err = parseFailures(fail); err != nil {
				return err
			}
			if opts.Faults.Drifts, err = parseDrifts(drft); err != nil {
				return err
			}
			opts.Faults.ConflictTypes = conflicts
			if opts.Faults.ReadLimit, err = parseRateLimit("--read-limit", readLimit); err != nil {
				return err
			}
			if opts.Faults.WriteLimit, err = parseRateLimit("--write-limit", writeLimit); err != nil {
				return err
			}
			if opts.Faults.DeleteLimit, err = parseRateLimit("--delete-limit", deleteLimit); err != nil {
				return err
			}
			if armLimits {
				opts.Faults = opts.Faults.WithARMLimits(opts.TimeCompression)
			}
			if providerLimits {
				opts.Faults = opts.Faults.WithProviderLimits(opts.TimeCompression)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			run, err := emulator.Start(ctx, opts, addr, !insecureHTTP)
			if err != nil {
				return err
			}
			out := g.stdout
			for _, w := range run.Server.Warnings() {
				fmt.Fprintf(g.stderr, "Warning: %s\n", w)
			}
			fmt.Fprintf(out, "azk emulator listening on %s (state: %s)\n", run.URL, stateLabel(stateDir))
			certFile := ""
			if run.Fingerprint != "" {
				if certFile, err = writeCertPEM(stateDir, run.CertPEM); err != nil {
					run.Close()
					return err
				}
				fmt.Fprintf(out, "certificate SHA-256 fingerprint: %s\ncertificate (PEM): %s\n", run.Fingerprint, certFile)
			}
			fmt.Fprintf(out, "admin API token (/_emulator/, header 'Authorization: Bearer TOKEN'): %s\n", run.Server.AdminToken())
			fmt.Fprintf(out, "\nclients need:\n  export AZK_ENDPOINT=%s\n  export AZURE_SUBSCRIPTION_ID=00000000-0000-0000-0000-000000000000\n", run.URL)
			if run.Fingerprint != "" {
				fmt.Fprintf(out, "  export AZK_ENDPOINT_CERT_SHA256=%s\n", strings.ReplaceAll(run.Fingerprint, ":", ""))
				fmt.Fprintf(out, "  export SSL_CERT_FILE=%s   # or trust this file in your client\n", certFile)
				settings := emulator.ClientSettings{URL: run.URL, CertFile: certFile}
				cloudFile := filepath.Join(filepath.Dir(certFile), "azure-cli-cloud.json")
				if err := os.WriteFile(cloudFile, settings.AzureCLICloud(), 0o644); err != nil {
					run.Close()
					return fmt.Errorf("writing the Azure CLI's cloud configuration: %w", err)
				}
				printToolSettings(out, settings, cloudFile)
			}
			return run.Wait()
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8443", "address to listen on (loopback only unless you say otherwise)")
	f.StringVar(&stateDir, "state", ".azk/emulator", "directory keeping the state across restarts (empty: in memory)")
	f.BoolVar(&insecureHTTP, "insecure-http", false, "serve plain HTTP instead of HTTPS with a self-signed certificate")
	f.Int64Var(&opts.Seed, "seed", 0, "seed for every random decision, so that faults repeat")
	f.IntVar(&opts.PageSize, "page-size", 100, "items per list page before a nextLink")
	f.StringArrayVar(&lro, "lro", nil, "make a resource type long-running: GLOB=WRITE[,DELETE] durations (repeatable)")
	f.DurationVar(&opts.Faults.Latency, "latency", 0, "delay every request")
	f.Float64Var(&opts.Faults.ThrottleRate, "throttle-rate", 0, "share of requests answered 429")
	f.StringVar(&readLimit, "read-limit", "", "per-subscription read token bucket BURST/PER_SECOND, e.g. 250/25")
	f.StringVar(&writeLimit, "write-limit", "", "per-subscription write token bucket BURST/PER_SECOND, e.g. 200/10")
	f.StringVar(&deleteLimit, "delete-limit", "", "per-subscription delete token bucket BURST/PER_SECOND, e.g. 200/10")
	f.BoolVar(&armLimits, "arm-limits", false, "throttle with ARM's default buckets (reads 250/25, writes and deletes 200/10, refilled --time-compression times faster)")
	f.BoolVar(&providerLimits, "provider-limits", false, "throttle as Compute and Storage document, besides ARM: their counters on every answer they cover (x-ms-ratelimit-remaining-resource), 429 when one is empty, refilled --time-compression times faster")
	f.BoolVar(&opts.RecordedTiming, "recorded-timing", false, "make operations last, and hint Retry-After, as the recordings show for each type")
	f.BoolVar(&opts.EnforceRBAC, "enforce-rbac", false, "refuse writes the caller's role assignments do not allow (403 AuthorizationFailed), as ARM does; a token without an oid claim is the default principal, Owner of a subscription until a role assignment there names it")
	f.Float64Var(&opts.TimeCompression, "time-compression", 1, "run time this many times faster: operation durations, Retry-After hints and --arm-limits refills")
	f.Float64Var(&opts.Faults.TransientRate, "transient-rate", 0, "share of requests answered 500 or 503")
	f.StringArrayVar(&conflicts, "conflict-type", nil, "child type GLOB answering 409 AnotherOperationInProgress while a sibling's operation runs (repeatable)")
	f.DurationVar(&opts.Faults.ReplicationLag, "replication-lag", 0, "window after a resource group is created during which PUTs into it get 404")
	f.Float64Var(&opts.Faults.ReplicationLagRate, "replication-lag-rate", 0, "share of PUTs in the lag window that get 404 (0: all)")
	f.StringArrayVar(&fail, "fail", nil, "make writes of a type fail: GLOB=AFTER[,CODE] (repeatable)")
	f.DurationVar(&opts.ChangesRetention, "changes-retention", emulator.DefaultChangesRetention, "how long Resource Graph's change history (resourcechanges) keeps a write, 0 none (also POST /_emulator/history)")
	f.DurationVar(&opts.ActivityRetention, "activity-retention", emulator.DefaultActivityRetention, "how long the Activity Log keeps a write, 0 none (also POST /_emulator/history)")
	f.StringArrayVar(&drft, "drift", nil, "change resources of a type after each write: GLOB=AFTER,JSON_MERGE_PATCH (repeatable)")
	return cmd
}

// exampleClientID is the client ID the printed login lines use: the token
// service takes any client ID and secret.
const exampleClientID = "a2c0e5d4-0000-4000-8000-00000000a2c0"

// printToolSettings prints how the Azure CLI, Terraform (azapi and
// azurerm) and Pulumi reach the emulator with settings c; cloudFile holds
// the CLI's cloud configuration (c.AzureCLICloud).
func printToolSettings(out io.Writer, c emulator.ClientSettings, cloudFile string) {
	fmt.Fprintf(out, "\nAzure CLI (state in AZURE_CONFIG_DIR; the cloud file names the emulator's Resource Manager, sign-in and Microsoft Graph):\n")
	fmt.Fprintf(out, "  export REQUESTS_CA_BUNDLE=%s\n", c.CertFile)
	fmt.Fprintf(out, "  az cloud register -n azk --cloud-config @%s\n", cloudFile)
	fmt.Fprintf(out, "  az cloud set -n azk\n")
	fmt.Fprintf(out, "  az login --service-principal --username %s --password any-secret --tenant %s\n", exampleClientID, emulator.Tenant)
	fmt.Fprintf(out, "Terraform azapi (signs in as the emulator's managed identity; leave ARM_CLIENT_ID unset):\n")
	fmt.Fprintf(out, "  export %s\n", strings.Join(c.AzapiEnv(), " "))
	fmt.Fprintf(out, "  # or in the provider block: endpoint = [{ resource_manager_endpoint = %q, active_directory_authority_host = %q }], use_msi = true, use_cli = false\n",
		c.URL+"/", c.URL+"/adfs/")
	fmt.Fprintf(out, "Terraform azurerm:\n")
	fmt.Fprintf(out, "  export %s\n", strings.Join(c.AzurermEnv(exampleClientID), " "))
	fmt.Fprintf(out, "  # or in the provider block: metadata_host = %q\n", c.Host())
	fmt.Fprintf(out, "Pulumi (azure-native):\n")
	fmt.Fprintf(out, "  pulumi config set azure-native:metadataHost %s\n  pulumi config set azure-native:environment %s\n", c.Host(), emulator.CloudName)
	fmt.Fprintf(out, "  pulumi config set azure-native:tenantId %s\n  pulumi config set azure-native:clientId %s\n  pulumi config set --secret azure-native:clientSecret any-secret\n  pulumi config set azure-native:subscriptionId %s\n",
		emulator.Tenant, exampleClientID, emulator.DefaultSubscription)
}

// writeCertPEM writes the emulator's certificate beside its state (or, for an
// in-memory emulator, into a fresh temporary folder) so that any client can
// trust it, and returns the file's path.
func writeCertPEM(stateDir string, certPEM []byte) (string, error) {
	dir := stateDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "azk-emulator-"); err != nil {
			return "", err
		}
	}
	path, err := filepath.Abs(filepath.Join(dir, "emulator-cert.pem"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, certPEM, 0o644); err != nil {
		return "", fmt.Errorf("writing the emulator certificate: %w", err)
	}
	return path, nil
}

func stateLabel(dir string) string {
	if dir == "" {
		return "in memory"
	}
	return dir
}

// splitRule splits "GLOB=REST".
func splitRule(flag, s string) (string, string, error) {
	glob, rest, ok := strings.Cut(s, "=")
	if !ok || glob == "" || rest == "" {
		return "", "", fmt.Errorf("%s %q: want GLOB=...", flag, s)
	}
	return glob, rest, nil
}

func parseLRORules(specs []string) ([]emulator.LRORule, error) {
	var out []emulator.LRORule
	for _, s := range specs {
		glob, rest, err := splitRule("--lro", s)
		if err != nil {
			return nil, err
		}
		w, d, hasDelete := strings.Cut(rest, ",")
		rule := emulator.LRORule{Type: glob}
		if rule.Write, err = time.ParseDuration(w); err != nil {
			return nil, fmt.Errorf("--lro %q: write duration: %w", s, err)
		}
		rule.Delete = rule.Write
		if hasDelete {
			if rule.Delete, err = time.ParseDuration(d); err != nil {
				return nil, fmt.Errorf("--lro %q: delete duration: %w", s, err)
			}
		}
		out = append(out, rule)
	}
	return out, nil
}

func parseFailures(specs []string) ([]emulator.FailureRule, error) {
	var out []emulator.FailureRule
	for _, s := range specs {
		glob, rest, err := splitRule("--fail", s)
		if err != nil {
			return nil, err
		}
		after, code, _ := strings.Cut(rest, ",")
		r := emulator.FailureRule{Type: glob, Code: code}
		if r.After, err = time.ParseDuration(after); err != nil {
			return nil, fmt.Errorf("--fail %q: %w", s, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseDrifts(specs []string) ([]emulator.DriftRule, error) {
	var out []emulator.DriftRule
	for _, s := range specs {
		glob, rest, err := splitRule("--drift", s)
		if err != nil {
			return nil, err
		}
		after, patch, ok := strings.Cut(rest, ",")
		if !ok || !json.Valid([]byte(patch)) {
			return nil, fmt.Errorf("--drift %q: want GLOB=AFTER,JSON_MERGE_PATCH", s)
		}
		r := emulator.DriftRule{Type: glob, Patch: json.RawMessage(patch)}
		if r.After, err = time.ParseDuration(after); err != nil {
			return nil, fmt.Errorf("--drift %q: %w", s, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRateLimit(flag, s string) (emulator.RateLimit, error) {
	if s == "" {
		return emulator.RateLimit{}, nil
	}
	var l emulator.RateLimit
	if _, err := fmt.Sscanf(s, "%d/%g", &l.Burst, &l.PerSecond); err != nil || l.Burst <= 0 || l.PerSecond < 0 {
		return l, fmt.Errorf("%s %q: want BURST/PER_SECOND, e.g. 250/25", flag, s)
	}
	return l, nil
}
