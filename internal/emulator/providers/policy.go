package providers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// Azure Policy: policy definitions and assignments are stored through ARM's
// own APIs (Microsoft.Authorization/policyDefinitions, policyAssignments,
// at any scope); an assignment applies to the resources at its scope and
// below, except its notScopes, unless its enforcementMode is DoNotEnforce.
// A definition whose effect is deny refuses the writes its rule matches (403
// RequestDisallowedByPolicy), and POST {subscription or resource group}/providers/Microsoft.PolicyInsights/checkPolicyRestrictions
// evaluates a resource body against them without writing.
//
// The rule language modelled: allOf, anyOf, not; conditions on a field
// (type, name, location, kind, id, tags, tags['k'], identity.type, and
// aliases Namespace/type/path, which name the body path under properties
// unless the path starts with a top-level member such as sku) or a value,
// with equals, notEquals, in, notIn, like, notLike, contains, notContains,
// containsKey, notContainsKey, exists, less, lessOrEquals, greater,
// greaterOrEquals; "[parameters('p')]" values. Array aliases ([*]) hold when
// every item does. Initiatives (policy set definitions) are not modelled.

const (
	typePolicyAssignments = "Microsoft.Authorization/policyAssignments"
	typePolicyDefinitions = "Microsoft.Authorization/policyDefinitions"
)

type policy struct{ c *armcore.Core }

// policyCheck is one applicable assignment with its definition.
type policyCheck struct {
	assignmentID, definitionID string
	params                     map[string]any
	rule                       map[string]any
	effect                     string
}

