package deploy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/azkcli/azk/internal/deployment/armtemplate"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// This file prepares a template to run, as ARM's engine does before it
// accepts a deployment: the template checked for what the emulator does
// not run (refuse.go), parameters against their types (paramtypes.go),
// variables (copy loops included) evaluated, resources expanded (copy
// loops, conditions, languageVersion 2.0's symbolic names and existing
// resources) and their dependencies resolved (by ID, name, loop name or
// symbolic name; serial loops in batches).

// prepared is a validated template, ready to run.
type prepared struct {
	env *exprEnv
	// resources are the template's resources to deploy, one per copy
	// instance, with the existing resources (read, never written).
	resources []*templateResource
	// skipped are the resources whose condition is false: not deployed,
	// and refused when reference() names them.
	skipped []*templateResource
	outputs map[string]any
	hash    string
	shown   map[string]any
}

// templateResource is one resource (one copy instance) of a template, with the ID it targets.
type templateResource struct {
	raw        map[string]any
	typ        string
	apiVersion string
	name       string
	id         string
	// symbol is its symbolic name in a languageVersion 2.0 template
	// ("name[i]" for a copy instance), else "".
	symbol string
	// loop is the copy loop it is an instance of, else "".
	loop     string
	deps     []*templateResource
	nested   bool
	existing bool
	scope    deployScope // a nested deployment's target scope
	// env evaluates its expressions: at its copyIndex() in a loop.
	env *exprEnv
}

func invalidTemplate(format string, args ...any) *armcore.Error {
	return armcore.Errorf(http.StatusBadRequest, "InvalidTemplate", "Deployment template validation failed: '%s'.", fmt.Sprintf(format, args...))
}

// prepare validates a template against its parameters and expands it, as
// ARM does before it accepts a deployment. Validate, what-if and create
// all start here, so each refuses what the emulator does not run alike.
func (e *Engine) prepare(tmpl map[string]any, given map[string]any, scope deployScope, deploymentID, name string) (*prepared, error) {
	if _, ok := tmpl["$schema"].(string); !ok {
		return nil, invalidTemplate("the template has no $schema")
	}
	if _, ok := tmpl["contentVersion"].(string); !ok {
		return nil, invalidTemplate("the template has no contentVersion")
	}
	v2, err := checkTemplate(tmpl)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(tmpl)
	sum := sha256.Sum256(raw)
	p := &prepared{hash: hex.EncodeToString(sum[:8]), shown: map[string]any{}}
	env := &exprEnv{params: map[string]any{}, vars: map[string]any{}, scope: scope, hooks: &hooks{},
		endpoint: e.endpointURL(), newUUID: e.core.NewUUID,
		deployment: map[string]any{"name": name, "id": deploymentID, "properties": map[string]any{
			"templateHash": p.hash, "mode": "Incremental", "provisioningState": "Accepted",
			"template": map[string]any{"contentVersion": tmpl["contentVersion"], "metadata": tmpl["metadata"]}}}}
	env.provider = e.providerRegistration(scope.sub)
	if env.userFunctions, err = readUserFunctions(tmpl["functions"]); err != nil {
		return nil, err
	}
	if err := env.bindParameters(tmpl, given, p.shown); err != nil {
		return nil, err
	}
	if err := env.bindVariables(tmpl); err != nil {
		return nil, err
	}
	if err := p.expandResources(env, tmpl, scope, v2); err != nil {
		return nil, err
	}
	p.outputs, _ = tmpl["outputs"].(map[string]any)
	if len(p.outputs) > 64 {
		return nil, invalidTemplate("the number of outputs, %d, exceeds the limit of 64", len(p.outputs))
	}
	p.env = env
	return p, nil
}

// varResolver evaluates variables on first use while a template is
// prepared, so that one may read another whatever their order.
type varResolver struct {
	env       *exprEnv
	raw       map[string]any
	resolving map[string]bool
}

func (r *varResolver) resolve(name string) (any, error) {
	key := ""
	for k := range r.raw {
		if strings.EqualFold(k, name) {
			key = k
		}
	}
	if key == "" {
		return nil, exprErrorf("the template variable '%s' is not found", name)
	}
	if v, ok := r.env.vars[key]; ok {
		return v, nil
	}
	if r.resolving[key] {
		return nil, exprErrorf("the template variable '%s' refers to itself", key)
	}
	r.resolving[key] = true
	defer delete(r.resolving, key)
	var v any
	var err error
	if loop, ok := r.raw[key].(variableLoop); ok {
		v, err = r.env.loopValues(key, loop.count, loop.input, false)
	} else {
		v, err = r.env.evalValue(r.raw[key])
	}
	if err != nil {
		return nil, err
	}
	r.env.vars[key] = v
	return v, nil
}

