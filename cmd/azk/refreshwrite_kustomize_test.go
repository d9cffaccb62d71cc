package main

import (
	"os"
	"path/filepath"
	"testing"
)

// With kustomize, refresh writes nothing into kustomize's output and names
// the place to edit each value: the overlay's patch where one sets it (not
// the base, where an edit would change nothing), else the base's line.
func TestRefreshNamesTheOverlayPatchThatSetsAValue(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := t.TempDir()
	base := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: kz
spec:
  location: westus2
  tags:
    team: platform
    env: dev
`
	patch := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: kz
spec:
  tags:
    env: prod
`
	for name, content := range map[string]string{
		"base/kustomization.yaml":          "resources:\n- rg.yaml\n",
		"base/rg.yaml":                     base,
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: env.yaml\n",
		"overlays/prod/env.yaml":           patch,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	overlay := filepath.Join(dir, "overlays", "prod")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "-k", overlay)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift(groupID("kz"), []byte(`{"tags":{"team":"data","env":"staging"}}`)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, "", with("refresh", "--write", "--drift-policy", "reflect", "-k", overlay)...)
	if code != 0 {
		t.Fatalf("refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "refresh -k", out,
		"# not written: spec.tags.env (reflect: tags.env): kustomize output (of "+overlay+"), which azk does not edit: the patch at "+filepath.Join(overlay, "env.yaml")+":7 sets it, write it there",
		"# not written: spec.tags.team (reflect: tags.team): kustomize output (of "+overlay+"), which azk does not edit: no patch sets it, write it into "+filepath.Join(dir, "base", "rg.yaml")+":8")
	for name, want := range map[string]string{"base/rg.yaml": base, "overlays/prod/env.yaml": patch} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("refresh edited %s:\n%s", name, got)
		}
	}
}
