package deploy

import (
	"strings"
)

// User-defined functions: a template's "functions", an array of
// namespaces each with members, called as namespace.member(...). As ARM
// documents them, a function sees only its own parameters (no template
// parameters or variables, no reference() or list*), can call other
// user-defined functions, and its output is checked against its type.

// userFunction is one member of a template's functions.
type userFunction struct {
	params  []userParam
	output  any
	outType string
}

type userParam struct{ name, typ string }

// readUserFunctions reads a template's functions, by lower-cased "namespace.member".
func readUserFunctions(v any) (map[string]*userFunction, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, invalidTemplate("the template's 'functions' must be an array of namespaces")
	}
	out := map[string]*userFunction{}
	for _, item := range list {
		ns, _ := item.(map[string]any)
		namespace, _ := ns["namespace"].(string)
		members, _ := ns["members"].(map[string]any)
		if namespace == "" || strings.Contains(namespace, ".") {
			return nil, invalidTemplate("a namespace of the template's 'functions' needs a name without '.'")
		}
		for name, def := range members {
			m, _ := def.(map[string]any)
			output, _ := m["output"].(map[string]any)
			if _, ok := output["value"]; !ok {
				return nil, invalidTemplate("the function '%s.%s' needs an output with a value", namespace, name)
			}
			f := &userFunction{output: output["value"]}
			f.outType, _ = output["type"].(string)
			params, _ := m["parameters"].([]any)
			for _, p := range params {
				pm, _ := p.(map[string]any)
				pname, _ := pm["name"].(string)
				ptype, _ := pm["type"].(string)
				if pname == "" {
					return nil, invalidTemplate("a parameter of the function '%s.%s' has no name", namespace, name)
				}
				if _, hasDefault := pm["defaultValue"]; hasDefault {
					return nil, invalidTemplate("the parameter '%s' of the function '%s.%s' has a default value, which ARM does not allow", pname, namespace, name)
				}
				f.params = append(f.params, userParam{pname, ptype})
			}
			out[strings.ToLower(namespace+"."+name)] = f
		}
	}
	return out, nil
}

// callUser evaluates a user-defined function's output with its parameters bound.
func (env *exprEnv) callUser(name string, f *userFunction, args []any) (any, error) {
	if len(args) != len(f.params) {
		return nil, exprErrorf("the function '%s' takes %d argument(s), not %d", name, len(f.params), len(args))
	}
	inner := &exprEnv{params: map[string]any{}, vars: map[string]any{}, deployment: env.deployment, scope: env.scope,
		endpoint: env.endpoint, hooks: &hooks{}, userFunctions: env.userFunctions, newUUID: env.newUUID}
	for i, p := range f.params {
		if p.typ != "" && !typeMatches(p.typ, args[i]) {
			return nil, exprErrorf("the function '%s' expects its parameter '%s' of type '%s', not %s", name, p.name, p.typ, typeName(args[i]))
		}
		inner.params[p.name] = args[i]
	}
	v, err := inner.evalValue(f.output)
	if err != nil {
		return nil, exprErrorf("the function '%s': %v", name, err)
	}
	if f.outType != "" && !typeMatches(f.outType, v) {
		return nil, exprErrorf("the function '%s' returns %s, not its declared '%s'", name, typeName(v), f.outType)
	}
	return v, nil
}
