package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

func init() { subcommands = append(subcommands, newApplyCommand) }

// runFlags are what apply and destroy share: confirmation and interrupts.
type runFlags struct {
	autoApprove      bool
	grace            time.Duration
	progressInterval time.Duration
	// interruptNote, when set, is what the first Ctrl-C prints.
	interruptNote string
}

func (f *runFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.autoApprove, "auto-approve", false, "do not ask for confirmation (required without a terminal)")
	cmd.Flags().DurationVar(&f.grace, "grace-period", 2*time.Minute, "after the first Ctrl-C, how long to wait for operations in flight before stopping")
	cmd.Flags().DurationVar(&f.progressInterval, "progress-interval", 10*time.Second, "how often an operation still running says so (Still creating... [1m30s elapsed]), with or without a terminal; 0 never")
}

func newApplyCommand(g *globalOptions) *cobra.Command {
	var (
		in                          inputFlags
		az                          azureFlags
		rf                          runFlags
		pf                          planFlags
		sel                         selectFlags
		allowPartial, allowUnrecord bool
		allowCascade                bool
		ef                          engineFlags
		allowOtherEndpoint          bool
		pre                         preflightFlags
		rules                       rulesFlags
	)
	cmd := &cobra.Command{
		Use:   "apply PATH... [-k DIR] | apply PLANFILE",
		Short: "Make Azure match the manifests: plan, confirm, then create, adopt and update",
		Long: `Apply plans (see azk plan), shows the plan and asks for confirmation, then
does exactly what the plan shows: one PUT for each resource to create or
update, nothing for the rest. Resources go in dependency order: one starts as
soon as everything it depends on (owner, references, config maps exported by
other resources) has succeeded, the longest work first; what paces them is
ARM's rate limits (--rate-limit), not a count (--parallelism bounds it if you
want one). Each write is followed to its end, polled when ARM's Retry-After
says, and its result kept (read back when the operation's answer does not
carry it), to confirm it converged and to pass its status to the resources
that consume it (a resource whose Azure name is another's status value is
named then). On a terminal, a progress line every 10 s counts the operations
in flight, the requests waiting for ARM's budget and the 429s so far.

Apply refuses to start when anything is blocked or needs replacing
(--allow-partial applies the rest; -replace=ADDRESS replaces), or when a
reconcile-policy it must record cannot be written back to its manifest
(standard input, kustomize output; --allow-unrecorded-policy goes on
without).

With --base GITREF|DIR (see azk plan), apply also deletes what the change
removed from the manifests, after every create and update succeeded,
dependents and children first, as destroy deletes; a child whose parent is
deleted too goes with it (ARM's cascade). -replace=ADDRESS deletes the
resource, then creates it, and its children in the manifests after it. As
destroy does, apply refuses, unless --allow-cascade, a deletion that would
take along resources the manifests do not hold or that are marked
detach-on-delete or skip.

A resource that fails stops only the resources that depend on it; the rest go
on. The end report lists what succeeded, what failed (with ARM's code, message
and correlation ID) and what was not attempted. Running apply again after a fix
converges from where it stopped.

--target ADDRESS (repeatable) and -l/--selector LABELS apply part of the
inputs: the resources chosen and what they depend on, with a warning that
the rest was not considered.

--engine deployment hands the same writes to ARM's deployment engine instead,
as templates (see azk export): ARM runs them server-side and azk follows their
operations; Ctrl-C leaves them running. --stack NAME deploys them as a
deployment stack, which deletes or detaches what the manifests no longer hold.

--policy PATH evaluates the team's Rego policies over the plan first (see
azk plan --policy) and refuses to start, writing nothing, on a denial;
--require no-delete,no-replace,no-drift refuses (exit 3) a plan that holds
more than that. A saved plan that a policy denied when it was made is refused.

--preflight runs the pre-flight checks of azk plan --preflight first and
refuses to start, writing nothing, when one finds an error;
--register-providers registers the resource providers the subscription
lacks before the first write.

azk apply PLANFILE applies a plan saved with azk plan --out, without asking,
and refuses when the manifests or anything read for the plan changed since.
It goes where the plan was made (the Azure cloud, subscription and tenant, or
the emulator), whatever AZK_ENDPOINT or AZURE_SUBSCRIPTION_ID say; flags
naming another endpoint are refused unless --allow-other-endpoint.
A destroy plan (azk plan --destroy --out) destroys, as terraform apply does
with one: the same as azk destroy PLANFILE.

The first Ctrl-C stops starting new work and waits up to --grace-period for
operations in flight; a second one exits at once and prints how to check them.

  -o text   the plan, progress lines and a closing summary (default)
  -o json   one JSON event per line, then a summary event
  -o yaml   the same events as YAML documents
  -o name   ACTION ADDRESS (create, update, replace, delete) for each
            resource written or deleted, as it completes

Every --progress-interval (10s) an operation still running prints a
"Still creating... [1m30s elapsed]" line (an event with -o json), on a
terminal or not, so CI logs never go quiet.

Exit status: 0 success, 1 error or any resource failed, 3 refused by
--require (nothing was applied).`,
		Example: `  azk apply --emulator --auto-approve examples/quickstart
  azk plan ./manifests --out plan.azk && azk apply plan.azk
  azk apply ./manifests --send-secrets DBforPostgreSQL/FlexibleServer/db
  azk apply ./manifests --base origin/main
  azk apply ./manifests -replace=UserAssignedIdentity/default/app-id`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			if err := ef.check(); err != nil {
				return err
			}
			if err := rules.load(cmd.Context()); err != nil {
				return err
			}
			saved, err := savedPlan(args, in.kustomize)
			if err != nil {
				return err
			}
			if saved != nil {
				if err := savedRefusal(saved); err != nil {
					return err
				}
			}
			if saved != nil && saved.Destroy {
				if ef.deployment() {
					return errors.New("a destroy plan deletes, which a deployment template does not do: apply it without --engine deployment")
				}
				return applySavedDestroy(cmd, g, saved, &az, &in, &sel, &rf, allowCascade, allowOtherEndpoint)
			}
			if saved != nil {
				if args, err = restoreSavedFlags(saved, g, &in, &pf, &sel); err != nil {
					return err
				}
				if err := useSavedEndpoint(cmd, g, &az, saved, allowOtherEndpoint); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			session, p, err := openPlan(ctx, g, &az, &in, &pf, &sel, args)
			if err != nil {
				return err
			}
			defer session.release()
			client, gr := session.client, session.graph
			if ef.deployment() {
				replan := func() (*planner.Plan, error) {
					p, diags := session.plan(ctx, g, &in, &pf, planInputs(g, &in, args, &sel), false)
					printDiagnostics(g.stderr, diags)
					if p == nil || diags.HasErrors() {
						return nil, failed()
					}
					return p, nil
				}
				if p, err = awaitEarlierDeployments(ctx, g, &ef, client, p, replan); err != nil {
					return err
				}
			}
			if err := pre.check(ctx, g, &az, client, p); err != nil {
				return err
			}
			if err := rules.check(ctx, g, p); err != nil {
				return err
			}
			if saved != nil {
				if moved := planfile.Stale(ctx, saved, p); len(moved) > 0 {
					return fmt.Errorf("the saved plan is stale; nothing was applied. What moved:\n  %s\nMake a new plan with azk plan --out", strings.Join(moved, "\n  "))
				}
			} else {
				if err := showPlan(g, p, pf.render(g)); err != nil {
					return err
				}
			}
			if err := refusals(p, allowPartial, allowUnrecord); err != nil {
				return err
			}
			if err := cascadeRefusal(p, allowCascade); err != nil {
				return err
			}
			if err := pre.refusal(p); err != nil {
				return err
			}
			if err := rules.refusal(p); err != nil {
				return err
			}
			if ef.deployment() {
				if err := templateRefusal(p); err != nil {
					return err
				}
				ef.inProcess = az.emulator
				return applyDeployment(g, &rf, &ef, p, client, saved != nil, func() error { return pre.registerNeeded(ctx, g, client, p) })
			}
			if !p.HasChanges() {
				return nothingToApply(g, saved != nil)
			}
			if saved == nil {
				if err := rf.confirm(g, "Do you want to perform these actions?"); err != nil {
					return err
				}
			}
			if err := pre.registerNeeded(ctx, g, client, p); err != nil {
				return err
			}
			applying(p)
			rep := rf.execute(g, az.parallelism, func(ctx context.Context, opts applier.Options) *applier.Report {
				opts.Graph = gr
				return applier.Apply(ctx, p.Resources, opts)
			}, client)
			if rep.Failed() || rep.Interrupted {
				return failed()
			}
			return nil
		},
	}
	in.register(cmd)
	in.registerDefaultPolicy(cmd)
	az.register(cmd)
	rf.register(cmd)
	pf.register(cmd)
	sel.register(cmd, "what it depends on")
	ef.register(cmd)
	registerAllowOtherEndpoint(cmd, &allowOtherEndpoint)
	pre.register(cmd, true)
	rules.register(cmd, true)
	f := cmd.Flags()
	f.BoolVar(&allowPartial, "allow-partial", false, "apply what can be applied when some resources are blocked (they, and what depends on them, are reported as failed)")
	f.BoolVar(&allowCascade, "allow-cascade", false, "delete (--base, -replace) even when that removes resources outside the manifests or marked detach-on-delete or skip")
	f.BoolVar(&allowUnrecord, "allow-unrecorded-policy", false, "go on when a reconcile-policy apply must record cannot be written back to its manifest (standard input, kustomize output): the next run will take the resource for one it found")
	return cmd
}

