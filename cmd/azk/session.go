package main

import (
	"context"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// azureSession is what plan, apply and destroy share: a client for Azure and
// the inputs resolved in its subscription.
type azureSession struct {
	client *arm.Client
	graph  *graph.Graph
	// release stops what the client needs (an in-process emulator, debug logging).
	release func()
	// endpoint is where the client goes, recorded in the plans it makes.
	endpoint planner.Endpoint
}

// openSession connects to Azure (or the emulator), resolves the inputs, and
// routes each resource that names its own credential
// (serviceoperator.azure.com/credential-from) through a client for that identity.
// When resolving finds errors it prints every diagnostic and returns failed();
// otherwise the caller prints the (warning) diagnostics it gets.
// With sel, it acts on the resources sel chooses and what dir adds to them.
func openSession(ctx context.Context, g *globalOptions, az *azureFlags, in *inputFlags, args []string, sel *selectFlags, dir graph.Direction) (*azureSession, diag.List, error) {
	client, release, err := az.client(ctx, g)
	if err != nil {
		return nil, nil, err
	}
	if g.subscriptionID() == "" {
		g.subscription = client.Subscription()
	}
	gr, diags := in.resolve(g, args)
	if !diags.HasErrors() {
		var more diag.List
		gr, more = sel.apply(gr, dir)
		diags = append(diags, more...)
	}
	if diags.HasErrors() {
		release()
		printDiagnostics(g.stderr, diags)
		return nil, nil, failed()
	}
	if err := client.RouteCredentials(gr); err != nil {
		release()
		return nil, diags, err
	}
	return &azureSession{client: client, graph: gr, release: release, endpoint: az.used(client.Subscription())}, diags, nil
}

// planInputs are what a plan records of the inputs it was made from.
func planInputs(g *globalOptions, in *inputFlags, args []string, sel *selectFlags) planner.Inputs {
	return planner.Inputs{Paths: args, Kustomize: in.kustomize, Namespace: g.namespace, Targets: sel.targets, Selector: sel.selector}
}