// checksAt are the enforced assignments that apply to id, with their definitions.
func checksAt(tx armcore.Tx, id string, enforcedOnly bool) []policyCheck {
	var out []policyCheck
	for k, rec := range tx.Store().OfType(typePolicyAssignments) {
		if tx.Live(k) == nil {
			continue
		}
		var a struct {
			Properties struct {
				PolicyDefinitionID string                    `json:"policyDefinitionId"`
				Parameters         map[string]map[string]any `json:"parameters"`
				EnforcementMode    string                    `json:"enforcementMode"`
				NotScopes          []string                  `json:"notScopes"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(rec.Body, &a)
		i := strings.LastIndex(strings.ToLower(rec.ID), "/providers/microsoft.authorization/policyassignments/")
		if i < 0 || !covers(rec.ID[:i], id) || slices.ContainsFunc(a.Properties.NotScopes, func(s string) bool { return covers(s, id) }) {
			continue
		}
		if enforcedOnly && strings.EqualFold(a.Properties.EnforcementMode, "DoNotEnforce") {
			continue
		}
		def := tx.Live(armpath.Key(a.Properties.PolicyDefinitionID))
		if def == nil {
			continue
		}
		var d struct {
			Properties struct {
				Mode       string                    `json:"mode"`
				Parameters map[string]map[string]any `json:"parameters"`
				PolicyRule map[string]any            `json:"policyRule"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(def.Body, &d)
		params := map[string]any{}
		for name, p := range d.Properties.Parameters {
			if v, ok := p["defaultValue"]; ok {
				params[strings.ToLower(name)] = v
			}
		}
		for name, p := range a.Properties.Parameters {
			params[strings.ToLower(name)] = p["value"]
		}
		pc := policyCheck{assignmentID: rec.ID, definitionID: def.ID, params: params, rule: d.Properties.PolicyRule}
		then, _ := pc.rule["then"].(map[string]any)
		effect, _ := pc.value(then["effect"]).(string)
		pc.effect = strings.ToLower(effect)
		out = append(out, pc)
	}
	return out
}

// value resolves "[parameters('p')]" expressions.
func (pc policyCheck) value(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if m := paramExpr.FindStringSubmatch(s); m != nil {
		return pc.params[strings.ToLower(m[1])]
	}
	return v
}

var paramExpr = regexp.MustCompile(`^\[\s*parameters\('([^']+)'\)\s*\]$`)

// evaluated is one condition's evaluation, as checkPolicyRestrictions reports it.
type evaluated struct {
	Result          string `json:"result"`
	ExpressionKind  string `json:"expressionKind"`
	Expression      string `json:"expression"`
	Path            string `json:"path,omitempty"`
	ExpressionValue any    `json:"expressionValue"`
	TargetValue     any    `json:"targetValue"`
	Operator        string `json:"operator"`
}

var operators = []string{"equals", "notEquals", "in", "notIn", "like", "notLike", "contains", "notContains", "containsKey", "notContainsKey", "exists", "less", "lessOrEquals", "greater", "greaterOrEquals"}

// matches evaluates the rule's "if" on doc, collecting the field conditions.
func (pc policyCheck) matches(doc map[string]any, typ string) (bool, []evaluated) {
	var trail []evaluated
	cond, _ := pc.rule["if"].(map[string]any)
	ok := pc.eval(cond, doc, typ, &trail)
	return ok, trail
}

func (pc policyCheck) eval(cond map[string]any, doc map[string]any, typ string, trail *[]evaluated) bool {
	if list, ok := cond["allOf"].([]any); ok {
		for _, c := range list {
			m, _ := c.(map[string]any)
			if !pc.eval(m, doc, typ, trail) {
				return false
			}
		}
		return true
	}
	if list, ok := cond["anyOf"].([]any); ok {
		for _, c := range list {
			m, _ := c.(map[string]any)
			if pc.eval(m, doc, typ, trail) {
				return true
			}
		}
		return false
	}
	if c, ok := cond["not"].(map[string]any); ok {
		return !pc.eval(c, doc, typ, trail)
	}
	var values []any
	kind, expr, bodyPath := "Value", "", ""
	if f, ok := cond["field"].(string); ok {
		kind, expr = "Field", f
		bodyPath = fieldPath(f, typ)
		values = lookupAll(doc, bodyPath)
	} else {
		values = []any{pc.value(cond["value"])}
		expr = fmt.Sprint(cond["value"])
	}
	for _, op := range operators {
		target, ok := cond[op]
		if !ok {
			continue
		}
		target = pc.value(target)
		result := true
		if len(values) == 0 {
			result = applyOp(op, nil, false, target)
		}
		for _, v := range values {
			if !applyOp(op, v, true, target) {
				result = false
			}
		}
		var shown any
		if len(values) == 1 {
			shown = values[0]
		} else if len(values) > 1 {
			shown = values
		}
		*trail = append(*trail, evaluated{Result: titleCase(strconv.FormatBool(result)), ExpressionKind: kind, Expression: expr, Path: bodyPath,
			ExpressionValue: shown, TargetValue: target, Operator: strings.ToUpper(op[:1]) + op[1:]})
		return result
	}
	return false
}

// topLevel are the body members an alias path names directly.
var topLevel = []string{"sku", "kind", "identity", "location", "tags", "zones", "plan", "extendedLocation", "properties", "name", "type", "id"}

// fieldPath is the body path a policy field names.
func fieldPath(field, typ string) string {
	switch strings.ToLower(field) {
	case "type", "name", "location", "kind", "id", "tags", "identity.type":
		return strings.ToLower(field[:1]) + field[1:]
	}
	if m := tagField.FindStringSubmatch(field); m != nil {
		return "tags." + m[1] + m[2] + m[3]
	}
	rest := field
	if len(field) > len(typ) && strings.EqualFold(field[:len(typ)+1], typ+"/") {
		rest = field[len(typ)+1:]
	} else if i := strings.LastIndexByte(field, '/'); i >= 0 {
		rest = field[i+1:]
	}
	first := rest
	if i := strings.IndexAny(first, ".["); i >= 0 {
		first = first[:i]
	}
	if slices.Contains(topLevel, first) {
		return rest
	}
	return "properties." + rest
}

var tagField = regexp.MustCompile(`^tags(?:\['([^']+)'\]|\[([^\]]+)\]|\.(.+))$`)

// lookupAll reads the values at a body path, "[*]" standing for every item.
func lookupAll(doc any, p string) []any {
	segs := strings.Split(strings.ReplaceAll(p, "[*]", ".[*]"), ".")
	cur := []any{doc}
	for _, s := range segs {
		var next []any
		for _, c := range cur {
			switch {
			case s == "[*]":
				list, _ := c.([]any)
				next = append(next, list...)
			default:
				m, _ := c.(map[string]any)
				for k, v := range m {
					if strings.EqualFold(k, s) {
						next = append(next, v)
					}
				}
			}
		}
		cur = next
	}
	return cur
}

func applyOp(op string, v any, present bool, target any) bool {
	switch op {
	case "exists":
		want, _ := target.(bool)
		if s, ok := target.(string); ok {
			want = strings.EqualFold(s, "true")
		}
		return present == want
	case "equals":
		return present && equalValues(v, target)
	case "notEquals":
		return !present || !equalValues(v, target)
	case "in", "notIn":
		list, _ := target.([]any)
		in := present && slices.ContainsFunc(list, func(t any) bool { return equalValues(v, t) })
		return in == (op == "in")
	case "like", "notLike":
		s, _ := v.(string)
		pat, _ := target.(string)
		ok, _ := path.Match(strings.ToLower(pat), strings.ToLower(s))
		return present && ok == (op == "like")
	case "contains", "notContains":
		s, _ := v.(string)
		t, _ := target.(string)
		c := present && strings.Contains(strings.ToLower(s), strings.ToLower(t))
		return c == (op == "contains")
	case "containsKey", "notContainsKey":
		m, _ := v.(map[string]any)
		t, _ := target.(string)
		_, has := m[t]
		return has == (op == "containsKey")
	case "less", "lessOrEquals", "greater", "greaterOrEquals":
		a, okA := number(v)
		b, okB := number(target)
		if !present || !okA || !okB {
			return false
		}
		switch op {
		case "less":
			return a < b
		case "lessOrEquals":
			return a <= b
		case "greater":
			return a > b
		}
		return a >= b
	}
	return false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// equalValues compares policy values: strings case-insensitively, numbers by value.
func equalValues(a, b any) bool {
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			return strings.EqualFold(sa, sb)
		}
	}
	if na, ok := number(a); ok {
		if nb, ok := number(b); ok {
			if _, isStr := a.(string); !isStr {
				return na == nb
			}
		}
	}
	return reflect.DeepEqual(a, b) || fmt.Sprint(a) == fmt.Sprint(b)
}

// policyDocument is a body as policy rules see it: with its type, name and ID.
func policyDocument(body map[string]any, typ, name, id string) map[string]any {
	doc := map[string]any{}
	for k, v := range body {
		doc[k] = v
	}
	doc["type"], doc["name"], doc["id"] = policyType(typ), name, id
	return doc
}

// policyType is a type as policy rules name it (a resource group is
// Microsoft.Resources/subscriptions/resourceGroups).
func policyType(typ string) string { return typeForAction(typ) }

// denial is the first deny that applies to a write of doc to id.
func denial(tx armcore.Tx, doc map[string]any, id, typ string) (policyCheck, []evaluated, bool) {
	for _, pc := range checksAt(tx, id, true) {
		if pc.effect != "deny" {
			continue
		}
		if ok, trail := pc.matches(doc, policyType(typ)); ok {
			return pc, trail, true
		}
	}
	return policyCheck{}, nil, false
}

// ValidateWrite refuses a write a deny policy covers.
func (policy) ValidateWrite(tx armcore.Tx, _ *http.Request, t armpath.Target, body map[string]any, _ bool) error {
	if strings.EqualFold(armpath.NamespaceOf(t.Type), "Microsoft.Authorization") || strings.EqualFold(t.Type, typeProviderRegistration) {
		return nil
	}
	pc, _, denied := denial(tx, policyDocument(body, t.Type, t.Name, t.ID), t.ID, t.Type)
	if !denied {
		return nil
	}
	ids, _ := json.Marshal([]map[string]any{{
		"policyAssignment": map[string]any{"name": lastSegment(pc.assignmentID), "id": pc.assignmentID},
		"policyDefinition": map[string]any{"name": lastSegment(pc.definitionID), "id": pc.definitionID},
	}})
	return armcore.Errorf(http.StatusForbidden, "RequestDisallowedByPolicy", "Resource '%s' was disallowed by policy. Policy identifiers: '%s'.", t.Name, ids)
}

// Route answers checkPolicyRestrictions at a subscription or resource group.
func (po policy) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (bool, error) {
	if t.Kind != armpath.Collection || r.Method != http.MethodPost || t.ParentIsResource || !strings.EqualFold(t.Type, "Microsoft.PolicyInsights/checkPolicyRestrictions") {
		return false, nil
	}
	req, err := armcore.DecodeObject(body)
	if err != nil {
		return true, err
	}
	details, _ := req["resourceDetails"].(map[string]any)
	content, _ := details["resourceContent"].(map[string]any)
	if content == nil {
		return true, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "resourceDetails.resourceContent is required.")
	}
	typ, _ := content["type"].(string)
	name, _ := content["name"].(string)
	scope := t.Parent
	if s, _ := details["scope"].(string); s != "" {
		scope = s
	}
	id := scope + "/providers/" + typ + "/" + name
	if strings.EqualFold(typ, armpath.TypeResourceGroup) || strings.EqualFold(typ, "Microsoft.Resources/subscriptions/resourceGroups") {
		id = "/subscriptions/" + t.Sub + "/resourceGroups/" + name
	}
	includeAudit, _ := req["includeAuditEffect"].(bool)
	evaluations := []map[string]any{}
	restrictions := map[string][]map[string]any{}
	_ = po.c.Read(func(tx armcore.Tx) error {
		doc := policyDocument(content, typ, name, id)
		for _, pc := range checksAt(tx, id, false) {
			if pc.effect != "deny" && !(includeAudit && pc.effect == "audit") {
				continue
			}
			ok, trail := pc.matches(doc, policyType(typ))
			info := map[string]any{"policyAssignmentId": pc.assignmentID, "policyDefinitionId": pc.definitionID, "policySetDefinitionId": "", "policyDefinitionReferenceId": ""}
			if ok {
				evaluations = append(evaluations, map[string]any{
					"policyInfo": info, "evaluationResult": "NonCompliant",
					"evaluationDetails": map[string]any{"evaluatedExpressions": trail},
					"effectDetails":     map[string]any{"policyEffect": titleCase(pc.effect)},
				})
			}
			for _, e := range trail {
				if e.ExpressionKind == "Field" && (e.Operator == "In" || e.Operator == "NotIn" || e.Operator == "Equals") {
					restrictions[e.Expression] = append(restrictions[e.Expression], map[string]any{"result": "Deny", "values": e.TargetValue, "policy": info, "policyEffect": titleCase(pc.effect)})
				}
			}
		}
		return nil
	})
	fields := []map[string]any{}
	pending, _ := req["pendingFields"].([]any)
	for _, p := range pending {
		pf, _ := p.(map[string]any)
		f, _ := pf["field"].(string)
		if rs := restrictions[f]; len(rs) > 0 {
			fields = append(fields, map[string]any{"field": f, "restrictions": rs})
		}
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"fieldRestrictions": fields, "contentEvaluationResult": map[string]any{"policyEvaluations": evaluations}})
	return true, nil
}

// titleCase capitalises the first letter, as ARM spells effects and results.
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