// variableLoop is a variable a top-level variables "copy" loop defines.
type variableLoop struct{ count, input any }

// loopValues is a copy loop's array: input evaluated at each
// copyIndex(name), and at copyIndex() for an output's loop (unnamed).
func (env *exprEnv) loopValues(name string, count, input any, unnamed bool) ([]any, error) {
	n, err := env.loopCount(name, count)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, n)
	for i := range n {
		v, err := env.withCopy(name, i, unnamed).evalValue(input)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// bindVariables evaluates every variable (those of its "copy" loops too).
func (env *exprEnv) bindVariables(tmpl map[string]any) error {
	vars, _ := tmpl["variables"].(map[string]any)
	r := &varResolver{env: env, raw: map[string]any{}, resolving: map[string]bool{}}
	for k, v := range vars {
		if k != "copy" {
			r.raw[k] = v
			continue
		}
		loops, ok := v.([]any)
		if !ok {
			return invalidTemplate("the variables' 'copy' must be an array of loops")
		}
		for _, l := range loops {
			m, _ := l.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" || m["count"] == nil || m["input"] == nil {
				return invalidTemplate("a variable copy loop needs a name, a count and an input")
			}
			r.raw[name] = variableLoop{count: m["count"], input: m["input"]}
		}
	}
	env.pendingVars = r
	defer func() { env.pendingVars = nil }()
	names := keysOf(r.raw)
	for _, k := range names {
		if _, err := r.resolve(k); err != nil {
			return invalidTemplate("the variable '%s' is not valid: %v", k, err)
		}
	}
	return nil
}

// templateResources lists a template's resources: an array, or in
// languageVersion 2.0 an object by symbolic name (in name order).
func templateResources(tmpl map[string]any, v2 bool) (symbols []string, list []map[string]any, err error) {
	switch t := tmpl["resources"].(type) {
	case nil:
	case []any:
		for i, item := range t {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, nil, invalidTemplate("resource %d is not an object", i)
			}
			symbols, list = append(symbols, ""), append(list, m)
		}
	case map[string]any:
		if !v2 {
			return nil, nil, invalidTemplate("the template's resources are an object of symbolic names, which needs languageVersion 2.0")
		}
		for _, sym := range keysOf(t) {
			m, ok := t[sym].(map[string]any)
			if !ok {
				return nil, nil, invalidTemplate("the resource '%s' is not an object", sym)
			}
			symbols, list = append(symbols, sym), append(list, m)
		}
	default:
		return nil, nil, invalidTemplate("the template's resources must be an array or an object")
	}
	return symbols, list, nil
}

