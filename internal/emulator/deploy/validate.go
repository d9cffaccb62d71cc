package deploy

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/registry"
)

// Deployment validation: POST {scope}/providers/Microsoft.Resources/deployments/{name}/validate
// checks a deployment as ARM's pre-flight does and writes nothing. The
// template is validated as a deployment's is (parameters, resources,
// dependencies); then each resource's body, evaluated as the deployment
// would send it, is checked as a PUT of it would be (the core's
// Validators: provider registration, location offering, names taken,
// policy deny) and against the REST specification of its type at its
// api-version (required properties, which a PUT to the emulator does not
// check). Nested deployments are validated with their resources. A value
// that needs reference() to a resource not deployed yet is known only
// after deployment: it is not checked, but the property holding it is
// there (so it is not a missing required property) and the objects around
// it are kept. The answer is 200 with the validated resources, or 400
// InvalidTemplateDeployment with one detail per refusal, each naming its
// resource as target.

// writeValidator is the core's check of a write, run without writing.
type writeValidator interface {
	ValidateWrite(r *http.Request, id string, body map[string]any) error
}

func (e *Engine) validate(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	deployment, _ := armpath.Parse(t.Parent)
	req, err := decodeDeploymentRequest(body)
	if err != nil {
		return err
	}
	scope, err := e.deploymentScope(deployment, req.Location)
	if err != nil {
		return err
	}
	prep, err := e.prepare(req.Properties.Template, req.Properties.Parameters, scope, deployment.ID, deployment.Name)
	if err != nil {
		return err
	}
	var details []validationDetail
	var validated []map[string]any
	e.validateResources(r, prep, &details, &validated)
	if len(details) > 0 {
		armcore.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"code": "InvalidTemplateDeployment",
			"message": fmt.Sprintf("The template deployment '%s' is not valid according to the validation procedure. The tracking id is '%s'. See inner errors for details.",
				deployment.Name, e.core.NewUUID()),
			"details": details,
		}})
		return nil
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{
		"id": deployment.ID, "name": deployment.Name, "type": "Microsoft.Resources/deployments",
		"properties": map[string]any{
			"provisioningState": armcore.StateSucceeded, "mode": "Incremental", "templateHash": prep.hash,
			"parameters": prep.shown, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
			"correlationId": r.Header.Get("x-ms-correlation-request-id"), "validatedResources": validated,
		},
	})
	return nil
}

// validationDetail is one refusal, naming the resource it is about.
type validationDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Target  string `json:"target,omitempty"`
}

// validateResources checks each resource of a prepared template, nested
// deployments' included, adding a detail per refusal.
func (e *Engine) validateResources(r *http.Request, p *prepared, details *[]validationDetail, validated *[]map[string]any) {
	p.env.reference = func(id, _ string, _ bool) (any, error) {
		return nil, fmt.Errorf("reference('%s') is known only once it is deployed", id)
	}
	p.env.invoke = func(id, _, action string, _ any) (any, error) {
		return nil, fmt.Errorf("%s('%s') is known only once it is deployed", action, id)
	}
	for _, tr := range p.resources {
		if tr.existing {
			continue // read, not written: nothing to check as a write
		}
		if tr.nested {
			e.validateNested(r, p, tr, details, validated)
			continue
		}
		*validated = append(*validated, map[string]any{"id": tr.id})
		raw := map[string]any{}
		for k, v := range tr.raw {
			if bodyKey(k) {
				raw[k] = v
			}
		}
		body, err := tr.env.evalWith(raw, func(env *exprEnv, s string) (any, error) {
			v, err := env.evalString(s)
			if err != nil {
				return knownAfterDeployment{}, nil
			}
			return v, nil
		})
		if err != nil {
			*details = append(*details, validationDetail{Code: "InvalidTemplate", Message: err.Error(), Target: tr.id})
			continue
		}
		refuse := func(code, format string, args ...any) {
			*details = append(*details, validationDetail{Code: code, Message: fmt.Sprintf(format, args...), Target: tr.id})
		}
		for _, missing := range missingRequired(tr.typ, tr.apiVersion, body.(map[string]any)) {
			refuse("InvalidRequestContent", "The request content was invalid and could not be deserialized: 'Required property '%s' not found in JSON. Path '%s'.'", missing.name, missing.path)
		}
		if v, ok := e.core.(writeValidator); ok {
			if err := v.ValidateWrite(r, tr.id, withoutUnknown(body).(map[string]any)); err != nil {
				var ae *armcore.Error
				if errors.As(err, &ae) {
					refuse(ae.Code, "%s", ae.Message)
				} else {
					refuse("InternalServerError", "%v", err)
				}
			}
		}
	}
}

