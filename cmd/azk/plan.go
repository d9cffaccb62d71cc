package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/diag"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

func init() { subcommands = append(subcommands, newPlanCommand) }

func newPlanCommand(g *globalOptions) *cobra.Command {
	var (
		in              inputFlags
		az              azureFlags
		pf              planFlags
		sel             selectFlags
		out             string
		detailed, drift bool
		whatIf          bool
		pre             preflightFlags
		destroy         bool
		rules           rulesFlags
	)
	cmd := &cobra.Command{
		Use:   "plan PATH... [-k DIR] [-o text|json|yaml|markdown|name] [-out FILE]",
		Short: "Show what applying the manifests would do to Azure, resource by resource",
		Long: `Plan reads the current state of every resource from Azure and decides what
applying would do, and that is exactly what azk apply does: a PUT for each
resource to create or update, nothing else. Each decision carries its reason:
created (missing in Azure), updated (the PUT changes it, or its last
provisioning failed, or --send-secrets asked for it), unchanged, skipped
(reconcile-policy skip), blocked (with why). Updates list every property the
PUT changes, including what it removes: tags and map keys Azure holds beyond
the manifests, items Azure has beyond a list. Secrets print as (sensitive),
values that depend on resources not yet created as (known after apply).
Nothing is written to Azure.

Resources that stay as they are are one count line (--show-unchanged lists
them); with nothing to do the plan says "No changes. Azure matches the
manifests.", and it needs no state of its own to say so.

  -o text      for people (default), coloured on a terminal
  -o json      versioned, documented in docs/plan-json.md
  -o yaml      the JSON form as YAML
  -o markdown  a pull-request comment: changes, blocked and replace-required
               first; trimmed to fit a comment, never dropping a change
  -o name      ACTION ADDRESS for each resource the plan writes or deletes,
               one a line: create, update, replace or delete (as apply -o
               name prints what it did)

Adoption, as the operator does it: an existing resource without a
reconcile-policy annotation is taken over under
serviceoperator.azure.com/reconcile-policy-if-exists, else
--reconcile-policy-if-exists, else manage. Under manage, found and created
resources behave alike. Under another if-exists policy, apply records the
outcome in the manifest (reconcile-policy: manage for what it creates, the
if-exists policy for what it finds), so the next run does not mistake a
created resource for a found one.

--base GITREF|DIR makes the plan three-way, as Terraform compares the
configuration, the prior state and Azure: the base (the manifests before the
change under review, a git revision or a checkout) is the prior state. Each
difference says its origin: "change" where the manifests changed since the
base (this pull request), "drift" where they did not and Azure differs
(apply reverts it); text and markdown list "This change" first, then "Drift
Azure already has". A resource the base holds and the manifests do not is
planned as the operator treats a deleted object: delete under manage (after
every create and update, children before parents, ARM's cascade reported as
such), left in Azure under detach-on-delete or skip. A v1 Secret whose value
changed since the base makes each resource that sends it an update
(compared by digest, never shown). A resource the change adds that already
exists in Azure is flagged "adopt", with what destroy would do to it.
Without --base a removed resource is not seen: it shows under unmanaged.
An all-zero revision (github.event.before on a branch's first push) names
no earlier manifests: the plan is two-way, with a notice. A revision a
shallow checkout lacks is an error naming the fix (fetch-depth: 0).

-replace=ADDRESS (repeatable, Terraform's flag; --replace too) deletes the
resource and creates it again, with its children in the manifests (ARM
deletes them with it); what else ARM would delete with it needs
--allow-cascade at apply. A change Azure cannot make in place (a location)
is "replace-required", an error that names this flag.

--destroy (Terraform's -destroy) plans tearing the inputs down: what azk
destroy would do, as a plan in every output form. Each resource Azure has is
deleted (a child whose parent is deleted goes with it: "deleted by ARM with"
the parent, no request of its own) or, under detach-on-delete or skip, left
in Azure (detach); under "cascade" each deletion lists what it would take
along that the manifests do not delete, which destroy refuses unless
--allow-cascade. With --detailed-exitcode, 2 means something would be
deleted (1 when the cascade guard refuses). Saved with --out, azk destroy PLANFILE carries it out (so does azk
apply PLANFILE, as terraform apply does with a destroy plan), without asking,
and refuses it when anything moved since. --target and --selector choose as
destroy does: the resources and what depends on them.

Ignore drift on chosen properties with the annotation
azk.azkcli.io/ignore-changes: "tags.owner, properties.sku.capacity" (paths as
the plan prints them): the PUT carries Azure's value there. The operator does
not honour it.

Drift (what Azure holds that the manifests do not say) follows each
resource's drift policy: the annotation azk.azkcli.io/drift, on the resource
or its Namespace, else --drift-policy. enforce (the default, the operator's
behaviour) lists what the PUT resets; merge sends the manifests' body laid
over Azure's, so only the fields they set change, and lists what it keeps;
reflect keeps Azure's values wherever Azure differs ("Azure changed, the
manifests will follow"), for azk refresh to write into the manifests. The
operator always enforces: the plan says where that differs.

Azure never returns secrets, so the plan cannot see one change: resources
with secrets say so, and --send-secrets ADDRESS sends them again.

--preflight asks Azure, before any write, what it can tell: ARM's own
validation of the exact bodies (deployment validate of the templates azk
export builds), names that must be unique across Azure (each provider's
checkNameAvailability), provider registration and the regions and
api-versions each type is offered in, the permissions every request needs
(--as PRINCIPAL_ID: those of the operator's identity, from its role
assignments), Azure Policy deny rules (checkPolicyRestrictions), regional
quotas (usages), and what the operator's resync of these resources costs in
ARM's write budget (--sync-period). Findings are listed under Pre-flight,
each against its resource, with a code; an error makes the plan fail and
azk apply --preflight refuse. It only reads (and sends the checks ARM
documents as read-only).

--policy PATH (repeatable, a Rego file or folder) evaluates the team's own
rules over the plan with Open Policy Agent, as conftest does (package main,
or --policy-namespace; deny, violation and warn rules returning messages):
findings are listed beside their resource and under Policy, a denial fails
the plan and azk apply --policy refuses to start. --require
no-delete,no-replace,no-drift exits 3 when the plan holds more than that,
for pipelines that apply harmless plans without a human. docs/policy.md
documents the input document (--policy-input FILE writes it).

Exit status: 0 success, 1 error (anything blocked, a change Azure cannot
make in place, a pre-flight error, or a policy's denial); with --detailed-exitcode, 0 no changes, 2 changes present,
1 error or a plan apply would refuse (the cascade guard's, or a
reconcile-policy it cannot record). With --drift, 2 means something drifted.
3: the plan holds more than --require allows (and nothing is an error),
with or without --detailed-exitcode.

--target ADDRESS (repeatable) and -l/--selector LABELS plan part of the
inputs: the resources chosen and what they depend on. The whole input is
still read and resolved (owners outside the selection resolve); the rest is
not planned, and a warning says so.

A new Azure name or owner is a new ARM ID: the plan cannot tell a rename or a
move from a new resource, and shows a create (with a note naming unmanaged
resources of the same type in its resource group).`,
		Example: `  azk plan ./manifests --out plan.azk
  azk plan ./manifests -o markdown --base origin/main > comment.md
  azk plan ./manifests --drift --detailed-exitcode
  azk plan ./manifests --destroy -o markdown > teardown.md
  azk plan ./manifests -destroy -out destroy.azk && azk destroy destroy.azk
  azk plan ./manifests --base HEAD~1 -o json
  azk plan ./manifests -replace=UserAssignedIdentity/default/app-id
  azk plan ./manifests --target VirtualNetworksSubnet/web
  azk plan ./manifests -l app=web
  azk plan ./manifests --preflight --as 00000000-0000-0000-0000-000000000000`,
		Args: in.requireInputs,
		RunE: func(cmd *cobra.Command, args []string) error {
			write, err := planWriter(g, pf.render(g))
			if err != nil {
				return err
			}
			if drift && out != "" {
				return fmt.Errorf("--drift makes a report, not a plan to apply: it cannot be saved with --out")
			}
			if err := rules.load(cmd.Context()); err != nil {
				return err
			}
			selected := graph.WithDependencies
			if destroy {
				if err := destroyPlanConflicts(&pf, drift, whatIf); err != nil {
					return err
				}
				selected = graph.WithDependents // as destroy chooses
			}
			ctx := cmd.Context()
			session, diags, err := openSession(ctx, g, &az, &in, args, &sel, selected)
			if err != nil {
				return err
			}
			defer session.release()
			var p *planner.Plan
			var more diag.List
			if destroy {
				p, more = session.planDestroy(ctx, &pf, planInputs(g, &in, args, &sel), g.secrets)
			} else {
				p, more = session.plan(ctx, g, &in, &pf, planInputs(g, &in, args, &sel), drift)
			}
			diags = append(diags, more...)
			printDiagnostics(g.stderr, diags)
			if p == nil {
				return failed()
			}
			if err := pre.check(ctx, g, &az, session.client, p); err != nil {
				return err
			}
			if err := rules.check(ctx, g, p); err != nil {
				return err
			}
			if err := write(p); err != nil {
				return err
			}
			if whatIf && !p.Drift {
				crossCheck(ctx, g, session.client, p)
			}
			verb, what := "apply", "apply it" // the command that carries the plan out
			if p.Destroy {
				verb, what = "destroy", "carry it out"
			}
			if out != "" && planLevelErrors(diags) {
				// An error that belongs to no resource (a --send-secrets
				// address that names nothing) makes the plan not one to
				// apply; a resource's failed read is its decision
				// (blocked), which a saved plan keeps as a plan on screen does.
				fmt.Fprintf(g.stderr, "The plan was not saved to %s: it has the errors above\n", out)
			} else if out != "" {
				if err := planfile.Save(out, p); err != nil {
					return fmt.Errorf("saving the plan: %w", err)
				}
				fmt.Fprintf(g.stderr, "Saved the plan to %s (made against %s): %s with %s\n", out, p.Endpoint, what, applyHint(verb, out))
			}
			if s := p.Summary(); s.Blocked > 0 {
				fmt.Fprintf(g.stderr, "Error: %s blocked (see the reasons above): azk apply refuses to start unless --allow-partial\n", plural(s.Blocked, "resource"))
			}
			if n := p.Preflight.Errors(); n > 0 {
				fmt.Fprintf(g.stderr, "Error: the pre-flight found %s (see above): azk apply --preflight refuses to start\n", plural(n, "error"))
			}
			rules.report(g, p)
			if line := views.CascadeLine(p); line != "" {
				fmt.Fprintf(g.stderr, "Warning: %s azk %s refuses unless --allow-cascade\n", line, verb)
			}
			unrecorded := unrecordedPolicies(p)
			if len(unrecorded) > 0 {
				fmt.Fprintf(g.stderr, "Warning: azk apply must record the reconcile-policy of these resources in manifests that are not plain files (standard input, kustomize output), and refuses unless --allow-unrecorded-policy:\n  %s\n", strings.Join(unrecorded, "\n  "))
			}
			switch {
			case diags.HasErrors() || p.HasErrors():
				return failed()
			case detailed && (len(unrecorded) > 0 || len(cascades(p)) > 0):
				return failed() // apply would refuse it
			case rules.unmet(p) != nil:
				return rules.unmet(p)
			case detailed && p.HasChanges():
				return &exitError{code: 2}
			}
			return nil
		},
	}
	in.register(cmd)
	in.registerDefaultPolicy(cmd)
	az.register(cmd)
	pf.register(cmd)
	sel.register(cmd, "what it depends on")
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "save the plan to FILE for azk apply and azk show (secrets saved as salted argon2id digests, never their values)")
	f.BoolVar(&detailed, "detailed-exitcode", false, "exit 0 when there are no changes, 2 when there are, 1 on error")
	f.BoolVar(&drift, "drift", false, "report only what changed in Azure against the manifests, proposing nothing")
	pre.register(cmd, false)
	rules.register(cmd, false)
	f.BoolVar(&destroy, "destroy", false, "plan destroying every resource of the inputs, as azk destroy would (Terraform's -destroy): deleted, deleted by ARM with their parent, detached, refused by the cascade guard; save it with --out for azk destroy PLANFILE")
	f.BoolVar(&whatIf, "what-if", false, "also ask ARM's what-if about the same changes (as deployment templates) and show where its verdict differs from azk's; azk's plan stays the one apply carries out")
	return cmd
}

