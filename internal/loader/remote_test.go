//go:build unix

package loader

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeGit puts a git on PATH that records each run and fails, and returns
// the file it records to (absent while git never ran).
func fakeGit(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git-runs")
	script := "#!/bin/sh\necho \"$@\" >> '" + log + "'\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return log
}

// TestKustomizeRemoteBasesAreRefused: a kustomization naming an http(s)
// resource or a git repository is refused at its file and line, before
// anything is fetched: the server gets no request and git never runs
// (issue 22, item 3). AllowRemote lets kustomize fetch them.
func TestKustomizeRemoteBasesAreRefused(t *testing.T) {
	var requests atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write([]byte(strings.Replace(rgDoc, "name: rg", "name: remote-rg", 1)))
	}))
	defer server.Close()
	gitRuns := fakeGit(t)
	remote := server.URL + "/rg.yaml"
	dir := writeFiles(t, map[string]string{
		"http/kustomization.yaml": "resources:\n- rg.yaml\n- " + remote + "\n",
		"http/rg.yaml":            rgDoc,
		"git/kustomization.yaml": "resources:\n- rg.yaml\n- github.com/example/bases//rg?ref=v1\n- https://example.com/org/repo.git//base\n" +
			"components:\n- git@example.com:org/components.git\n",
		"git/rg.yaml":                            rgDoc,
		"generator/kustomization.yaml":           "configMapGenerator:\n- name: settings\n  files:\n  - config=" + remote + "\n",
		"nested/kustomization.yaml":              "resources:\n- ../http\n",
		"github.com/org/repo/kustomization.yaml": "resources:\n- rg.yaml\n",
		"github.com/org/repo/rg.yaml":            rgDoc,
	})
	for _, tt := range []struct {
		name string
		dir  string
		want []string
	}{
		{"an http resource", "http", []string{"error: {dir}/http/kustomization.yaml:3: " + remote + " is remote: kustomize would fetch it from the network, which azk does only with --allow-remote-bases"}},
		{"git repositories", "git", []string{
			"error: {dir}/git/kustomization.yaml:3: github.com/example/bases//rg?ref=v1 is remote",
			"error: {dir}/git/kustomization.yaml:4: https://example.com/org/repo.git//base is remote",
			"error: {dir}/git/kustomization.yaml:6: git@example.com:org/components.git is remote",
		}},
		{"a generator's file", "generator", []string{"error: {dir}/generator/kustomization.yaml:4: config=" + remote + " is remote"}},
		{"a local base naming one", "nested", []string{"error: {dir}/http/kustomization.yaml:3: " + remote + " is remote"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, diags := Load(Options{Kustomize: []string{filepath.Join(dir, tt.dir)}})
			got := render(diags)
			for _, w := range tt.want {
				mustReport(t, got, strings.ReplaceAll(w, "{dir}", dir))
			}
			if len(got) != len(tt.want) {
				t.Errorf("%d diagnostics, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			if len(res.Resources) != 0 {
				t.Errorf("resources loaded: %v", summarize(res.Resources))
			}
		})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the server got %d requests", n)
	}
	if runs, err := os.ReadFile(gitRuns); err == nil {
		t.Errorf("git ran:\n%s", runs)
	}

	// -k of a URL says it is not fetched.
	for _, root := range []string{remote, "https://github.com/org/repo//base?ref=v1"} {
		_, diags := Load(Options{Kustomize: []string{root}, AllowRemote: true})
		check(t, "-k "+root, render(diags), []string{"error: " + root + ": kustomize: -k takes a local directory; a remote one is not fetched (--allow-remote-bases lets a local kustomization name remote bases)"})
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("-k of a URL: the server got %d requests", n)
	}

	// A local folder whose path reads as a GitHub URL is read from disk.
	t.Chdir(dir)
	res, diags := Load(Options{Kustomize: []string{"github.com/org/repo"}})
	check(t, "a local github.com/org/repo", render(diags), nil)
	if len(res.Resources) != 1 {
		t.Errorf("github.com/org/repo: %d resources, want 1", len(res.Resources))
	}
	if runs, err := os.ReadFile(gitRuns); err == nil {
		t.Errorf("git ran for a local folder:\n%s", runs)
	}

	// Allowed, kustomize fetches them as it would.
	res, diags = Load(Options{Kustomize: []string{filepath.Join(dir, "http")}, AllowRemote: true})
	check(t, "with AllowRemote", render(diags), nil)
	if len(res.Resources) != 2 || requests.Load() != 1 {
		t.Errorf("with AllowRemote: %v, %d requests", summarize(res.Resources), requests.Load())
	}
	Load(Options{Kustomize: []string{filepath.Join(dir, "git")}, AllowRemote: true})
	if _, err := os.ReadFile(gitRuns); err != nil {
		t.Errorf("with AllowRemote, git did not run for a git base: %v", err)
	}
}
