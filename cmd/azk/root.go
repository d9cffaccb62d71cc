package main

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/azkcli/azk/internal/redact"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	namespace    string
	output       string
	noColor      bool
	subscription string
	// input is false with --input=false (Terraform's -input=false): never
	// ask, so apply and destroy need --auto-approve.
	input bool

	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// secrets are the secret values of the run, and the values the manifests
	// show as they are. Free text azk does not write itself is redacted of
	// the secrets: standard error (diagnostics, progress, the --debug log),
	// every error a command returns, and ARM's error messages as the client
	// reads them. Standard output is not: plans, graphs and requests mark
	// secrets where they enter (convert.Sensitive) and print (sensitive)
	// there, so no name or ID is rewritten (see package redact).
	secrets *redact.Set
}

// color reports whether output may use ANSI colours: not with --no-color,
// not when NO_COLOR is set (https://no-color.org), not when stdout is no terminal.
func (g *globalOptions) color() bool {
	if g.noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(g.stdout)
}

// subscriptionID is --subscription, else AZURE_SUBSCRIPTION_ID, else "".
func (g *globalOptions) subscriptionID() string {
	if g.subscription != "" {
		return g.subscription
	}
	return os.Getenv("AZURE_SUBSCRIPTION_ID")
}

// isTerminal reports whether w (stdin, stdout or stderr) is a terminal.
func isTerminal(w any) bool {
	if r, ok := w.(*redact.Writer); ok {
		w = r.Unwrap()
	}
	f, ok := w.(*os.File)
	// A character device is not enough: /dev/null is one, and is no terminal.
	return ok && term.IsTerminal(int(f.Fd()))
}

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	secrets := &redact.Set{}
	for _, v := range secretEnvironment() {
		secrets.Add(v)
	}
	g := &globalOptions{stdin: stdin, stdout: stdout, stderr: secrets.Writer(stderr), secrets: secrets}
	root := &cobra.Command{
		Use:   "azk",
		Short: "Plan and apply Azure Service Operator v2 manifests against Azure, no cluster needed",
		Long: `azk reads the same YAML you would kubectl apply to Azure Service Operator v2
(ASO), resolves owners and references into a dependency graph, computes the
exact ARM request the operator would send for each resource, and plans and
applies them against Azure Resource Manager, with no Kubernetes cluster.

Offline:
  azk validate ./manifests        check manifests: schema, owners, references, names
  azk graph ./manifests           the dependency graph with every ARM ID
  azk render ./manifests          the exact ARM requests the operator would send

Against Azure (or --emulator, a local ARM emulator):
  azk plan ./manifests            what applying would do, resource by resource
  azk apply ./manifests           make Azure match the manifests
  azk destroy ./manifests         delete them, in reverse dependency order

Try it with no Azure account:
  azk apply --emulator --auto-approve examples/quickstart

Inputs are files, folders (searched recursively for .yaml, .yml and .json),
"-" for standard input, or -k DIR for a kustomize overlay; kubectl's -f PATH
and -R work too. Terraform's single-dash flags (-auto-approve, -no-color,
-out FILE, -target ADDR, -detailed-exitcode, -input=false, -json) work as
they do there.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{azkVersionText}}")
	root.SetFlagErrorFunc(suggestFlag)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)

	pf := root.PersistentFlags()
	pf.StringVarP(&g.namespace, "namespace", "n", "default", "namespace for objects that do not set metadata.namespace")
	pf.StringVarP(&g.output, "output", "o", "text", "output format (each command lists the formats it supports)")
	pf.BoolVar(&g.noColor, "no-color", false, "disable coloured output (also when NO_COLOR is set)")
	pf.StringVar(&g.subscription, "subscription", "", "Azure subscription ID (default $AZURE_SUBSCRIPTION_ID)")
	_ = root.RegisterFlagCompletionFunc("output", completeOutput)
	pf.BoolVar(&g.input, "input", true, "ask for input when needed (confirmation); --input=false never asks, so apply and destroy need --auto-approve")

	root.AddCommand(newVersionCommand(g))
	for _, add := range subcommands {
		root.AddCommand(add(g))
	}
	redactRuns(root, g)
	return root
}

// redactRuns makes every command flush what its redacting standard error
// holds at its end and return its error redacted, for main to print.
func redactRuns(cmd *cobra.Command, g *globalOptions) {
	for _, c := range cmd.Commands() {
		redactRuns(c, g)
	}
	run := cmd.RunE
	if run == nil {
		return
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		err := run(c, args)
		if r, ok := g.stderr.(*redact.Writer); ok {
			_ = r.Flush()
		}
		if ee, ok := err.(*exitError); ok {
			return &exitError{code: ee.code, err: g.secrets.Error(ee.err)}
		}
		return g.secrets.Error(err)
	}
}

// secretEnvironment is the secret values azk may read from its environment,
// by variable: secrets not in the input (AZK_SECRET_*) and the environment
// credential's.
func secretEnvironment() map[string]string {
	values := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AZK_SECRET_") || k == "AZURE_CLIENT_SECRET" || k == "AZURE_CLIENT_CERTIFICATE_PASSWORD" {
			values[k] = v
		}
	}
	return values
}

// subcommands is filled by each command's file in its init function, so that
// commands can be added without every change touching this file.
var subcommands []func(*globalOptions) *cobra.Command
