package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/planner"
)

// Verdict is ARM's what-if prediction for one resource of the plan, beside
// azk's decision.
type Verdict struct {
	Address string
	// Azk is the plan's action.
	Azk planner.Action
	// ARM is what-if's change type (Create, Modify, NoChange, Deploy,
	// Unsupported, ...), or "" when ARM could not be asked (Err says why).
	ARM string
	// Paths are the properties ARM predicts a change of, with the kind of change.
	Paths []string
	// Reason is why ARM cannot predict it (Unsupported).
	Reason string
	Err    error
}

// Agrees reports whether ARM's verdict matches azk's decision.
func (v Verdict) Agrees() bool {
	switch v.Azk {
	case planner.ActionCreate:
		return v.ARM == "Create"
	case planner.ActionUpdate:
		return v.ARM == "Modify"
	case planner.ActionNoChange:
		return v.ARM == "NoChange"
	}
	return false
}

// WhatIf asks ARM's what-if about each template of the set (build it with
// Options.Unchanged, so that ARM judges the resources azk leaves alone too)
// and returns its verdict per resource, in plan order.
func WhatIf(ctx context.Context, client *arm.Client, p *planner.Plan, set *Set, prefix string) []Verdict {
	byID := map[string]Verdict{}
	for i, t := range set.Templates {
		changes, err := whatIfTemplate(ctx, client, t, Name(prefix, i))
		for _, r := range t.Resources {
			v := Verdict{Address: r.Address, Azk: r.Action, Err: err}
			if c, ok := changes[strings.ToLower(r.ARMID)]; ok {
				v.ARM, v.Paths, v.Reason = c.ChangeType, c.paths(), client.Redacted(c.UnsupportedReason)
			} else if err == nil {
				v.Err = fmt.Errorf("what-if did not mention it")
			}
			byID[r.Address] = v
		}
	}
	var out []Verdict
	for _, r := range p.Resources {
		if v, ok := byID[r.Address]; ok {
			out = append(out, v)
		}
	}
	return out
}

type whatIfChange struct {
	ResourceID        string `json:"resourceId"`
	ChangeType        string `json:"changeType"`
	UnsupportedReason string `json:"unsupportedReason"`
	Delta             []struct {
		Path               string `json:"path"`
		PropertyChangeType string `json:"propertyChangeType"`
	} `json:"delta"`
}

func (c whatIfChange) paths() []string {
	var out []string
	for _, d := range c.Delta {
		if d.PropertyChangeType != "NoEffect" {
			out = append(out, d.Path+" ("+d.PropertyChangeType+")")
		}
	}
	sort.Strings(out)
	return out
}

// whatIfTemplate posts one template to what-if and returns its changes by lower-cased resource ID.
func whatIfTemplate(ctx context.Context, client *arm.Client, t *Template, name string) (map[string]whatIfChange, error) {
	if len(t.Resources) > 0 {
		client = client.For(t.Resources[0].ARMID)
	}
	op, err := client.Post(ctx, t.Scope.DeploymentID(name)+"/whatIf", APIVersion, deploymentRequest(t))
	if err != nil {
		return nil, err
	}
	resp, err := op.Wait(ctx)
	if err != nil {
		return nil, err
	}
	var result struct {
		Error      *armErrorBody `json:"error"`
		Properties struct {
			Changes []whatIfChange `json:"changes"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &result); err != nil {
		return nil, fmt.Errorf("what-if of %s: %w", t.File, err)
	}
	if e := result.Error.responseError(client, "POST", t.Scope.DeploymentID(name)+"/whatIf", resp.CorrelationID); e != nil {
		return nil, e
	}
	out := map[string]whatIfChange{}
	for _, c := range result.Properties.Changes {
		out[strings.ToLower(c.ResourceID)] = c
	}
	return out, nil
}

// WriteVerdicts writes where ARM's what-if differs from azk's plan, then
// how many resources they agree on.
func WriteVerdicts(w io.Writer, verdicts []Verdict) {
	fmt.Fprintf(w, "\nARM what-if, for comparison (azk's plan above is what apply does):\n")
	agree := 0
	for _, v := range verdicts {
		switch {
		case v.Err != nil:
			fmt.Fprintf(w, "  ? %s: azk plans %s; ARM could not predict: %v\n", v.Address, v.Azk, v.Err)
		case v.Agrees():
			agree++
		default:
			fmt.Fprintf(w, "  ! %s: azk plans %s, ARM predicts %s\n", v.Address, v.Azk, v.ARM)
			if v.Reason != "" {
				fmt.Fprintf(w, "      %s\n", v.Reason)
			}
			for _, p := range v.Paths {
				fmt.Fprintf(w, "      %s\n", p)
			}
		}
	}
	fmt.Fprintf(w, "ARM agrees with azk on %d of %d resources.\n", agree, len(verdicts))
}
