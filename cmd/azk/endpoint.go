package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/planner"
)

// The environment variables that choose an endpoint when no flag does.
const (
	envEndpoint     = "AZK_ENDPOINT"
	envEndpointCert = "AZK_ENDPOINT_CERT_SHA256"
	envSubscription = "AZURE_SUBSCRIPTION_ID"
	envTenant       = "AZURE_TENANT_ID"
)

// stateDir is the folder the in-process emulator keeps its state in.
func (f *azureFlags) stateDir() string {
	if f.emulatorState != "" {
		return f.emulatorState
	}
	return emulatorStateDir
}

// certPin is the SHA-256 the --endpoint's certificate is pinned to: a saved
// plan's, else $AZK_ENDPOINT_CERT_SHA256.
func (f *azureFlags) certPin() string {
	if f.pin != "" {
		return f.pin
	}
	return os.Getenv(envEndpointCert)
}

// used describes the endpoint client() connected to, in subscription.
func (f *azureFlags) used(subscription string) planner.Endpoint {
	switch {
	case f.emulator:
		return planner.Endpoint{Type: planner.EndpointEmulator, State: absolute(f.stateDir()), Subscription: subscription}
	case f.endpoint != "":
		return planner.Endpoint{Type: planner.EndpointURL, URL: f.endpoint, CertSHA256: normalPin(f.certPin()), Subscription: subscription}
	}
	return planner.Endpoint{Type: planner.EndpointAzure, Cloud: cloudName(f.cloud), Subscription: subscription, Tenant: f.account.Tenant}
}

// asked is the endpoint the command line names by flags, leaving empty what
// it does not name (the environment's choices are not asked for).
func (f *azureFlags) asked(cmd *cobra.Command, g *globalOptions) planner.Endpoint {
	var e planner.Endpoint
	changed := cmd.Flags().Changed
	switch {
	case changed("emulator") && f.emulator:
		e = planner.Endpoint{Type: planner.EndpointEmulator, State: absolute(f.stateDir())}
	case changed("endpoint") && f.endpoint != "":
		e = planner.Endpoint{Type: planner.EndpointURL, URL: f.endpoint}
	case changed("cloud"):
		e = planner.Endpoint{Type: planner.EndpointAzure, Cloud: cloudName(f.cloud)}
	}
	if changed("subscription") {
		e.Subscription = g.subscription
	}
	if changed("tenant") {
		e.Tenant = f.tenant
	}
	return e
}

// registerAllowOtherEndpoint adds the flag that lets apply use a saved plan
// against another endpoint than the one it was made against.
func registerAllowOtherEndpoint(cmd *cobra.Command, allow *bool) {
	cmd.Flags().BoolVar(allow, "allow-other-endpoint", false, "apply a saved plan against the endpoint the flags name, though the plan was made against another (Azure cloud, subscription, tenant, or emulator)")
}

// useSavedEndpoint points az at the endpoint the saved plan was made against,
// so that azk apply PLANFILE needs no flag to get there. Flags naming another
// endpoint are refused unless allowOther; the environment's choices
// (AZK_ENDPOINT, AZURE_SUBSCRIPTION_ID, ...) give way to the plan's, with a
// warning where they differ. A plan saved before endpoints were recorded
// changes nothing.
func useSavedEndpoint(cmd *cobra.Command, g *globalOptions, az *azureFlags, saved *planner.Plan, allowOther bool) error {
	rec := saved.Endpoint
	if rec == nil {
		return nil
	}
	asked := az.asked(cmd, g)
	if moved := rec.Mismatch(asked); len(moved) > 0 {
		if !allowOther {
			return fmt.Errorf("the saved plan was made against %s, and the flags name %s: nothing was applied. Apply the plan without those flags (it goes where it was made), or pass --allow-other-endpoint", rec, strings.Join(moved, "; "))
		}
		fmt.Fprintf(g.stderr, "Warning: applying a plan made against %s to %s (--allow-other-endpoint)\n", rec, strings.Join(moved, "; "))
	}
	restoreEndpoint(g, az, *rec, asked)
	return nil
}

// restoreEndpoint sets what asked leaves open to rec's, and warns of the
// environment variables that no longer decide.
func restoreEndpoint(g *globalOptions, az *azureFlags, rec, asked planner.Endpoint) {
	switch {
	case asked.Type != "" && asked.Type != rec.Type:
		// Another type of endpoint, allowed: nothing of rec's applies to it.
	case rec.Type == planner.EndpointEmulator && asked.Type == "":
		az.emulator, az.emulatorState, az.endpoint = true, rec.State, ""
	case rec.Type == planner.EndpointURL && (asked.URL == "" || asked.URL == rec.URL):
		az.endpoint, az.pin = rec.URL, rec.CertSHA256
		// A plain-HTTP URL was allowed with --insecure-http when the plan was made.
		az.insecureHTTP = az.insecureHTTP || strings.HasPrefix(rec.URL, "http://")
	case rec.Type == planner.EndpointAzure:
		if asked.Type == "" {
			az.cloud, az.endpoint = rec.Cloud, ""
		}
		if asked.Tenant == "" && rec.Tenant != "" {
			az.tenant = rec.Tenant
		}
	}
	if asked.Subscription == "" {
		g.subscription = rec.Subscription
	}
	overridden := map[string]bool{
		envEndpoint:     asked.Type == "" && (rec.Type != planner.EndpointURL || os.Getenv(envEndpoint) != rec.URL),
		envEndpointCert: az.pin != "" && normalPin(os.Getenv(envEndpointCert)) != az.pin,
		envSubscription: asked.Subscription == "" && !strings.EqualFold(os.Getenv(envSubscription), rec.Subscription),
		envTenant:       asked.Tenant == "" && rec.Tenant != "" && !strings.EqualFold(os.Getenv(envTenant), rec.Tenant),
	}
	for _, name := range []string{envEndpoint, envEndpointCert, envSubscription, envTenant} {
		if os.Getenv(name) != "" && overridden[name] {
			fmt.Fprintf(g.stderr, "Warning: %s is set but not used: the saved plan was made against %s, and applies there\n", name, rec)
		}
	}
}

// applyHint is the command (verb: apply, or destroy for a destroy plan)
// that carries out a plan saved to path.
func applyHint(verb, path string) string { return "azk " + verb + " " + shellQuote(path) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cloudName is the --cloud name as arm.Clouds spells it.
func cloudName(name string) string {
	for n := range arm.Clouds {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return name
}

// normalPin is a certificate fingerprint as lower-case hex without colons.
func normalPin(s string) string { return strings.ToLower(strings.ReplaceAll(s, ":", "")) }

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
