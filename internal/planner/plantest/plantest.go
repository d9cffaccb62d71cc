// Package plantest holds what the tests of the planner, its views and its
// plan file share: an emulator to plan against, the scenario it is seeded
// with, and plans made of it. Only tests import it.
package plantest

import (
	"context"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// Subscription is the subscription the scenarios are planned in.
const Subscription = "00000000-0000-0000-0000-000000000000"

// RGAdopt is the resource group Seed fills.
const RGAdopt = "/subscriptions/" + Subscription + "/resourceGroups/rg-adopt"

// Azure is an emulator over real HTTP and a client of it.
type Azure struct {
	Run    *emulator.Running
	Client *arm.Client
}

// StartAzure starts an emulator with faults for the length of the test.
func StartAzure(t testing.TB, faults emulator.Faults) *Azure {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	run, err := emulator.Start(ctx, emulator.Options{Faults: faults}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Close() })
	client, err := arm.New(arm.Options{
		Credential: arm.EmulatorCredential, Subscription: Subscription, Endpoint: run.URL, AllowHTTP: true,
		Retry: arm.RetryOptions{MaxAttempts: 1}, PollFrequency: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Azure{Run: run, Client: client}
}

// Put writes body at id and waits for it to be written.
func (a *Azure) Put(t testing.TB, id, apiVersion string, body map[string]any) {
	t.Helper()
	ctx := testkit.Context(t)
	op, err := a.Client.Put(ctx, id, apiVersion, body)
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("seeding %s: %v", id, err)
	}
}

// Seed creates the Azure state testdata/scenario.yaml plans against.
func (a *Azure) Seed(t *testing.T) {
	a.Put(t, RGAdopt, "2020-06-01", map[string]any{"location": "westus2", "tags": map[string]any{"env": "old"}})
	net := RGAdopt + "/providers/Microsoft.Network"
	// Written the way ARM answers: display-name location, upper-case resource group in IDs.
	a.Put(t, net+"/virtualNetworks/vnet-detach", "2020-11-01", map[string]any{"location": "West US 2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	a.Put(t, net+"/networkSecurityGroups/nsg-readonly", "2020-11-01", map[string]any{"location": "eastus"})
	a.Put(t, RGAdopt+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-nochange", "2023-01-31",
		map[string]any{"location": "WestUS2", "tags": map[string]any{"team": "platform"}})
	a.Put(t, net+"/virtualNetworks/vnet-update", "2020-11-01", map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.1.0.0/16"}}}})
	a.Put(t, RGAdopt+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-moved", "2023-01-31", map[string]any{"location": "eastus"})
	a.Put(t, RGAdopt+"/providers/Microsoft.Storage/storageAccounts/strayaccount", "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2"})
}

// LoadScenario loads file and builds its graph in Subscription.
func LoadScenario(t testing.TB, file string) *graph.Graph {
	t.Helper()
	res, diags := loader.Load(loader.Options{Paths: []string{file}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	g, diags := graph.Build(res, graph.Options{Subscription: Subscription})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return g
}

// EnvWith looks variables up in vars alone.
func EnvWith(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// MySQLPassword is the secret the scenario reads from its environment.
const MySQLPassword = "hunter2-never-printed"

// MakePlan plans g, a graph of testdata/scenario.yaml, against az.
func MakePlan(t *testing.T, az *Azure, g *graph.Graph, drift bool) *planner.Plan {
	t.Helper()
	p, diags := planner.Make(context.Background(), g, planner.Options{
		Reader:    az.Client,
		Inputs:    planner.Inputs{Paths: []string{"testdata/scenario.yaml"}, Namespace: "default"},
		LookupEnv: EnvWith(map[string]string{"AZK_SECRET_MYSQL_PW_PASSWORD": MySQLPassword}),
		Drift:     drift,
	})
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	return p
}