// expandResources reads the template's resources into p: each copy loop
// as its instances, the conditioned-out ones set aside, then each
// resource's dependencies.
func (p *prepared) expandResources(env *exprEnv, tmpl map[string]any, scope deployScope, v2 bool) error {
	symbols, list, err := templateResources(tmpl, v2)
	if err != nil {
		return err
	}
	byID := map[string]*templateResource{}
	loops := map[string][]*templateResource{} // lower-cased loop name or symbol: instances (skipped included)
	var all []*templateResource
	var serial []serialLoop
	add := func(tr *templateResource, cond bool) error {
		if !cond {
			p.skipped = append(p.skipped, tr)
			return nil
		}
		if byID[armpath.Key(tr.id)] != nil {
			return invalidTemplate("the resource '%s' is defined multiple times in a template", tr.id)
		}
		byID[armpath.Key(tr.id)] = tr
		p.resources = append(p.resources, tr)
		return nil
	}
	// addChildren adds the child resources declared inside a resource
	// instance, evaluated where it is (at its copyIndex()): a short type
	// and name are its own prefixed with the parent's. A child has its own
	// condition and dependsOn, as in ARM.
	var addChildren func(parent *templateResource) error
	addChildren = func(parent *templateResource) error {
		children, _ := parent.raw["resources"].([]any)
		for _, c := range children {
			cm, err := childResource(parent, c)
			if err != nil {
				return err
			}
			tr, cond, err := parent.env.instance(cm, scope, "", parent.loop)
			if err != nil {
				return err
			}
			if err := add(tr, cond); err != nil {
				return err
			}
			all = append(all, tr)
			if err := addChildren(tr); err != nil {
				return err
			}
		}
		return nil
	}
	for i, m := range list {
		sym := symbols[i]
		label := sym
		if label == "" {
			label, _ = m["name"].(string)
		}
		copySpec, looped := m["copy"].(map[string]any)
		if _, has := m["copy"]; has && !looped {
			return invalidTemplate("the copy of resource '%s' must be an object", label)
		}
		if !looped {
			tr, cond, err := env.instance(m, scope, sym, "")
			if err != nil {
				return err
			}
			if err := add(tr, cond); err != nil {
				return err
			}
			all = append(all, tr)
			if sym != "" {
				loops[strings.ToLower(sym)] = append(loops[strings.ToLower(sym)], tr)
			}
			if err := addChildren(tr); err != nil {
				return err
			}
			continue
		}
		loopName, _ := copySpec["name"].(string)
		if loopName == "" {
			return invalidTemplate("the copy loop of resource '%s' has no name", label)
		}
		count, err := env.loopCount(loopName, copySpec["count"])
		if err != nil {
			return invalidTemplate("%v", err)
		}
		var instances []*templateResource
		for i := range count {
			instSym := ""
			if sym != "" {
				instSym = fmt.Sprintf("%s[%d]", sym, i)
			}
			tr, cond, err := env.withCopy(loopName, i, true).instance(m, scope, instSym, loopName)
			if err != nil {
				return err
			}
			if err := add(tr, cond); err != nil {
				return err
			}
			instances = append(instances, tr)
			if err := addChildren(tr); err != nil {
				return err
			}
		}
		all = append(all, instances...)
		loops[strings.ToLower(loopName)] = append(loops[strings.ToLower(loopName)], instances...)
		if sym != "" {
			loops[strings.ToLower(sym)] = append(loops[strings.ToLower(sym)], instances...)
		}
		serial = append(serial, serialLoop{copySpec, instances, loopName})
	}
	if len(p.resources) > templateResourceLimit {
		return invalidTemplate("the number of resources, %d, exceeds the limit of %d", len(p.resources), templateResourceLimit)
	}
	deployed := map[*templateResource]bool{}
	for _, tr := range p.resources {
		deployed[tr] = true
	}
	for _, l := range serial {
		var running []*templateResource
		for _, tr := range l.instances {
			if deployed[tr] && !tr.existing {
				running = append(running, tr)
			}
		}
		if err := serialBatches(l.spec, running, l.name); err != nil {
			return err
		}
	}
	for _, tr := range all {
		if !deployed[tr] {
			continue
		}
		deps, _ := tr.raw["dependsOn"].([]any)
		for _, d := range deps {
			v, err := tr.env.evalValue(d)
			ref, ok := v.(string)
			if err != nil || !ok {
				return invalidTemplate("a dependsOn of '%s' cannot be evaluated: %v", tr.id, err)
			}
			targets, err := dependencyTargets(ref, byID, loops, all, v2)
			if err != nil {
				return err
			}
			for _, dep := range targets {
				// ARM drops a dependency on a resource not deployed
				// (condition false) or only read (existing).
				if deployed[dep] && !dep.existing && dep != tr {
					tr.deps = append(tr.deps, dep)
				}
			}
		}
	}
	if cyc := cycle(p.resources); cyc != "" {
		return invalidTemplate("circular dependency detected on resource: '%s'", cyc)
	}
	return nil
}

// dependencyTargets are the resources a dependsOn entry names: a symbolic
// name (2.0), a copy loop's name (each instance), a resource ID, or a
// resource's name.
func dependencyTargets(ref string, byID map[string]*templateResource, loops map[string][]*templateResource, all []*templateResource, v2 bool) ([]*templateResource, error) {
	if group, ok := loops[strings.ToLower(ref)]; ok {
		return group, nil
	}
	if v2 {
		for _, tr := range all {
			if tr.symbol != "" && strings.EqualFold(tr.symbol, ref) {
				return []*templateResource{tr}, nil
			}
		}
	}
	if dep := byID[armpath.Key(ref)]; dep != nil {
		return []*templateResource{dep}, nil
	}
	var out []*templateResource
	for _, tr := range all {
		if strings.EqualFold(tr.id, ref) || strings.EqualFold(tr.name, ref) {
			out = append(out, tr)
		}
	}
	if len(out) == 0 {
		return nil, invalidTemplate("the resource '%s' is not defined in the template", ref)
	}
	return out, nil
}

