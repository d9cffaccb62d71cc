package preflight

import (
	"errors"
	"net/http"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/planner"
)

// names asks each provider's name check (extensions.NameChecks, from the
// REST specs) about every name the plan creates that must be unique across
// Azure. A create's resource does not exist, so a name in use is someone
// else's: an error (NameAlreadyTaken), as is a name the provider calls
// invalid (NameInvalid).
func names(r *run) []planner.Finding {
	var out []planner.Finding
	for _, res := range r.writes() {
		if res.Action != planner.ActionCreate {
			continue
		}
		check, ok := extensions.NameCheckFor(res.ARMType)
		if !ok {
			continue
		}
		name := lastSegment(res.ARMID)
		if len(check.FromBody) > 0 {
			v, _ := armjson.Lookup(res.Desired, check.FromBody)
			if name, _ = v.(string); name == "" {
				continue
			}
		}
		avail, reason, message, err := r.askName(res, check, name)
		switch {
		case err != nil:
			return []planner.Finding{checkFailed(res, "names", err)}
		case avail:
		case reason != "" && reason == check.InvalidReason:
			out = append(out, finding(res, "names", "NameInvalid", planner.SeverityError, "the name %q is not valid for %s: %s", name, res.ARMType, message))
		default:
			out = append(out, finding(res, "names", "NameAlreadyTaken", planner.SeverityError,
				"the name %q of %s is taken by someone else in Azure (names of this type are global): choose another. %s", name, res.ARMType, message))
		}
	}
	return out
}

// askName sends one check in the provider's form and reads its answer.
func (r *run) askName(res *planner.Resource, check extensions.NameCheck, name string) (available bool, reason, message string, err error) {
	sub, rg := scopeOf(res.ARMID)
	ns := check.Namespace()
	var path string
	switch check.Scope {
	case extensions.NameAtTenant:
		exists, err := r.client.Exists(r.ctx, "/providers/"+ns+"/"+check.Operation+"/"+name, res.APIVersion)
		if err != nil || !exists {
			return !exists, "", "", err
		}
		return false, check.TakenReason, "ARM says an account of that name exists.", nil
	case extensions.NameAtLocation:
		path = "/subscriptions/" + sub + "/providers/" + ns + "/locations/" + location(res) + "/" + check.Operation
	case extensions.NameAtResourceGroup:
		path = scopeID(sub, rg) + "/providers/" + ns + "/" + check.Operation
	default:
		path = "/subscriptions/" + sub + "/providers/" + ns + "/" + check.Operation
	}
	field := check.NameField
	if field == "" {
		field = "name"
	}
	body := map[string]any{field: name}
	if check.RequestType != "" {
		body["type"] = check.RequestType
	}
	op, err := r.client.Post(r.ctx, path, res.APIVersion, body)
	var resp *arm.Response
	if err == nil {
		resp, err = op.Wait(r.ctx)
	}
	var re *arm.ResponseError
	if check.Answer == extensions.AnswerEmpty && errors.As(err, &re) && re.StatusCode >= 400 && re.StatusCode < 500 && re.StatusCode != http.StatusNotFound {
		return false, re.Code, re.Message, nil // the provider answers a name in use with an error
	}
	if err != nil {
		return false, "", "", err
	}
	if check.Answer == extensions.AnswerEmpty {
		return true, "", "", nil
	}
	var a map[string]any
	if len(resp.Body) > 0 {
		if err := jsonUnmarshal(resp.Body, &a); err != nil {
			return false, "", "", err
		}
	}
	reason, _ = a["reason"].(string)
	message, _ = a["message"].(string)
	switch check.Answer {
	case extensions.AnswerNameAvailability:
		s, _ := a["nameAvailability"].(string)
		return s == "Available", reason, message, nil
	case extensions.AnswerSubdomain:
		ok, _ := a["isSubdomainAvailable"].(bool)
		return ok, "", reason, nil
	}
	ok, _ := a[string(check.Answer)].(bool)
	return ok, reason, message, nil
}