// validateNested validates a nested deployment's template in its scope.
func (e *Engine) validateNested(r *http.Request, parent *prepared, tr *templateResource, details *[]validationDetail, validated *[]map[string]any) {
	props, err := nestedProperties(tr.env, tr.raw["properties"])
	if err != nil {
		*details = append(*details, validationDetail{Code: "InvalidTemplate", Message: err.Error(), Target: tr.id})
		return
	}
	tmpl, _ := props["template"].(map[string]any)
	params, _ := props["parameters"].(map[string]any)
	scope := tr.scope
	if loc, ok := e.groupLocation(scope); ok {
		scope.location = loc
	} else {
		// The group is created by the same deployment: its location is the template's.
		for _, other := range parent.resources {
			if strings.EqualFold(other.typ, armpath.TypeResourceGroup) && strings.EqualFold(other.name, scope.rg) {
				l, _ := other.env.evalValue(other.raw["location"])
				scope.location, _ = l.(string)
			}
		}
	}
	p, err := e.prepare(tmpl, params, scope, tr.id, tr.name)
	if err != nil {
		var ae *armcore.Error
		if errors.As(err, &ae) {
			*details = append(*details, validationDetail{Code: ae.Code, Message: ae.Message, Target: tr.id})
		}
		return
	}
	e.validateResources(r, p, details, validated)
}

// knownAfterDeployment stands for a value the template computes from a
// resource not deployed yet (reference() to one the same deployment
// creates): the property is there, as the deployment will send it, so it
// is never a missing required property; only its value is not checked.
type knownAfterDeployment struct{}

// withoutUnknown is body without the values known only after deployment,
// their enclosing objects kept: what the write checks can look at.
func withoutUnknown(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if _, unknown := e.(knownAfterDeployment); !unknown {
				out[k] = withoutUnknown(e)
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if _, unknown := e.(knownAfterDeployment); !unknown {
				out = append(out, withoutUnknown(e))
			}
		}
		return out
	}
	return v
}

type missingProperty struct{ name, path string }

// missingRequired lists the properties the REST specification of typ at
// apiVersion requires that body lacks: each required path whose enclosing
// object is present without it (registry.BodyFacts.Required).
func missingRequired(typ, apiVersion string, body map[string]any) []missingProperty {
	reg := registry.Default()
	var required []string
	for _, gvk := range reg.KindsOfARMType(typ) {
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && k.APIVersion == apiVersion && k.Body != nil {
			required = k.Body.Required
			break
		}
	}
	var out []missingProperty
	for _, p := range required {
		segs := strings.Split(strings.NewReplacer("[]", ".[]", "{}", ".{}").Replace(p), ".")
		if len(segs) == 1 && (segs[0] == "name" || segs[0] == "type" || segs[0] == "id") {
			continue // ARM takes these from the request's path
		}
		last := segs[len(segs)-1]
		walkEnclosing(body, segs[:len(segs)-1], "", func(obj map[string]any, at string) {
			if v, ok := obj[last]; !ok || v == nil {
				out = append(out, missingProperty{name: last, path: at})
			}
		})
	}
	return out
}

// walkEnclosing calls found with every object at path under v ("[]" for
// each item of a list, "{}" for each value of a map), and where it is.
func walkEnclosing(v any, path []string, at string, found func(map[string]any, string)) {
	if len(path) == 0 {
		if m, ok := v.(map[string]any); ok {
			found(m, at)
		}
		return
	}
	switch seg := path[0]; seg {
	case "[]":
		list, _ := v.([]any)
		for i, item := range list {
			walkEnclosing(item, path[1:], fmt.Sprintf("%s[%d]", at, i), found)
		}
	case "{}":
		m, _ := v.(map[string]any)
		for k, item := range m {
			walkEnclosing(item, path[1:], at+"."+k, found)
		}
	default:
		m, _ := v.(map[string]any)
		next, ok := m[seg]
		if !ok {
			return
		}
		if at != "" {
			seg = at + "." + seg
		}
		walkEnclosing(next, path[1:], seg, found)
	}
}
