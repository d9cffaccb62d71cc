package registry_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/registry"
)

// TestSourceNamesTheASORelease: the embedded registry says which ASO release
// it was generated from, and (with the corpus at hand) it is the release a
// CRD of the corpus is labelled with.
func TestSourceNamesTheASORelease(t *testing.T) {
	got := registry.Source().ASOVersion
	if !regexp.MustCompile(`^v2\.\d+\.\d+`).MatchString(got) {
		t.Fatalf("Source().ASOVersion = %q, want an ASO v2 release", got)
	}
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "crds", "*.yaml"))
	if len(files) == 0 {
		t.Skip("no CRDs in the corpus")
	}
	data, err := os.ReadFile(files[len(files)/2])
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	if want := crd.Metadata.Labels["app.kubernetes.io/version"]; got != want {
		t.Errorf("Source().ASOVersion = %q, the corpus's CRDs say %q", got, want)
	}
}