// savedPlan returns the plan when the only argument is a file saved by azk plan --out.
func savedPlan(args, kustomize []string) (*planner.Plan, error) {
	if len(args) != 1 || len(kustomize) > 0 {
		return nil, nil
	}
	info, err := os.Stat(args[0])
	if err != nil || info.IsDir() {
		return nil, nil
	}
	return planfile.LoadIfSaved(args[0])
}

// restoreSavedFlags sets the inputs and the plan-shaping flags a saved plan
// was made with, and returns its paths: the inputs it records (--base
// among them), and --reconcile-policy-if-exists, --default-reconcile-policy,
// --send-secrets and -replace recovered from the decisions they drove.
func restoreSavedFlags(saved *planner.Plan, g *globalOptions, in *inputFlags, pf *planFlags, sel *selectFlags) ([]string, error) {
	if slices.Contains(saved.Inputs.Paths, "-") {
		return nil, errors.New("the saved plan was made from standard input, which cannot be read again: plan and apply in one step with azk apply -")
	}
	in.kustomize, g.namespace = saved.Inputs.Kustomize, saved.Inputs.Namespace
	sel.targets, sel.selector = saved.Inputs.Targets, saved.Inputs.Selector
	pf.ifExists = savedPolicyFlag(saved, planner.PolicySourceIfExistsFlag)
	in.defaultPolicy = savedPolicyFlag(saved, planner.PolicySourceDefaultFlag)
	pf.driftPolicy = savedDriftPolicyFlag(saved)
	pf.sendSecrets, pf.replace, pf.base = nil, nil, saved.Inputs.Base
	for _, r := range saved.Resources {
		switch r.Reason {
		case planner.ReasonSecretsRequested:
			pf.sendSecrets = append(pf.sendSecrets, r.Address)
		case planner.ReasonReplaceRequested:
			pf.replace = append(pf.replace, r.Address)
		}
	}
	return saved.Inputs.Paths, nil
}

