package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
)

// runAzure parses args as a command with azureFlags would and calls use with its client.
func runAzure(t *testing.T, args []string, use func(context.Context, *azureFlags, *globalOptions) error) (string, error) {
	t.Helper()
	var stderr bytes.Buffer
	g := &globalOptions{stdout: &bytes.Buffer{}, stderr: &stderr}
	var f azureFlags
	cmd := &cobra.Command{Use: "test", SilenceUsage: true, SilenceErrors: true, RunE: func(cmd *cobra.Command, _ []string) error {
		return use(cmd.Context(), &f, g)
	}}
	cmd.Flags().StringVar(&g.subscription, "subscription", "", "")
	f.register(cmd)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return stderr.String(), err
}

const rgPath = "/subscriptions/" + emulatorSubscription + "/resourceGroups/quick"

func TestEmulatorFlagStartsAndStopsAnEmulator(t *testing.T) {
	t.Chdir(t.TempDir())
	var endpoint string
	log, err := runAzure(t, []string{"--emulator", "--debug"}, func(ctx context.Context, f *azureFlags, g *globalOptions) error {
		c, release, err := f.client(ctx, g)
		if err != nil {
			return err
		}
		defer release()
		endpoint = c.Endpoint()
		op, err := c.Put(ctx, rgPath, "2021-04-01", map[string]any{"location": "westus2"})
		if err != nil {
			return err
		}
		_, err = op.Wait(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(endpoint, "https://127.0.0.1:") {
		t.Errorf("endpoint %s", endpoint)
	}
	if !strings.Contains(log, "PUT "+endpoint+rgPath) || strings.Contains(log, "azk-emulator") {
		t.Errorf("--debug log is wrong:\n%s", log)
	}
	if !strings.Contains(log, "azk run ID (x-ms-correlation-request-id): "+arm.RunID()) || !strings.Contains(log, "X-Ms-Correlation-Request-Id: "+arm.RunID()) {
		t.Errorf("--debug log names no run ID, or the requests do not carry it:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(".azk", "emulator")); err != nil {
		t.Fatalf("no state in .azk/emulator: %v", err)
	}
	// The emulator stopped with the command and kept the resource group.
	if _, err := (&emulator.AdminClient{BaseURL: endpoint}).Faults(context.Background()); err == nil {
		t.Error("the emulator still answers after the command ended")
	}
	_, err = runAzure(t, []string{"--emulator"}, func(ctx context.Context, f *azureFlags, g *globalOptions) error {
		c, release, err := f.client(ctx, g)
		if err != nil {
			return err
		}
		defer release()
		_, err = c.Get(ctx, rgPath, "2021-04-01")
		return err
	})
	if err != nil {
		t.Errorf("second run does not see the first run's resource group: %v", err)
	}
}

func TestEndpointFlagPinsTheEmulatorCertificate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", true)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	get := func(ctx context.Context, f *azureFlags, g *globalOptions) error {
		c, release, err := f.client(ctx, g)
		if err != nil {
			return err
		}
		defer release()
		_, err = c.List(ctx, "/subscriptions/"+emulatorSubscription+"/resourceGroups", "2021-04-01")
		return err
	}
	t.Setenv("AZK_ENDPOINT_CERT_SHA256", run.Fingerprint)
	if _, err := runAzure(t, []string{"--endpoint", run.URL}, get); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZK_ENDPOINT_CERT_SHA256", strings.Repeat("ab", 32))
	_, err = runAzure(t, []string{"--endpoint", run.URL, "--retry-max-attempts", "1"}, get)
	if err == nil || !strings.Contains(err.Error(), "not the pinned abab") {
		t.Errorf("wrong fingerprint: %v", err)
	}
	if _, err := runAzure(t, []string{"--endpoint", "http://127.0.0.1:1"}, get); err == nil || !strings.Contains(err.Error(), "plain HTTP") {
		t.Errorf("plain HTTP without --insecure-http: %v", err)
	}
}

func TestNoSubscriptionIsOneMessage(t *testing.T) {
	t.Setenv("AZURE_SUBSCRIPTION_ID", "")
	os.Unsetenv("AZURE_SUBSCRIPTION_ID")
	t.Setenv("AZURE_CONFIG_DIR", t.TempDir())
	_, err := runAzure(t, nil, func(ctx context.Context, f *azureFlags, g *globalOptions) error {
		_, _, err := f.client(ctx, g)
		return err
	})
	if err == nil || !strings.HasPrefix(err.Error(), "no Azure subscription: pass --subscription") {
		t.Errorf("got %v", err)
	}
	_, err = runAzure(t, []string{"--cloud", "Mars", "--subscription", "s"}, func(ctx context.Context, f *azureFlags, g *globalOptions) error {
		_, _, err := f.client(ctx, g)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), `unknown cloud "Mars"`) {
		t.Errorf("got %v", err)
	}
}
