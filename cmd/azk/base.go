package main

import (
	"fmt"

	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// baseGraph resolves the manifests as they were before the change under
// review (--base GITREF|DIR), in the subscription of the run, and returns
// it with what a saved plan records of the base (see
// loader.EarlierRevision). Their Secrets' values are redacted like the
// input's: a rotated password is a secret too.
func baseGraph(g *globalOptions, in *inputFlags, base string, paths []string) (*graph.Graph, string, error) {
	revision, err := loader.EarlierRevision(base, append(append([]string(nil), paths...), in.kustomize...))
	if err != nil {
		return nil, "", err
	}
	res, err := loader.LoadEarlier(revision, loader.Options{Paths: paths, Kustomize: in.kustomize, Namespace: g.namespace, AllowRemote: in.allowRemote})
	if err != nil {
		return nil, "", err
	}
	g.secrets.Add(secretValues(res.Secrets)...)
	gr, diags := graph.Build(res, graph.Options{Subscription: g.subscriptionID(), DefaultReconcilePolicy: in.defaultPolicy})
	if err := diags.Err(); err != nil {
		return nil, "", fmt.Errorf("--base %s: the earlier manifests do not resolve: %w", base, err)
	}
	return gr, revision, nil
}