// serialLoop is a resource copy loop, for its batches once the instances
// deployed are known.
type serialLoop struct {
	spec      map[string]any
	instances []*templateResource
	name      string
}

// serialBatches makes a serial loop's instances (those deployed) run
// batchSize at a time: each waits for every instance of the batch before its own.
func serialBatches(spec map[string]any, instances []*templateResource, loop string) error {
	mode, _ := spec["mode"].(string)
	if mode == "" || strings.EqualFold(mode, "parallel") {
		if _, ok := spec["batchSize"]; ok && mode == "" {
			return invalidTemplate("the copy loop '%s' sets batchSize without mode 'serial'", loop)
		}
		return nil
	}
	if !strings.EqualFold(mode, "serial") {
		return invalidTemplate("the copy loop '%s' has mode '%s': it must be 'serial' or 'parallel'", loop, mode)
	}
	batch := int64(1)
	if b, ok := spec["batchSize"]; ok {
		n, ok := toInt(b)
		if !ok || n < 1 || n > copyLimit {
			return invalidTemplate("the copy loop '%s' has batchSize '%v': it must be an integer from 1 to %d", loop, b, copyLimit)
		}
		batch = n
	}
	for i, tr := range instances {
		if b := int64(i) / batch; b > 0 {
			tr.deps = append(tr.deps, instances[(b-1)*batch:b*batch]...)
		}
	}
	return nil
}

