package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/suggest"
)

// selectFlags choose part of the inputs to act on: Terraform's -target and
// kubectl's label selector.
type selectFlags struct {
	targets  []string
	selector string
}

func (f *selectFlags) register(cmd *cobra.Command, what string) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.targets, "target", nil, "act only on this resource and "+what+" (ADDRESS: group/Kind/namespace/name, Kind/namespace/name or Kind/name; repeatable; Terraform's -target)")
	fl.StringVarP(&f.selector, "selector", "l", "", "act only on the resources whose labels match and "+what+" (kubectl's label selector: app=web,tier!=db,env in (dev,test))")
	_ = cmd.RegisterFlagCompletionFunc("target", completeAddresses)
}

// active reports whether part of the inputs was chosen.
func (f *selectFlags) active() bool { return len(f.targets) > 0 || f.selector != "" }

// apply restricts gr to the chosen resources and what dir adds to them, with
// a warning that the rest was not considered. A target that names nothing,
// or a selector that matches nothing or does not parse, is an error.
func (f *selectFlags) apply(gr *graph.Graph, dir graph.Direction) (*graph.Graph, diag.List) {
	var diags diag.List
	if !f.active() {
		return gr, nil
	}
	if f.selector != "" {
		if _, err := yaml.NewMapRNode(nil).MatchesLabelSelector(f.selector); err != nil {
			diags.Add(diag.Errorf(diag.Source{}, "", "", "--selector %q: %v", f.selector, err))
			return gr, diags
		}
	}
	chosen := map[*graph.Node]bool{}
	for _, pattern := range f.targets {
		found := false
		for _, n := range gr.Nodes {
			if graph.MatchAddress(n.Address(), pattern) {
				chosen[n], found = true, true
			}
		}
		if !found {
			diags.Add(diag.Errorf(diag.Source{}, "", "", "--target %s: no resource of the inputs has that address (group/Kind/namespace/name, Kind/namespace/name or Kind/name)%s", pattern, nearestAddress(gr, pattern)))
		}
	}
	if f.selector != "" {
		found := false
		for _, n := range gr.Nodes {
			if ok, _ := n.Object.Node.MatchesLabelSelector(f.selector); ok {
				chosen[n], found = true, true
			}
		}
		if !found {
			diags.Add(diag.Errorf(diag.Source{}, "", "", "--selector %q: no resource of the inputs has matching labels", f.selector))
		}
	}
	if diags.HasErrors() {
		return gr, diags
	}
	var picked []*graph.Node
	for _, n := range gr.Nodes {
		if chosen[n] {
			picked = append(picked, n)
		}
	}
	sub := gr.Select(picked, dir)
	added := "what they depend on"
	if dir == graph.WithDependents {
		added = "what depends on them"
	}
	diags.Add(diag.Warningf(diag.Source{}, "", "", "acting on part of the inputs: %d of %d resources (%d chosen, and %s); the other %d were not considered, and a full plan may still show changes to them",
		len(sub.Nodes), len(gr.Nodes), len(picked), added, len(sub.Outside)))
	return sub, diags
}

// completeAddresses offers the addresses of the resources in the inputs
// named on the command line before the cursor (read offline, errors
// ignored), or, when none is named yet (azk plan --target <TAB> DIR: shells
// pass only the words before the cursor), in the current folder, as
// Terraform reads its configuration there. Each resource is offered as the
// shortest address that names it alone and begins with the word typed so
// far: Kind/name as users type them, Kind/namespace/name, or the whole
// group/Kind/namespace/name.
func completeAddresses(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	paths := append([]string(nil), args...)
	if v, err := cmd.Flags().GetStringArray("filename"); err == nil {
		paths = append(paths, v...)
	}
	kustomize, _ := cmd.Flags().GetStringArray("kustomize")
	if len(paths) == 0 && len(kustomize) == 0 {
		paths = []string{"."}
	}
	namespace, _ := cmd.Flags().GetString("namespace")
	res, _ := loader.Load(loader.Options{Paths: uniqueInputs(paths), Kustomize: kustomize, Namespace: namespace})
	forms := make([][3]string, len(res.Resources))
	count := map[string]int{}
	for i, o := range res.Resources {
		forms[i] = [3]string{o.Kind + "/" + o.Name, o.Kind + "/" + o.Namespace + "/" + o.Name, o.Address()}
		for _, f := range forms[i] {
			count[strings.ToLower(f)]++
		}
	}
	var out []string
	offered := map[string]bool{}
	for _, fs := range forms {
		shortest := max(0, slices.IndexFunc(fs[:], func(f string) bool { return count[strings.ToLower(f)] == 1 }))
		for _, f := range fs[shortest:] {
			if strings.HasPrefix(f, toComplete) {
				if !offered[f] {
					offered[f] = true
					out = append(out, f)
				}
				break
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// nearestAddress suggests the address of the inputs closest to a target
// that names none, written as the target is (Kind/name, ...), or "".
func nearestAddress(gr *graph.Graph, pattern string) string {
	var names []string
	for _, n := range gr.Nodes {
		group, kind, namespace, name := n.Object.Group(), n.Object.Kind, n.Object.Namespace, n.Object.Name
		switch strings.Count(pattern, "/") {
		case 1:
			names = append(names, kind+"/"+name)
		case 2:
			names = append(names, kind+"/"+namespace+"/"+name)
		case 3:
			names = append(names, group+"/"+kind+"/"+namespace+"/"+name)
		}
	}
	if s := suggest.Nearest(pattern, names); s != "" {
		return fmt.Sprintf("; did you mean %s?", s)
	}
	return ""
}