// planWriter picks the renderer for -o.
func planWriter(g *globalOptions, opts views.Options) (func(*planner.Plan) error, error) {
	switch g.output {
	case "text":
		return func(p *planner.Plan) error { return views.Text(g.stdout, p, opts) }, nil
	case "json":
		return func(p *planner.Plan) error { return views.JSON(g.stdout, p) }, nil
	case "yaml":
		return func(p *planner.Plan) error {
			return asYAML(g.stdout, func(w io.Writer) error { return views.JSON(w, p) })
		}, nil
	case "markdown":
		return func(p *planner.Plan) error { return views.Markdown(g.stdout, p, opts) }, nil
	case "name":
		// ACTION ADDRESS for what the plan writes or deletes, as apply -o name prints it.
		return func(p *planner.Plan) error {
			var names []string
			for _, r := range p.Resources {
				if r.Writes() || r.Action == planner.ActionDelete {
					names = append(names, string(r.Action)+" "+r.Address)
				}
			}
			return writeNames(g.stdout, names)
		}, nil
	}
	return nil, fmt.Errorf("unknown output format %q: use %s", g.output, orList(outputFormats["plan"]))
}

// planLevelErrors reports an error of the run that belongs to no resource.
func planLevelErrors(diags diag.List) bool {
	for _, d := range diags {
		if d.Severity == diag.SeverityError && d.Resource == "" {
			return true
		}
	}
	return false
}
