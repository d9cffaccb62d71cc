package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/rules"
)

// exitRequirementsUnmet is the exit status of a plan (or an apply that
// refuses) that holds more than --require allows, and nothing worse: a
// pipeline that applies harmless plans without a human tells it from an
// error (1) and from changes (2, --detailed-exitcode).
const exitRequirementsUnmet = 3

// rulesFlags are the team's own policies on the plan (--policy, Rego, see
// docs/policy.md) and the auto-approval requirements (--require), on plan
// and apply.
type rulesFlags struct {
	paths []string
	// namespaces are evaluated over the plan, manifestNamespaces over each
	// resource's manifest.
	namespaces, manifestNamespaces []string
	require                        string
	// inputFile is plan's --policy-input: where to write the input document.
	inputFile string

	policies *rules.Policies
	required []string
}

func (f *rulesFlags) register(cmd *cobra.Command, apply bool) {
	fl := cmd.Flags()
	what := "the plan fails (exit 1) and azk apply --policy refuses"
	if apply {
		what = "apply refuses to start, writing nothing"
	}
	fl.StringArrayVar(&f.paths, "policy", nil, "evaluate the Rego policies in this file or folder (repeatable) over the plan with Open Policy Agent, as conftest does: deny, violation and warn rules (docs/policy.md); on a denial "+what)
	fl.StringArrayVar(&f.namespaces, "policy-namespace", nil, "the Rego package whose rules are evaluated over the plan (repeatable; conftest's --namespace, whose name -n/--namespace has here) (default main, unless only --policy-manifest-namespace is given)")
	fl.StringArrayVar(&f.manifestNamespaces, "policy-manifest-namespace", nil, "a Rego package whose rules are evaluated over each resource's manifest alone, as conftest evaluates Kubernetes objects (repeatable)")
	req := "exit 3 when the plan holds more than these allow"
	if apply {
		req = "refuse to start (exit 3, writing nothing) when the plan holds more than these allow"
	}
	fl.StringVar(&f.require, "require", "", "auto-approval requirements, comma-separated: no-delete, no-replace, no-drift (no-drift needs --base or --drift); "+req)
	if !apply {
		fl.StringVar(&f.inputFile, "policy-input", "", "write the document the policies are evaluated over (the plan's JSON form with each resource's Azure body and manifest, secrets never) to FILE, for opa eval and conftest")
	}
	_ = cmd.RegisterFlagCompletionFunc("require", completeValues(rules.Requirements...))
}

// load reads and compiles the policies, before anything is read from Azure:
// a policy that does not compile fails the command at once.
func (f *rulesFlags) load(ctx context.Context) error {
	if f.require != "" {
		var err error
		if f.required, err = rules.ParseRequirements(f.require); err != nil {
			return fmt.Errorf("--require: %w", err)
		}
	}
	if len(f.paths) == 0 {
		if len(f.namespaces)+len(f.manifestNamespaces) > 0 {
			return errors.New("--policy-namespace and --policy-manifest-namespace choose among the policies: add --policy PATH")
		}
		return nil
	}
	namespaces := f.namespaces
	if len(namespaces)+len(f.manifestNamespaces) == 0 {
		namespaces = []string{rules.DefaultNamespace}
	}
	var err error
	f.policies, err = rules.Load(ctx, f.paths, namespaces, f.manifestNamespaces)
	return err
}

// check writes the input document (--policy-input), evaluates the policies
// and the requirements, and puts their outcome in the plan.
func (f *rulesFlags) check(ctx context.Context, g *globalOptions, p *planner.Plan) error {
	if f.inputFile != "" {
		doc, err := rules.Input(p, g.secrets)
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.inputFile, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--policy-input: %w", err)
		}
	}
	if f.policies == nil && len(f.required) == 0 {
		return nil
	}
	out := &planner.Rules{Findings: []planner.RuleFinding{}}
	if f.policies != nil {
		var err error
		if out, err = f.policies.Evaluate(ctx, p, g.secrets); err != nil {
			return err
		}
	}
	if len(f.required) > 0 {
		var err error
		if out.Requirements, err = rules.Require(p, f.required); err != nil {
			return err
		}
	}
	p.SetRules(out)
	return nil
}

// report says on standard error what the policies decided, as the plan's
// other refusals are said.
func (f *rulesFlags) report(g *globalOptions, p *planner.Plan) {
	if n := p.Rules.Denials(); n > 0 {
		fmt.Fprintf(g.stderr, "Error: the policy denies the plan, %s (see above): azk apply --policy refuses to start\n", plural(n, "finding"))
	}
	if unmet := p.Rules.Unmet(); len(unmet) > 0 {
		fmt.Fprintf(g.stderr, "Not approved: the plan holds more than --require %s allows (%s): exit %d\n", f.require, unmetText(unmet), exitRequirementsUnmet)
	}
}

// unmetText names the requirements not met and what breaks each.
func unmetText(unmet []planner.Requirement) string {
	var parts []string
	for _, q := range unmet {
		parts = append(parts, q.Name+": "+strings.Join(q.Resources, ", "))
	}
	return strings.Join(parts, "; ")
}

// unmet is plan's exit for a plan that holds more than --require allows.
func (f *rulesFlags) unmet(p *planner.Plan) error {
	if len(p.Rules.Unmet()) > 0 {
		return &exitError{code: exitRequirementsUnmet}
	}
	return nil
}

// refusal is apply's refusal to start while a policy denies the plan, or
// while it holds more than --require allows.
func (f *rulesFlags) refusal(p *planner.Plan) error {
	if n := p.Rules.Denials(); n > 0 {
		return fmt.Errorf("the policy denies the plan, %s (see above); nothing was applied", plural(n, "finding"))
	}
	if unmet := p.Rules.Unmet(); len(unmet) > 0 {
		return &exitError{code: exitRequirementsUnmet, err: fmt.Errorf("the plan holds more than --require %s allows (%s); nothing was applied", f.require, unmetText(unmet))}
	}
	return nil
}

// savedRefusal refuses a saved plan whose policies denied it when it was made.
func savedRefusal(saved *planner.Plan) error {
	if n := saved.Rules.Denials(); n > 0 {
		return fmt.Errorf("the saved plan was denied by the policy when it was made (%s); nothing was applied", plural(n, "finding"))
	}
	return nil
}
