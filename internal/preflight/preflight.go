// Package preflight asks Azure, before the first write, what it can tell
// about a plan: ARM's validation of the exact bodies, global names, provider
// registration and regional offerings, the caller's (or another
// principal's) permissions, Azure Policy, quotas, and what the operator's
// steady state costs in ARM's write budget. Every check uses ARM's own API
// and only reads (the POST checks among them, validate,
// checkNameAvailability and checkPolicyRestrictions, are read-only by ARM's
// definition); registering providers is the one write, and only on request
// (RegisterProviders). One file per check; Run runs them all and returns the
// findings the plan carries (planner.Preflight).
package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// Options shape the checks.
type Options struct {
	// As is the object ID of the principal whose permissions are evaluated
	// (the operator's identity); "" evaluates the caller's own.
	As string
	// RegisterProviders reports an unregistered provider as one apply will
	// register (a warning) rather than an error.
	RegisterProviders bool
	// Writes is ARM's write bucket for the steady-state check; zero means
	// arm.DefaultRateLimits.Writes.
	Writes arm.RateLimit
	// SyncPeriod is the operator's resync period; zero means DefaultSyncPeriod.
	SyncPeriod time.Duration
	// Prefix names the validation deployments (as azk export names its own).
	Prefix string
}

// Checks are the checks Run runs, in the order their findings are listed.
var Checks = []string{"validate", "names", "providers", "permissions", "policy", "quota", "steady-state", "locks", "soft-deleted", "cross-scope"}

// Run runs every check against Azure and returns their findings. A check
// that cannot ask Azure reports so as one error (code CheckFailed, see
// settle) and nothing else, and the others go on.
func Run(ctx context.Context, client *arm.Client, p *planner.Plan, opts Options) *planner.Preflight {
	r := &run{ctx: ctx, client: client, plan: p, opts: opts}
	funcs := map[string]func(*run) []planner.Finding{
		"validate": validate, "names": names, "providers": providers, "permissions": permissions,
		"policy": policy, "quota": quota, "steady-state": steadyState, "locks": locks,
		"soft-deleted": softDeleted, "cross-scope": crossScope,
	}
	results := make([][]planner.Finding, len(Checks))
	var wg sync.WaitGroup
	for i, name := range Checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = settle(funcs[name](r))
		}()
	}
	wg.Wait()
	out := &planner.Preflight{Checks: Checks, As: opts.As, Findings: []planner.Finding{}}
	// One finding per cause: validate's refusal is left out where another
	// check tells its cause, which lists what it affects (a provider not
	// registered, whatever --register-providers does about it, is one
	// finding however many of its resources ARM refuses).
	told := map[string]bool{}
	for _, fs := range results[1:] {
		for _, f := range fs {
			told[f.Address+"|"+f.Code] = true
		}
	}
	unregistered := registrationFindings(results[slices.Index(Checks, "providers")])
	for _, f := range results[0] {
		if !told[f.Address+"|"+sameAs[f.Code]] && !followsFromRegistration(f, unregistered) {
			out.Findings = append(out.Findings, f)
		}
	}
	for _, fs := range results[1:] {
		out.Findings = append(out.Findings, fs...)
	}
	out.Findings = withoutNameTakenBySoftDeleted(out.Findings)
	return out
}

// sameAs maps ARM's validation codes to the finding of the check that
// tells the same refusal in more detail: validate's is then left out.
var sameAs = map[string]string{
	"LocationNotAvailableForResourceType": "LocationNotOffered",
	"StorageAccountAlreadyTaken":          "NameAlreadyTaken",
	"VaultAlreadyExists":                  "NameAlreadyTaken",
	"NameNotAvailable":                    "NameAlreadyTaken",
	"RequestDisallowedByPolicy":           "PolicyDenied",
	"ConflictError":                       "SoftDeletedName",
	"BadRequest":                          "CrossScopeRefused",
	"AuthorizationFailed":                 "PermissionMissing",
}

// run is one pre-flight.
type run struct {
	ctx    context.Context
	client *arm.Client
	plan   *planner.Plan
	opts   Options

	mu        sync.Mutex
	providers map[string][]json.RawMessage // by subscription
}

// writes are the plan's resources that apply PUTs.
func (r *run) writes() []*planner.Resource {
	var out []*planner.Resource
	for _, res := range r.plan.Resources {
		if res.Writes() && res.ARMID != "" {
			out = append(out, res)
		}
	}
	return out
}

func finding(res *planner.Resource, check, code string, sev planner.Severity, format string, args ...any) planner.Finding {
	f := planner.Finding{Check: check, Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)}
	if res != nil {
		f.Address, f.Source, f.ARMID = res.Address, res.Source, res.ARMID
	}
	return f
}

// checkFailed is the error of a check that could not ask Azure: err names
// the request (method and path) and ARM's answer (status, code, message).
// It is the check's one finding (see settle), so it names no resource; res,
// when known, is the resource the request was for.
func checkFailed(res *planner.Resource, check string, err error) planner.Finding {
	asked := ""
	if res != nil {
		asked = " (asking for " + res.Address + ")"
	}
	return finding(nil, check, "CheckFailed", planner.SeverityError,
		"the %s check could not run, so it neither passed nor found anything: %v%s", check, err, asked)
}

// scopeOf is the resource group (else subscription) a resource lives in.
func scopeOf(id string) (sub, rg string) {
	parsed, err := armid.Parse(id)
	if err != nil {
		return "", ""
	}
	if len(parsed.Providers) == 0 {
		return parsed.Subscription, "" // a resource group is created in its subscription
	}
	return parsed.Subscription, parsed.ResourceGroup
}

func scopeID(sub, rg string) string {
	if rg == "" {
		return "/subscriptions/" + sub
	}
	return "/subscriptions/" + sub + "/resourceGroups/" + rg
}

// createdGroups are the resource groups the plan itself creates.
func (r *run) createdGroups() map[string]bool {
	out := map[string]bool{}
	for _, res := range r.plan.Resources {
		if res.Action == planner.ActionCreate && strings.EqualFold(res.ARMType, "Microsoft.Resources/resourceGroups") {
			out[strings.ToLower(res.ARMID)] = true
		}
	}
	return out
}

// bodyValue is the desired body without secrets or values known only after
// apply, as JSON-ready data: what a read-only check is shown.
func bodyValue(res *planner.Resource) map[string]any {
	v, _ := plain(res.Desired).(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	return v
}

func plain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if p := plain(e); p != nil {
				out[k] = p
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if p := plain(e); p != nil {
				out = append(out, p)
			}
		}
		return out
	case string, bool, float64, int, int64, json.Number, nil:
		return t
	}
	return nil // a secret or a value known after apply
}

// location is the resource's location, lower-cased without spaces.
func location(res *planner.Resource) string {
	l, _ := res.Desired["location"].(string)
	return normLocation(l)
}

func normLocation(l string) string { return strings.ToLower(strings.ReplaceAll(l, " ", "")) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