// childResource is a child resource declared inside parent, with its full
// type and name: a type without a namespace ("subnets") and its name are
// relative to the parent's.
func childResource(parent *templateResource, c any) (map[string]any, error) {
	m, ok := c.(map[string]any)
	if !ok {
		return nil, invalidTemplate("a child resource of '%s' is not an object", parent.name)
	}
	typ, _ := m["type"].(string)
	if _, looped := m["copy"]; looped {
		return nil, invalidTemplate("the child resource '%s' of '%s' has a copy loop: ARM allows none on a child resource; declare it at the top level", typ, parent.name)
	}
	nv, err := parent.env.evalValue(m["name"])
	name, isString := nv.(string)
	if err != nil || !isString || typ == "" {
		return nil, invalidTemplate("the child resource '%s' of '%s' needs a type and a name: %v", typ, parent.name, err)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if !strings.Contains(typ, "/") {
		out["type"] = parent.typ + "/" + typ
		name = parent.name + "/" + name
	}
	out["name"] = armtemplate.Escape(name)
	return out, nil
}

// instance reads one resource (or copy instance) in env, and whether its
// condition holds.
func (env *exprEnv) instance(m map[string]any, scope deployScope, symbol, loop string) (*templateResource, bool, error) {
	tr, err := env.templateResource(m, scope)
	if err != nil {
		return nil, false, err
	}
	tr.symbol, tr.loop, tr.env = symbol, loop, env
	if ex, ok := m["existing"]; ok {
		b, isBool := ex.(bool)
		if !isBool {
			return nil, false, invalidTemplate("the 'existing' of resource '%s' must be a boolean", tr.name)
		}
		tr.existing = b
	}
	cond := true
	if c, ok := m["condition"]; ok {
		v, err := env.evalValue(c)
		if err != nil {
			return nil, false, invalidTemplate("the condition of resource '%s' cannot be evaluated: %v", tr.name, err)
		}
		b, ok := v.(bool)
		if !ok {
			return nil, false, invalidTemplate("the condition of resource '%s' must be a boolean, not %s", tr.name, typeName(v))
		}
		cond = b
	}
	return tr, cond, nil
}

// templateResource reads one resource of a template and the ID it targets.
func (env *exprEnv) templateResource(m map[string]any, scope deployScope) (*templateResource, error) {
	tr := &templateResource{raw: m, scope: scope}
	tr.typ, _ = m["type"].(string)
	tr.apiVersion, _ = m["apiVersion"].(string)
	rawName, _ := m["name"].(string)
	if tr.typ == "" || tr.apiVersion == "" || rawName == "" {
		return nil, invalidTemplate("every resource needs a type, an apiVersion and a name")
	}
	if armtemplate.IsExpression(tr.typ) || armtemplate.IsExpression(tr.apiVersion) {
		return nil, invalidTemplate("the type and apiVersion of '%s' must be literals", rawName)
	}
	nv, err := env.evalValue(rawName)
	if err != nil {
		return nil, invalidTemplate("the name '%s' cannot be evaluated: %v", rawName, err)
	}
	tr.name, _ = nv.(string)
	names := strings.Split(tr.name, "/")
	// A nested deployment, or (2.0) an existing resource, may target
	// another subscription or resource group.
	target := scope
	if v, ok := m["subscriptionId"]; ok {
		sv, err := env.evalValue(v)
		if err != nil {
			return nil, invalidTemplate("the subscriptionId of '%s': %v", tr.name, err)
		}
		target = deployScope{sub: exprString(sv)}
	}
	if v, ok := m["resourceGroup"]; ok {
		rv, err := env.evalValue(v)
		if err != nil {
			return nil, invalidTemplate("the resourceGroup of '%s': %v", tr.name, err)
		}
		target.rg = exprString(rv)
	}
	if strings.EqualFold(tr.typ, "Microsoft.Resources/deployments") {
		tr.nested = true
		tr.scope = target
		tr.id = target.id() + "/providers/Microsoft.Resources/deployments/" + tr.name
		return tr, nil
	}
	if target != scope && m["existing"] != true {
		return nil, invalidTemplate("the resource '%s' sets a subscriptionId or resourceGroup, which only nested deployments and existing resources may", tr.name)
	}
	scopeID := target.id()
	if v, ok := m["scope"]; ok {
		sv, err := env.evalValue(v)
		if err != nil {
			return nil, invalidTemplate("the scope of '%s': %v", tr.name, err)
		}
		scopeID = strings.TrimSuffix(exprString(sv), "/")
		if !strings.HasPrefix(scopeID, "/") {
			scopeID = target.id() + "/providers/" + scopeID
		}
	}
	args := []any{tr.typ}
	for _, n := range names {
		args = append(args, n)
	}
	id, err := typedID(scopeID, args)
	if err != nil {
		return nil, invalidTemplate("the template resource '%s' for type '%s' has incorrect segment lengths: a type needs one name per segment after the namespace", tr.name, tr.typ)
	}
	tr.id = id
	if _, ok := armpath.Parse(id); !ok {
		return nil, invalidTemplate("the template resource '%s' of type '%s' does not name an ARM resource", tr.name, tr.typ)
	}
	return tr, nil
}

// cycle returns a resource on a dependency cycle, or "".
func cycle(resources []*templateResource) string {
	state := map[*templateResource]int{}
	var visit func(*templateResource) string
	visit = func(r *templateResource) string {
		switch state[r] {
		case 1:
			return r.id
		case 2:
			return ""
		}
		state[r] = 1
		for _, d := range r.deps {
			if c := visit(d); c != "" {
				return c
			}
		}
		state[r] = 2
		return ""
	}
	for _, r := range resources {
		if c := visit(r); c != "" {
			return c
		}
	}
	return ""
}

// find is the template resource a reference() names: by symbolic name, by
// name or by ID. A resource whose condition is false is refused by name.
func (p *prepared) find(target string) (*templateResource, error) {
	match := func(tr *templateResource) bool {
		return (tr.symbol != "" && strings.EqualFold(tr.symbol, target)) || strings.EqualFold(tr.name, target) || strings.EqualFold(tr.id, target)
	}
	for _, tr := range p.resources {
		if match(tr) {
			return tr, nil
		}
	}
	for _, tr := range p.skipped {
		if match(tr) {
			return nil, exprErrorf("the resource '%s' is not deployed: its condition is false, so reference() cannot read it", target)
		}
	}
	return nil, nil
}

// outputValues evaluates the template's outputs (a false condition leaves
// one out; a copy makes it an array).
func (p *prepared) outputValues() (map[string]any, error) {
	out := map[string]any{}
	for name, def := range p.outputs {
		spec, _ := def.(map[string]any)
		if c, ok := spec["condition"]; ok {
			v, err := p.env.evalValue(c)
			if err != nil {
				return nil, exprErrorf("the template output '%s' is not valid: %v", name, err)
			}
			if b, _ := v.(bool); !b {
				continue
			}
		}
		var v any
		var err error
		if loop, ok := spec["copy"].(map[string]any); ok {
			v, err = p.env.loopValues(name, loop["count"], loop["input"], true)
		} else {
			v, err = p.env.evalValue(spec["value"])
		}
		if err != nil {
			return nil, exprErrorf("the template output '%s' is not valid: %v", name, err)
		}
		typ, _ := spec["type"].(string)
		if ref, ok := spec["$ref"].(string); ok && typ == "" {
			typ = ref
		}
		out[name] = map[string]any{"type": typ, "value": v}
	}
	return out, nil
}

func jsonDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
