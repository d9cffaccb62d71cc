package loader

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadKustomizeOverlay(t *testing.T) {
	overlay := filepath.Join(fixtures, "kustomize", "overlay")
	base := filepath.Join(fixtures, "kustomize", "base")
	res, diags := Load(Options{Kustomize: []string{overlay}})
	check(t, "diagnostics", render(diags), nil)
	check(t, "resources", summarize(res.Resources), []string{
		"resources.azure.com/ResourceGroup/prod/prod-rg @ " + filepath.Join(base, "rg.yaml") + ":1",
		"network.azure.com/VirtualNetwork/prod/prod-vnet @ " + filepath.Join(base, "network.yaml") + ":2",
		"network.azure.com/VirtualNetworksSubnet/prod/prod-subnet @ " + filepath.Join(base, "network.yaml") + ":16",
	})
	// Generated objects name the kustomization file that configured them.
	check(t, "config maps", summarize(res.ConfigMaps), []string{
		"v1/ConfigMap/prod/prod-settings @ " + filepath.Join(overlay, "kustomization.yaml"),
	})
	for _, o := range append(res.Resources, res.ConfigMaps...) {
		if o.Kustomization != overlay {
			t.Errorf("%s: Kustomization = %q, want %q", o.Address(), o.Kustomization, overlay)
		}
		if _, ok := o.Node.GetAnnotations()[originAnnotation]; ok {
			t.Errorf("%s: the origin annotation azk asked for was not removed", o.Address())
		}
	}
	if rg := res.Resources[0]; rg.Node.Field("metadata").Value.Field("annotations") != nil {
		t.Errorf("rg: empty annotations left behind:\n%s", rg.Node.MustString())
	}
	vnet := res.Resources[1]
	if got := vnet.Node.GetAnnotations(); len(got) != 1 || got["team"] != "platform" {
		t.Errorf("vnet: annotations = %v, want the user's team: platform only", got)
	}

	// Lines come from the base file where the overlay left the field alone;
	// fields it changed or added fall back to the object's line.
	for _, tt := range []struct {
		path []string
		want int
	}{
		{[]string{"metadata", "annotations", "team"}, 7},
		{[]string{"spec", "owner", "name"}, 10},
		{[]string{"spec", "addressSpace", "addressPrefixes[0]"}, 14},
		{[]string{"spec", "location"}, 2},      // patched to northeurope
		{[]string{"metadata", "name"}, 2},      // prefixed
		{[]string{"metadata", "namespace"}, 2}, // added
	} {
		if got := FieldLine(vnet, tt.path...); got != tt.want {
			t.Errorf("vnet: FieldLine(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
	if got := vnet.Node.GetNamespace(); got != "prod" {
		t.Errorf("vnet namespace = %q, want prod", got)
	}
}

func TestLoadKustomizeKeepsRequestedOriginAnnotations(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"kustomization.yaml": "resources:\n- rg.yaml\nbuildMetadata: [originAnnotations]\n",
		"rg.yaml":            "# resource group\n" + rgDoc,
	})
	res, diags := Load(Options{Kustomize: []string{dir}})
	check(t, "diagnostics", render(diags), nil)
	check(t, "resources", summarize(res.Resources), []string{
		"resources.azure.com/ResourceGroup/default/rg @ " + filepath.Join(dir, "rg.yaml") + ":2",
	})
	if got := res.Resources[0].Node.GetAnnotations()[originAnnotation]; !strings.Contains(got, "path: rg.yaml") {
		t.Errorf("origin annotation = %q, want the one the user asked for", got)
	}
}

func TestLoadKustomizeErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"empty/README.md":                  "no kustomization here",
		"dup/kustomization.yaml":           "resources:\n- a.yaml\n- b.yaml\n",
		"dup/a.yaml":                       rgDoc,
		"dup/b.yaml":                       rgDoc + "  namespace: default\n",
		"merge/kustomization.yaml":         "resources:\n- rg.yaml\n",
		"merge/rg.yaml":                    rgDoc,
		"merge-missing/kustomization.yaml": "resources:\n- nowhere.yaml\n",
		"panics/kustomization.yaml":        "resources:\n- rg.yaml\npatchesJson6902:\n-\n",
		"panics/rg.yaml":                   rgDoc,
	})
	for _, tt := range []struct {
		name, dir, want string
	}{
		{"missing directory", "absent", "error: {dir}/absent: kustomize: no such file or directory"},
		{"no kustomization", "empty", "error: {dir}/empty: kustomize build: unable to find one of"},
		{"missing resource", "merge-missing", "error: {dir}/merge-missing: kustomize build: accumulating resources: accumulation err='accumulating resources from 'nowhere.yaml'"},
		{"kustomize panics", "panics", "error: {dir}/panics: kustomize build: kustomize failed on this kustomization (runtime error: invalid memory address or nil pointer dereference)"},
		{"kustomize rejects duplicates itself", "dup", "error: {dir}/dup: kustomize build: accumulating resources: accumulation err='merging resources from 'b.yaml': may not add resource with an already registered id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Load(Options{Kustomize: []string{filepath.Join(dir, tt.dir)}})
			got := render(diags)
			want := strings.ReplaceAll(tt.want, "{dir}", dir)
			if len(got) != 1 || !strings.HasPrefix(got[0], want) {
				t.Errorf("diagnostics = %q, want one starting with %q", got, want)

			}
		})
	}

	// The same object from a folder and from a kustomization is a duplicate.
	_, diags := Load(Options{Paths: []string{filepath.Join(dir, "merge", "rg.yaml")}, Kustomize: []string{filepath.Join(dir, "merge")}})
	check(t, "diagnostics", render(diags), []string{
		"error: " + filepath.Join(dir, "merge", "rg.yaml") + ":1: resources.azure.com/ResourceGroup/default/rg: duplicate object, first defined at " +
			filepath.Join(dir, "merge", "rg.yaml") + ":1",
	})
}

// TestLoadKustomizeNamespaceLines: a Namespace read through kustomize keeps
// its file and lines, as resources do, for errors about its policy.
func TestLoadKustomizeNamespaceLines(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"kustomization.yaml": "resources:\n- ns.yaml\n- rg.yaml\n",
		"ns.yaml":            "# the team's namespace\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: skip\n",
		"rg.yaml":            rgDoc,
	})
	res, diags := Load(Options{Kustomize: []string{dir}})
	check(t, "diagnostics", render(diags), nil)
	check(t, "namespaces", summarize(res.Namespaces), []string{"v1/Namespace/default/team @ " + filepath.Join(dir, "ns.yaml") + ":2"})
	if got := FieldLine(res.Namespaces[0], "metadata", "annotations", "serviceoperator.azure.com/reconcile-policy"); got != 7 {
		t.Errorf("the policy annotation's line: %d, want 7", got)
	}
}
