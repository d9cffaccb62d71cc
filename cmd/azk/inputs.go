package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/yamlnode"
)

// inputFlags are the manifest inputs shared by every command that reads them.
type inputFlags struct {
	kustomize []string
	// filenames are kubectl's -f PATH: paths like the arguments.
	filenames []string
	// defaultPolicy is --default-reconcile-policy, on the commands that act on Azure.
	defaultPolicy string
	// allowRemote lets kustomize fetch remote bases (--allow-remote-bases).
	allowRemote bool
}

// register adds the input flags to cmd, whose RunE (set before) then gets
// the -f paths after its arguments.
func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&f.kustomize, "kustomize", "k", nil, "build this kustomize directory and read its output (repeatable)")
	cmd.Flags().StringArrayVarP(&f.filenames, "filename", "f", nil, "a file or folder to read, as the arguments are (kubectl's -f; repeatable)")
	cmd.Flags().BoolVarP(new(bool), "recursive", "R", false, "kubectl's -R, accepted: folders are always read recursively")
	cmd.Flags().BoolVar(&f.allowRemote, "allow-remote-bases", false, "let kustomize fetch the remote resources and bases a kustomization names (http(s) URLs, git repositories); without it only local files are read and nothing touches the network")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return run(c, uniqueInputs(append(args, f.filenames...)))
	}
}

// uniqueInputs drops the inputs another one already reads (kubectl users
// write azk plan DIR -f DIR): the same file or folder however it is written
// (./DIR, DIR/, a symbolic link to it), standard input named twice, and a
// folder or manifest file inside a folder given (which reads it, see
// loader.Options.Paths). Otherwise every resource would be read twice, each a
// "duplicate object" error pointing at the same place. Arguments that are no
// path (addresses) are kept as written.
func uniqueInputs(paths []string) []string {
	real := make([]string, len(paths))
	folders := map[string]bool{}
	for i, p := range paths {
		real[i] = p
		if p == "-" {
			continue
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if r, err = filepath.Abs(r); err != nil {
			continue
		}
		real[i] = r
		if info, err := os.Stat(r); err == nil && info.IsDir() {
			folders[r] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for i, p := range paths {
		if seen[real[i]] || insideFolder(real[i], folders) {
			continue
		}
		seen[real[i]] = true
		out = append(out, p)
	}
	return out
}

// insideFolder reports whether the folder walk of one of folders reads
// path: a folder or manifest file below it, with no name starting with "."
// on the way.
func insideFolder(path string, folders map[string]bool) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	if !folders[path] && !slices.Contains([]string{".yaml", ".yml", ".json"}, strings.ToLower(filepath.Ext(path))) {
		return false
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if strings.HasPrefix(filepath.Base(path), ".") {
			return false
		}
		if folders[dir] {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
		path = dir
	}
}

// registerDefaultPolicy adds --default-reconcile-policy, for the commands
// that plan, apply or destroy.
func (f *inputFlags) registerDefaultPolicy(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.defaultPolicy, "default-reconcile-policy", "", "reconcile policy of resources whose manifest and Namespace set none, as the operator's DEFAULT_RECONCILE_POLICY: manage, detach-on-delete or skip (default manage)")
}

// requireInputs is a cobra Args check: at least one path, -f or -k.
func (f *inputFlags) requireInputs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 && len(f.kustomize) == 0 && len(f.filenames) == 0 {
		return fmt.Errorf("no inputs: give files, folders, - for standard input, -f PATH or -k DIR (see %s --help)", cmd.CommandPath())
	}
	return nil
}

// resolve loads the inputs and builds the graph, returning every diagnostic.
func (f *inputFlags) resolve(g *globalOptions, paths []string) (*graph.Graph, diag.List) {
	res, diags := loader.Load(loader.Options{Paths: paths, Kustomize: f.kustomize, Stdin: g.stdin, Namespace: g.namespace, AllowRemote: f.allowRemote})
	g.secrets.Add(secretValues(res.Secrets)...)
	gr, more := graph.Build(res, graph.Options{Subscription: g.subscriptionID(), DefaultReconcilePolicy: f.defaultPolicy})
	diags = append(diags, more...)
	gr.Shown(func(v string) { g.secrets.Show(v) })
	diags = append(diags, unhiddenSecrets(gr, g.secrets, res.Secrets)...)
	if gr.Subscription == graph.SubscriptionPlaceholder && len(gr.Nodes) > 0 && g.subscriptionID() == "" {
		diags.Add(diag.Warningf(diag.Source{}, "", "", "no subscription given (--subscription or AZURE_SUBSCRIPTION_ID): ARM IDs show %s", graph.SubscriptionPlaceholder))
	}
	diags.Sort()
	return gr, diags
}

// printDiagnostics writes diagnostics as text, one per line, errors and warnings labelled.
func printDiagnostics(w io.Writer, diags diag.List) {
	for _, d := range diags {
		label := "Error"
		if d.Severity == diag.SeverityWarning {
			label = "Warning"
		}
		fmt.Fprintf(w, "%s: %s\n", label, d.Error())
	}
}

// failed is the error a command returns after it has printed its own diagnostics.
func failed() error { return &exitError{code: 1} }

// identityKeys are the keys of a credential Secret that name, not prove, an
// identity: they appear in ARM IDs and output and are not redacted.
var identityKeys = map[string]bool{arm.SecretSubscriptionID: true, arm.SecretTenantID: true, arm.SecretClientID: true}

// secretValues are the values of the input's v1 Secrets, to be redacted.
func secretValues(secrets []*loader.Object) []string {
	var values []string
	for _, s := range secrets {
		for _, k := range s.Keys() {
			if v, ok := s.Value(k); ok && !identityKeys[k] {
				values = append(values, v)
			}
		}
	}
	return values
}

// unhiddenSecrets warns of each secret value of the run (the input's
// Secrets, AZK_SECRET_* and the environment credential) that the manifests
// also show as a name, location, ID, URL or other plain value: azk prints it
// there as it is, so it cannot hide it in ARM's messages or its errors either.
func unhiddenSecrets(gr *graph.Graph, secrets *redact.Set, inputs []*loader.Object) diag.List {
	var diags diag.List
	warn := func(src diag.Source, address, field, what, value string) {
		if len(value) < redact.MinLength || secrets.Hides(value) {
			return
		}
		if use, ok := gr.WhereShown(value); ok {
			diags.Add(diag.Warningf(src, address, field, "%s is also in the manifests in plain, as %s: azk prints it there as it is, so it will not hide it in ARM's messages or its own errors either (a field that refers to the secret still prints (sensitive))", what, use))
		}
	}
	for _, s := range inputs {
		for _, k := range s.Keys() {
			if v, ok := s.Value(k); ok && !identityKeys[k] {
				src := s.Source
				src.Line = loader.KeyLine(s, k)
				warn(src, s.Address(), secretField(s, k), "this secret value", v)
			}
		}
	}
	env := secretEnvironment()
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		warn(diag.Source{}, "", "", "the value of "+name, env[name])
	}
	return diags
}

// secretField is where key is in Secret s: "stringData.KEY", "data.KEY" or "binaryData.KEY".
func secretField(s *loader.Object, key string) string {
	for _, section := range []string{"stringData", "data", "binaryData"} {
		if k, _ := yamlnode.Entry(yamlnode.Value(s.Node.YNode(), section), key); k != nil {
			return section + "." + key
		}
	}
	return key
}
