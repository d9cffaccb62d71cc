package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
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

// declaredElsewhere warns, for each resource p deletes with a request of
// its own, when the repository holding the inputs declares its ARM ID in
// a manifest outside them: it moved to another folder, which still
// manages it. The repository is read only when p deletes something.
func declaredElsewhere(g *globalOptions, in *inputFlags, paths []string, head *graph.Graph, p *planner.Plan) diag.List {
	var deleted []*planner.Resource
	for _, r := range p.Resources {
		if r.Action == planner.ActionDelete && r.CascadedBy == "" && r.ARMID != "" {
			deleted = append(deleted, r)
		}
	}
	if len(deleted) == 0 {
		return nil
	}
	inputs := append(append([]string(nil), paths...), in.kustomize...)
	root, files, err := loader.Elsewhere(inputs)
	if err != nil || len(files) == 0 {
		return nil
	}
	res, _ := loader.Load(loader.Options{Paths: files, Namespace: g.namespace})
	outside := map[*loader.Object]bool{}
	for _, o := range res.Resources {
		outside[o] = true
	}
	// The inputs' resources resolve the owners those files refer to.
	for _, n := range head.Nodes {
		res.Resources = append(res.Resources, n.Object)
	}
	gr, _ := graph.Build(res, graph.Options{Subscription: g.subscriptionID(), DefaultReconcilePolicy: in.defaultPolicy})
	declared := map[string]diag.Source{}
	for _, n := range gr.Nodes {
		if _, seen := declared[strings.ToLower(n.ID)]; n.ID != "" && outside[n.Object] && !seen {
			src := n.Object.Source
			if rel, err := filepath.Rel(root, src.File); err == nil {
				src.File = filepath.ToSlash(rel)
			}
			declared[strings.ToLower(n.ID)] = src
		}
	}
	var diags diag.List
	for _, r := range deleted {
		src, ok := declared[strings.ToLower(r.ARMID)]
		if !ok {
			continue
		}
		folder := filepath.ToSlash(filepath.Dir(filepath.FromSlash(src.File)))
		r.Notes = append(r.Notes, fmt.Sprintf("%s, outside the inputs, still declares it: deleting it removes what %s still manages; plan both folders together, or keep it", src, folder))
		diags.Add(diag.Warningf(src, r.Address, "", "the plan deletes %s, which this manifest outside the inputs still declares: applying would remove what %s still manages (moved there?); plan both folders together, or keep it in the inputs", r.ARMID, folder))
	}
	return diags
}