// savedPolicyFlag is the policy the decisions from source carry, "" when none does.
func savedPolicyFlag(p *planner.Plan, source string) string {
	for _, r := range p.Resources {
		if r.Policy.Source == source {
			return r.Policy.Value
		}
	}
	return ""
}

// openPlan opens a session on the inputs and plans them, as apply
// and export do before acting on the plan: every diagnostic is printed, and
// any error among them (or no plan) is failed(). The caller releases the session.
func openPlan(ctx context.Context, g *globalOptions, az *azureFlags, in *inputFlags, pf *planFlags, sel *selectFlags, args []string) (*azureSession, *planner.Plan, error) {
	session, diags, err := openSession(ctx, g, az, in, args, sel, graph.WithDependencies)
	if err != nil {
		return nil, nil, err
	}
	p, more := session.plan(ctx, g, in, pf, planInputs(g, in, args, sel), false)
	diags = append(diags, more...)
	printDiagnostics(g.stderr, diags)
	if p == nil || diags.HasErrors() {
		session.release()
		return nil, nil, failed()
	}
	return session, p, nil
}

// refusals are the reasons apply does not start: a replacement Azure cannot
// make in place or blocked resources, without --allow-partial; policy
// records that cannot be written without --allow-unrecorded-policy.
func refusals(p *planner.Plan, allowPartial, allowUnrecorded bool) error {
	s := p.Summary()
	if s.ReplaceRequired > 0 && !allowPartial {
		return errors.New("the plan has changes Azure cannot make in place (see above); nothing was applied: -replace=ADDRESS deletes and creates such a resource again, --allow-partial applies the rest")
	}
	if s.Blocked > 0 && !allowPartial {
		return fmt.Errorf("%s blocked (see above); nothing was applied: fix them, or --allow-partial applies the rest", plural(s.Blocked, "resource"))
	}
	if unwritable := unrecordedPolicies(p); len(unwritable) > 0 && !allowUnrecorded {
		return fmt.Errorf("apply must record the reconcile-policy of these resources in their manifests, which are not plain files (standard input, kustomize output); nothing was applied:\n  %s\nAdd the annotations yourself, or pass --allow-unrecorded-policy (the next run will take them for resources it found)", strings.Join(unwritable, "\n  "))
	}
	return nil
}

