package loader

import (
	"net/url"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/diag"
)

// remoteEntries are the entries of a kustomization (the text of its file)
// that kustomize would fetch from the network: http(s) URLs, which it
// downloads, and git repositories (URLs, scp-style user@host:path and
// GitHub shorthand), which it clones with git. Every field whose entries
// kustomize loads is looked at; the file is decoded as kustomize decodes it,
// and one kustomize cannot read is left to kustomize to report.
func remoteEntries(data []byte) []string {
	var k types.Kustomization
	if k.Unmarshal(data) != nil {
		return nil
	}
	var locations []string
	for _, list := range [][]string{k.Resources, k.Components, k.Bases, k.Crds, k.Configurations, k.Generators, k.Transformers, k.Validators} {
		locations = append(locations, list...)
	}
	for _, p := range k.PatchesStrategicMerge {
		locations = append(locations, string(p))
	}
	for _, p := range append(k.PatchesJson6902, k.Patches...) {
		locations = append(locations, p.Path)
	}
	for _, r := range k.Replacements {
		locations = append(locations, r.Path)
	}
	locations = append(locations, k.OpenAPI["path"])
	var remote []string
	seen := map[string]bool{}
	add := func(loc string, isRemote bool) {
		if isRemote && !seen[loc] {
			seen[loc] = true
			remote = append(remote, loc)
		}
	}
	for _, loc := range locations {
		add(loc, isRemote(loc))
	}
	var generators []types.GeneratorArgs
	for _, g := range k.ConfigMapGenerator {
		generators = append(generators, g.GeneratorArgs)
	}
	for _, g := range k.SecretGenerator {
		generators = append(generators, g.GeneratorArgs)
	}
	for _, g := range generators {
		for _, f := range g.FileSources {
			_, path, keyed := strings.Cut(f, "=") // [key=]path
			add(f, isRemote(f) || keyed && isRemote(path))
		}
		for _, env := range append(g.EnvSources, g.EnvSource) {
			add(env, isRemote(env))
		}
	}
	return remote
}

// scpUser is the user@ of an scp-style git address (git@github.com:org/repo).
var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// isRemote reports whether kustomize would take loc for something to fetch
// rather than a local path, as its loader decides (and a little more):
// an http or https URL, however short ("http:x"), which it downloads;
// anything with a scheme ("ssh://", "file://"), git:: or an scp-style
// address, or GitHub shorthand, which it clones. Inline content (a patch
// written in the kustomization) is not a location.
func isRemote(loc string) bool {
	s := strings.ToLower(strings.TrimSpace(loc))
	if s == "" || strings.Contains(s, "\n") || strings.HasPrefix(s, "{") {
		return false
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return true
	}
	return strings.Contains(s, "://") || strings.HasPrefix(s, "git::") ||
		strings.HasPrefix(s, "github.com/") || strings.HasPrefix(s, "github.com:") ||
		scpUser.MatchString(s)
}

// remoteRefusal is a kustomization that names remote entries, refused
// before kustomize fetched any of them.
type remoteRefusal struct {
	file    string
	data    []byte
	entries []string
}

func (r remoteRefusal) Error() string {
	return r.file + ": refers to remote bases (" + strings.Join(r.entries, ", ") + "): refusing to fetch them without --allow-remote-bases"
}

// diagnostics are one error per remote entry, at its line in the file.
func (r remoteRefusal) diagnostics() diag.List {
	var out diag.List
	for _, e := range r.entries {
		out.Add(diag.Errorf(diag.Source{File: r.file, Line: lineOf(r.data, e)}, "", "",
			"%s is remote: kustomize would fetch it from the network, which azk does only with --allow-remote-bases", e))
	}
	return out
}

// lineOf is the line of the first scalar of the YAML data that holds value
// (a value written key=value counts), 0 when none does.
func lineOf(data []byte, value string) int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return 0
	}
	var find func(n *yaml.Node) int
	find = func(n *yaml.Node) int {
		if n.Kind == yaml.ScalarNode && (n.Value == value || strings.HasSuffix(n.Value, "="+value)) {
			return n.Line
		}
		for _, c := range n.Content {
			if line := find(c); line > 0 {
				return line
			}
		}
		return 0
	}
	return find(&root)
}
