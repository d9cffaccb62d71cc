//go:build unix

package loader_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/loader"
)

// countingTransport fails every request and counts it: kustomize fetches
// remote files through http.DefaultTransport.
type countingTransport struct{ requests atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	return nil, errors.New("no network in this test")
}

// FuzzKustomizeFetchesNothing: whatever a kustomization says, building it
// without AllowRemote sends no HTTP request and runs no git (kustomize
// clones with the git on PATH, here one that records its runs).
func FuzzKustomizeFetchesNothing(f *testing.F) {
	for _, seed := range []string{
		"resources:\n- rg.yaml\n",
		"resources:\n- rg.yaml\n- http://example.com/rg.yaml\n",
		"Resources:\n- HTTPS://example.com/rg.yaml\n",
		"resources:\n- github.com/org/repo//base?ref=v1\n",
		"bases:\n- git@github.com:org/repo.git\n",
		"components:\n- ssh://git@example.com/org/repo.git\n",
		"resources:\n- git::https://example.com/org/repo\n",
		"resources:\n- file:///tmp/repo.git\n",
		"resources:\n- https://dev.azure.com/org/project/_git/repo/base\n",
		"crds:\n- https://example.com/crd.yaml\n",
		"patches:\n- path: https://example.com/patch.yaml\n",
		"patchesStrategicMerge:\n- https://example.com/patch.yaml\n",
		"patchesJson6902:\n- path: http://example.com/p.json\n  target: {kind: ResourceGroup, name: rg}\n",
		"configMapGenerator:\n- name: c\n  files:\n  - key=https://example.com/c.txt\n  envs:\n  - https://example.com/env\n",
		"secretGenerator:\n- name: s\n  env: https://example.com/env\n",
		"openapi:\n  path: https://example.com/schema.json\n",
		"replacements:\n- path: https://example.com/r.yaml\n",
		"configurations:\n- https://example.com/c.yaml\n",
		"transformers:\n- https://example.com/t.yaml\n",
		"generators:\n- github.com/org/repo/gen\n",
		"validators:\n- https://example.com/v.yaml\n",
		"x: &u https://example.com/rg.yaml\nresources:\n- *u\n",
		"{\"resources\": [\"https://example.com/rg.yaml\"]}\n",
	} {
		f.Add([]byte(seed))
	}
	transport := &countingTransport{}
	saved := http.DefaultTransport
	http.DefaultTransport = transport
	f.Cleanup(func() { http.DefaultTransport = saved })
	bin, runs := f.TempDir(), filepath.Join(f.TempDir(), "git-runs")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$@\" >> '"+runs+"'\nexit 1\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Setenv("PATH", bin)
	rg := []byte("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\n")
	f.Fuzz(func(t *testing.T, kustomization []byte) {
		transport.requests.Store(0)
		os.Remove(runs)
		dir := t.TempDir()
		if os.WriteFile(filepath.Join(dir, "kustomization.yaml"), kustomization, 0o644) != nil || os.WriteFile(filepath.Join(dir, "rg.yaml"), rg, 0o644) != nil {
			t.Fatal("writing the kustomization")
		}
		loader.Load(loader.Options{Kustomize: []string{dir}})
		if n := transport.requests.Load(); n > 0 {
			t.Fatalf("%d HTTP requests for:\n%s", n, kustomization)
		}
		if data, err := os.ReadFile(runs); err == nil {
			t.Fatalf("git ran (%s) for:\n%s", data, kustomization)
		}
	})
}
