package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
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
		return run(c, append(args, f.filenames...))
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