// unrecordedPolicies are the policy records apply cannot write (standard
// input, kustomize output), as "ADDRESS (annotation: value)".
func unrecordedPolicies(p *planner.Plan) []string {
	var out []string
	for _, r := range p.Resources {
		if r.RecordPolicy != nil && !r.RecordPolicy.Writable {
			out = append(out, fmt.Sprintf("%s (%s: %s)", r.Address, graph.AnnotationReconcilePolicy, r.RecordPolicy.Value))
		}
	}
	return out
}

// cascades are what the plan's deletions would remove beyond what it
// deletes on its own: the cascade guard's findings.
func cascades(p *planner.Plan) []planner.Cascade {
	var out []planner.Cascade
	for _, r := range p.Resources {
		out = append(out, r.Cascades...)
	}
	return out
}

// cascadeRefusal refuses, as destroy does, deletions that would take along
// resources the manifests do not hold or mean to keep, unless --allow-cascade.
func cascadeRefusal(p *planner.Plan, allowCascade bool) error {
	return refuseCascades(cascades(p), allowCascade, "nothing was applied")
}

// refuseCascades is the cascade guard's refusal (unless --allow-cascade) of
// deletions that would take along what the manifests do not hold or mean to
// keep, or what a failed listing hides: the guard fails closed.
func refuseCascades(found []planner.Cascade, allowCascade bool, nothing string) error {
	if len(found) == 0 || allowCascade {
		return nil
	}
	var lines []string
	unverified := 0
	for _, c := range found {
		what := c.ID
		if c.Address != "" {
			what = c.Address
		}
		if c.Unverified() {
			unverified++
		}
		lines = append(lines, fmt.Sprintf("%s (%s; removed with %s)", what, c.Reason, c.By))
	}
	hint := "pass --allow-cascade to delete them too, or remove them (or their policy) first"
	if unverified > 0 {
		hint = "what a failed listing holds is taken for something to keep: run again once it lists, or pass --allow-cascade to delete whatever it holds"
	}
	return fmt.Errorf("deleting would also remove these; %s:\n  %s\n%s", nothing, strings.Join(lines, "\n  "), hint)
}

