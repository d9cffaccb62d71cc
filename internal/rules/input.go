package rules

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/views"
)

// Input is the document the plan's namespaces are evaluated over: the plan's
// JSON form (azk plan -o json, docs/plan-json.md), so that a rule reads
// input.resources[_].address, .armType, .action, .desired as conftest does
// on that output, with each resource also carrying
//
//   - current: Azure's body as the plan read it (absent when Azure does not
//     have it), each string holding a secret of the run replaced by
//     "(redacted)";
//   - manifest: the ASO object as the manifests declare it (absent for a
//     plan read from a file).
//
// Secrets are never in it: the desired body marks them "(sensitive)" where
// they enter, and the whole document is scrubbed of the run's secret values
// (secrets) at the end, as Azure's answers are.
func Input(p *planner.Plan, secrets *redact.Set) (map[string]any, error) {
	var buf bytes.Buffer
	if err := views.JSON(&buf, p); err != nil {
		return nil, err
	}
	doc := map[string]any{}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("reading the plan's JSON form: %w", err)
	}
	delete(doc, "policy") // the findings are the outcome, not the input
	entries, _ := doc["resources"].([]any)
	if len(entries) != len(p.Resources) {
		return nil, fmt.Errorf("the plan's JSON form holds %d resources, the plan %d", len(entries), len(p.Resources))
	}
	for i, r := range p.Resources {
		entry := entries[i].(map[string]any)
		if body := r.AzureBody(); body != nil {
			current, err := jsonValue(body)
			if err != nil {
				return nil, fmt.Errorf("%s: Azure's body: %w", r.Address, err)
			}
			entry["current"] = current
		}
		if m, err := manifestOf(r); err != nil {
			return nil, err
		} else if m != nil {
			entry["manifest"] = m
		}
	}
	scrubbed, _ := secrets.Value(doc)
	return scrubbed.(map[string]any), nil
}

// manifestOf is r's manifest object as decoded JSON; nil without one.
func manifestOf(r *planner.Resource) (map[string]any, error) {
	if r.Node == nil || r.Node.Object == nil || r.Node.Object.Node == nil {
		return nil, nil
	}
	m, err := r.Node.Object.Node.Map()
	if err != nil {
		return nil, fmt.Errorf("%s: reading its manifest: %w", r.Address, err)
	}
	v, err := jsonValue(m)
	if err != nil {
		return nil, fmt.Errorf("%s: its manifest: %w", r.Address, err)
	}
	return v.(map[string]any), nil
}

// jsonValue is v as encoding/json decodes it (numbers as json.Number), the
// form OPA takes as input, and a copy: the plan's values are never shared.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}
