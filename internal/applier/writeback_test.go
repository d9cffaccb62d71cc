package applier_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/loader"
)

func TestWritePolicyKeepsCommentsAndLayout(t *testing.T) {
	in, err := os.ReadFile("testdata/writeback.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "identities.yaml")
	if err := os.WriteFile(path, in, 0o600); err != nil {
		t.Fatal(err)
	}
	res, diags := loader.Load(loader.Options{Paths: []string{path}})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	policies := map[string]string{"first": "detach-on-delete", "second": "manage"}
	for _, o := range res.Resources {
		if err := applier.WritePolicy(o, policies[o.Name]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/writeback.golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("written file differs from testdata/writeback.golden.yaml:\n%s", got)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("file mode changed to %v", info.Mode().Perm())
	}
}

func TestWritePolicyRefusesInputsThatAreNotFiles(t *testing.T) {
	for name, o := range map[string]*loader.Object{
		"stdin":     {Kind: "ResourceGroup", Name: "rg"},
		"kustomize": {Kind: "ResourceGroup", Name: "rg", Kustomization: "overlays/prod"},
	} {
		if name == "stdin" {
			o.Source.File = "-"
		} else {
			o.Source.File = "base/rg.yaml"
		}
		if err := applier.WritePolicy(o, "manage"); !errors.Is(err, applier.ErrNotAFile) {
			t.Errorf("%s: %v, want ErrNotAFile", name, err)
		}
	}
}
