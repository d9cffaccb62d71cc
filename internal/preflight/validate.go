package preflight

import (
	"errors"
	"fmt"
	"strings"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/planner"
)

// validate asks ARM's deployment validation about the exact bodies apply
// sends: the templates azk export builds (creates and updates only), each
// POSTed to {scope}/providers/Microsoft.Resources/deployments/{name}/validate.
// A value known only after apply is a reference() expression, as in a
// deployment (deployment.Options.Validation: also one no template computes),
// so validation sees the property there and checks the rest.
// The request carries the secret parameters, as a deployment would; no
// answer is printed unredacted. Each refusal is mapped back to its
// resource by the detail's target (the resource's ID or name), else by the
// ID or name its message quotes; one no resource can be told from is
// reported against the template's scope.
func validate(r *run) []planner.Finding {
	set, err := deployment.Build(r.plan, deployment.Options{Validation: true})
	if err != nil {
		return []planner.Finding{finding(nil, "validate", "CheckFailed", planner.SeverityWarning, "the plan cannot be built into templates: %v", err)}
	}
	var out []planner.Finding
	for i, t := range set.Templates {
		name := deployment.Name(r.prefix(), i)
		client := r.client
		if len(t.Resources) > 0 {
			client = client.For(t.Resources[0].ARMID)
		}
		op, err := client.Post(r.ctx, t.Scope.DeploymentID(name)+"/validate", deployment.APIVersion, t.Request())
		if err == nil {
			_, err = op.Wait(r.ctx)
		}
		var re *arm.ResponseError
		switch {
		case err == nil:
			continue
		case !errors.As(err, &re) || re.StatusCode >= 500 || re.StatusCode == 0 && re.Code == "":
			out = append(out, finding(nil, "validate", "CheckFailed", planner.SeverityWarning, "could not validate %s (%s): %v", t.File, t.Scope, err))
			continue
		}
		if len(re.Details) == 0 {
			res := attribute(t.Resources, "", re.Message)
			out = append(out, scoped(finding(res, "validate", re.Code, planner.SeverityError, "%s", re.Message), res, t))
			continue
		}
		for _, d := range re.Details {
			res := attribute(t.Resources, d.Target, d.Message)
			out = append(out, scoped(finding(res, "validate", d.Code, planner.SeverityError, "%s", d.Message), res, t))
		}
	}
	return out
}

// scoped names the template's scope on a finding no resource owns.
func scoped(f planner.Finding, res *planner.Resource, t *deployment.Template) planner.Finding {
	if res == nil {
		f.ARMID = t.Scope.ID()
		f.Message = fmt.Sprintf("%s (template %s)", f.Message, t.File)
	}
	return f
}

// attribute finds the resource a validation error is about.
func attribute(rs []*planner.Resource, target, message string) *planner.Resource {
	if target != "" {
		for _, res := range rs {
			if strings.EqualFold(res.ARMID, target) {
				return res
			}
		}
		for _, res := range rs {
			if strings.EqualFold(lastSegment(res.ARMID), lastSegment(target)) {
				return res
			}
		}
	}
	lower := strings.ToLower(message)
	for _, res := range rs {
		if res.ARMID != "" && strings.Contains(lower, strings.ToLower(res.ARMID)) {
			return res
		}
	}
	var byName *planner.Resource
	for _, res := range rs {
		if res.ARMID != "" && strings.Contains(lower, "'"+strings.ToLower(lastSegment(res.ARMID))+"'") {
			if byName != nil {
				return nil // two resources could be meant
			}
			byName = res
		}
	}
	return byName
}

func lastSegment(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }

func (r *run) prefix() string {
	if r.opts.Prefix != "" {
		return r.opts.Prefix + "-validate"
	}
	return "azk-preflight"
}
