package preflight

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// PolicyInsightsAPIVersion is the api-version of checkPolicyRestrictions.
const PolicyInsightsAPIVersion = "2022-03-01"

// policy asks Azure Policy what it would refuse: POST
// {resource group}/providers/Microsoft.PolicyInsights/checkPolicyRestrictions
// with each written body (at the subscription for a group the plan
// creates, and for groups themselves). A non-compliant evaluation of a deny
// policy is an error naming the assignment and the fields it restricts with
// the values it allows. Secrets and values known only after apply are left
// out of the body sent.
func policy(r *run) []planner.Finding {
	var out []planner.Finding
	created := r.createdGroups()
	for _, res := range r.writes() {
		sub, rg := scopeOf(res.ARMID)
		if sub == "" {
			continue
		}
		if created[strings.ToLower(scopeID(sub, rg))] {
			rg = ""
		}
		content := bodyValue(res)
		content["type"], content["name"] = res.ARMType, lastSegment(res.ARMID)
		req := map[string]any{
			"resourceDetails": map[string]any{"resourceContent": content, "apiVersion": res.APIVersion},
			"pendingFields":   []map[string]any{{"field": "location"}, {"field": "tags"}},
		}
		op, err := r.client.Post(r.ctx, scopeID(sub, rg)+"/providers/Microsoft.PolicyInsights/checkPolicyRestrictions", PolicyInsightsAPIVersion, req)
		if err != nil {
			return []planner.Finding{checkFailed(res, "policy", err)}
		}
		resp, err := op.Wait(r.ctx)
		if err != nil {
			return []planner.Finding{checkFailed(res, "policy", err)}
		}
		var result struct {
			ContentEvaluationResult struct {
				PolicyEvaluations []struct {
					PolicyInfo struct {
						PolicyAssignmentID string `json:"policyAssignmentId"`
						PolicyDefinitionID string `json:"policyDefinitionId"`
					} `json:"policyInfo"`
					EvaluationResult  string `json:"evaluationResult"`
					EvaluationDetails struct {
						EvaluatedExpressions []struct {
							Result          string `json:"result"`
							ExpressionKind  string `json:"expressionKind"`
							Expression      string `json:"expression"`
							Path            string `json:"path"`
							ExpressionValue any    `json:"expressionValue"`
							TargetValue     any    `json:"targetValue"`
							Operator        string `json:"operator"`
						} `json:"evaluatedExpressions"`
					} `json:"evaluationDetails"`
					EffectDetails struct {
						PolicyEffect string `json:"policyEffect"`
					} `json:"effectDetails"`
				} `json:"policyEvaluations"`
			} `json:"contentEvaluationResult"`
		}
		if err := json.Unmarshal(resp.Body, &result); err != nil {
			return []planner.Finding{checkFailed(res, "policy", err)}
		}
		for _, ev := range result.ContentEvaluationResult.PolicyEvaluations {
			if !strings.EqualFold(ev.EvaluationResult, "NonCompliant") || ev.EffectDetails.PolicyEffect != "" && !strings.EqualFold(ev.EffectDetails.PolicyEffect, "deny") {
				continue
			}
			var fields []string
			for _, e := range ev.EvaluationDetails.EvaluatedExpressions {
				if e.ExpressionKind != "Field" {
					continue
				}
				what := e.Path
				if what == "" {
					what = e.Expression
				}
				fields = append(fields, fmt.Sprintf("%s is %s (the rule: %s %s)", what, show(e.ExpressionValue), e.Operator, show(e.TargetValue)))
			}
			out = append(out, finding(res, "policy", "PolicyDenied", planner.SeverityError,
				"the policy assignment %s (definition %s) denies this body: %s", lastSegment(ev.PolicyInfo.PolicyAssignmentID), lastSegment(ev.PolicyInfo.PolicyDefinitionID), strings.Join(fields, "; ")))
		}
	}
	return out
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