// templateRefusal refuses a plan that deletes or detaches (--base,
// -replace) on the way to ARM's deployment templates, which only create and
// update.
func templateRefusal(p *planner.Plan) error {
	for _, r := range p.Resources {
		if r.Removed() || r.Action == planner.ActionRecreate {
			return fmt.Errorf("%s is to %s, which a deployment template does not do: apply without --engine deployment (or plan without --base and -replace)", r.Address, r.Action)
		}
	}
	return nil
}

// nothingToApply ends an apply whose plan holds no change: the summary event
// under -o json and -o yaml; else the no-changes line for a saved plan, as a
// plan made here was shown and said so already.
func nothingToApply(g *globalOptions, saved bool) error {
	if events, closeEvents := eventsWriter(g); events != nil {
		defer closeEvents()
		return (&applier.Report{Operation: applier.OperationApply}).WriteJSONSummary(events)
	}
	if saved {
		fmt.Fprintln(g.stdout, views.NoChangesLine)
	}
	return nil
}

func showPlan(g *globalOptions, p *planner.Plan, opts views.Options) error {
	if events, closeEvents := eventsWriter(g); events != nil {
		defer closeEvents()
		return json.NewEncoder(events).Encode(struct {
			Type    string          `json:"type"`
			Summary planner.Summary `json:"summary"`
		}{Type: "plan", Summary: p.Summary()})
	}
	if g.output == "name" {
		return nil // only what was written is named, as it is
	}
	return views.Text(g.stdout, p, opts)
}

// eventsWriter is where -o json and -o yaml write their JSON events (YAML
// documents for -o yaml), and what to call when done; nil for other formats.
func eventsWriter(g *globalOptions) (io.Writer, func()) {
	switch g.output {
	case "json":
		return g.stdout, func() {}
	case "yaml":
		y := newYAMLStream(g.stdout)
		return y, func() { _ = y.Close() }
	}
	return nil, nil
}

// nameProgress prints ACTION ADDRESS, as plan -o name does, for each
// resource written or deleted (-o name), as it completes; once, as replace,
// though a replacement is both.
func nameProgress(w io.Writer) func(applier.Event) {
	named := map[string]bool{}
	return func(e applier.Event) {
		action, ok := doneActions[e.Outcome]
		if e.Type != applier.EventEnd || !ok || named[e.Address] {
			return
		}
		if e.Action == string(planner.ActionRecreate) {
			action = planner.ActionRecreate
		}
		named[e.Address] = true
		fmt.Fprintln(w, string(action)+" "+e.Address)
	}
}

// doneActions are the plan's actions by the outcome that carries them out.
var doneActions = map[applier.Outcome]planner.Action{
	applier.OutcomeCreated:  planner.ActionCreate,
	applier.OutcomeUpdated:  planner.ActionUpdate,
	applier.OutcomeReplaced: planner.ActionRecreate,
	applier.OutcomeDeleted:  planner.ActionDelete,
}

// confirm asks question and accepts only "yes"; without a terminal on
// standard input (a pipe, /dev/null, CI), or with --input=false, it refuses
// unless --auto-approve was given.
func (f *runFlags) confirm(g *globalOptions, question string) error {
	if f.autoApprove {
		return nil
	}
	if !g.input {
		return errors.New("--input=false: nothing is asked, so pass --auto-approve to proceed without confirmation")
	}
	in, ok := g.stdin.(*os.File)
	if !ok || !isTerminal(in) {
		return errors.New("no terminal to confirm on: pass --auto-approve to proceed without confirmation")
	}
	fmt.Fprintf(g.stderr, "\n%s Only 'yes' will be accepted: ", question)
	answer, _ := bufio.NewReader(in).ReadString('\n')
	if strings.TrimSpace(answer) != "yes" {
		return &exitError{code: 1, err: errors.New("cancelled: nothing was changed")}
	}
	return nil
}

