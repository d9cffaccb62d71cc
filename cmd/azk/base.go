package main

import (
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
)

// baseGraph resolves the manifests as they were before the change under
// review (--base GITREF|DIR), in the subscription of the run, and returns
// it with what a saved plan records of the base (see
// loader.EarlierRevision). Their Secrets' values are redacted like the
// input's: a rotated password is a secret too. The base is read as far as
// it goes, so that a change fixing broken manifests gets a plan: what does
// not read or resolve is a warning naming the base's file, and a resource
// of the base that head no longer declares and whose ARM ID did not
// resolve is counted, as its removal cannot be planned.
func baseGraph(g *globalOptions, in *inputFlags, base string, paths []string, head *graph.Graph) (*graph.Graph, string, diag.List, error) {
	revision, err := loader.EarlierRevision(base, append(append([]string(nil), paths...), in.kustomize...))
	if err != nil {
		return nil, "", nil, err
	}
	res, loaded, err := loader.LoadEarlier(revision, loader.Options{Paths: paths, Kustomize: in.kustomize, Namespace: g.namespace, AllowRemote: in.allowRemote})
	if err != nil {
		return nil, "", nil, err
	}
	g.secrets.Add(secretValues(res.Secrets)...)
	gr, built := graph.Build(res, graph.Options{Subscription: g.subscriptionID(), DefaultReconcilePolicy: in.defaultPolicy})
	var diags diag.List
	for _, d := range append(loaded, built...) {
		if d.Severity == diag.SeverityError {
			diags.Add(diag.Warningf(d.Source, d.Resource, d.Field, "in the base (--base %s): %s", base, d.Message))
		}
	}
	resolved := map[*loader.Object]bool{}
	for _, n := range gr.Nodes {
		resolved[n.Object] = n.ID != "" || n.Pending != "" || !n.Kind.IsARM()
	}
	unresolved := 0
	for _, o := range res.Resources {
		if !resolved[o] && head.Declares(o.Kind, o.Namespace, o.Name) == nil {
			unresolved++
		}
	}
	if unresolved > 0 {
		diags.Add(diag.Warningf(diag.Source{}, "", "", "--base %s: %d of the base's resources that the manifests no longer declare have no ARM ID azk could resolve: their removal is not planned", base, unresolved))
	}
	return gr, revision, diags, nil
}