// exitAtOnce ends the process on a second interrupt; tests replace it.
var exitAtOnce = func() { os.Exit(130) }

// applying is told the plan apply is about to carry out; tests use it to
// check that apply sends exactly the writes the plan announced.
var applying = func(*planner.Plan) {}

// execute runs apply or destroy with progress on stdout and Ctrl-C handling,
// then writes the end report.
func (f *runFlags) execute(g *globalOptions, parallelism int, do func(context.Context, applier.Options) *applier.Report, client *arm.Client) *applier.Report {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drain := make(chan struct{})
	flight := &inFlight{started: map[string]applier.Event{}, at: map[string]time.Time{}}
	var emit func(applier.Event)
	events, closeEvents := eventsWriter(g)
	switch {
	case events != nil:
		defer closeEvents()
		emit = applier.JSONProgress(events)
	case g.output == "name":
		emit = nameProgress(g.stdout)
	default:
		emit = applier.TextProgress(g.stdout)
		fmt.Fprintln(g.stdout)
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-signals:
		case <-done:
			return
		}
		close(drain)
		if f.interruptNote != "" {
			fmt.Fprint(g.stderr, f.interruptNote)
		} else {
			fmt.Fprintf(g.stderr, "\nInterrupt: no new work will start; waiting up to %s for %d operations in flight. Press Ctrl-C again to stop at once.\n", f.grace, flight.count())
		}
		timer := time.NewTimer(f.grace)
		defer timer.Stop()
		select {
		case <-signals:
			flight.write(g.stderr)
			exitAtOnce()
		case <-timer.C:
			cancel()
		case <-done:
		}
	}()
	rep := do(ctx, applier.Options{
		Client:      client,
		Parallelism: parallelism,
		// With or without a terminal: CI logs must not go quiet either.
		Heartbeat: f.progressInterval,
		Drain:     drain,
		Redact:    g.secrets.Add,
		Events: func(e applier.Event) {
			flight.note(e)
			emit(e)
		},
	})
	switch {
	case events != nil:
		_ = rep.WriteJSONSummary(events)
	case g.output == "name":
		if rep.Failed() || rep.Interrupted {
			rep.WriteText(g.stderr)
		}
	default:
		rep.WriteText(g.stdout)
	}
	return rep
}

// inFlight tracks the operations started and not ended, from the events.
type inFlight struct {
	mu      sync.Mutex
	started map[string]applier.Event
	at      map[string]time.Time
}

func (f *inFlight) note(e applier.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch e.Type {
	case applier.EventStart:
		f.started[e.Address], f.at[e.Address] = e, time.Now()
	case applier.EventEnd:
		delete(f.started, e.Address)
		delete(f.at, e.Address)
	}
}

func (f *inFlight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.started)
}

// write lists each operation in flight and how to check on it.
func (f *inFlight) write(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.started) == 0 {
		fmt.Fprintln(w, "Stopped. No operations were in flight.")
		return
	}
	addrs := make([]string, 0, len(f.started))
	for a := range f.started {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	fmt.Fprintf(w, "Stopped at once. These operations were in flight and may still be running in Azure:\n")
	for _, a := range addrs {
		e := f.started[a]
		fmt.Fprintf(w, "  %s %s (%s, for %s)\n    check: az resource show --ids %s --query properties.provisioningState\n",
			e.Method, e.ARMID, a, time.Since(f.at[a]).Round(time.Second), e.ARMID)
	}
	fmt.Fprintln(w, "Run azk plan again to see where things stand; apply converges from there.")
}
