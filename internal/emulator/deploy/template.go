package deploy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/deployment/armtemplate"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/deploy/armfunc"
)

// This file evaluates ARM template expressions. A JSON string that starts
// with "[" and ends with "]" is an expression ("[[" escapes a literal "["):
// function calls with string, integer and nested call arguments, then
// property (".name", "['name']") and index ("[0]") accessors.
//
// The pure functions are armfunc's; the runner serves the rest itself
// (runnerFunctions): those that read the deployment (parameters, variables,
// copyIndex, deployment, environment, the scope functions, the resource ID
// family), those that read or act on resources (reference, list*,
// providers), those ARM allows only in parameter defaults
// (utcNow, newGuid), those whose arguments are evaluated lazily (if, and,
// or) and the lambda functions. Any other name is refused.

// exprEnv is what an expression can see.
type exprEnv struct {
	params, vars map[string]any
	// paramTypes are the declared parameters, for an outer-scope nested
	// template that inherits them.
	paramTypes map[string]any
	deployment map[string]any
	scope      deployScope
	// endpoint is the emulator's address as its clients reach it, for environment().
	endpoint string
	// hooks reach resources; shared by every copy of the env, so that a run
	// sets them once for all its resources.
	*hooks
	// pendingVars evaluates the variables not yet evaluated while the
	// template is prepared; nil after.
	pendingVars *varResolver
	// pendingParams evaluates the parameters' defaults likewise.
	pendingParams *paramResolver
	// copies are the copy loops' indexes by loop name, lower-cased; "" is
	// the loop of the resource being evaluated.
	copies map[string]int64
	// lambdaVars are the lambda parameters in scope, by name.
	lambdaVars map[string]any
	// userFunctions are the template's user-defined functions, by
	// lower-cased "namespace.member".
	userFunctions map[string]*userFunction
	// parameterDefault is set while a parameter's default value is
	// evaluated: the only place ARM allows utcNow and newGuid.
	parameterDefault bool
	newUUID          func() string
}

// hooks are how expressions reach resources. A nil hook makes its
// functions "not expected at this location".
type hooks struct {
	// reference reads a resource for reference(): by ID, or by the name or
	// symbolic name of a template resource.
	reference func(id, apiVersion string, full bool) (any, error)
	// invoke runs a resource's action for list*().
	invoke func(id, apiVersion, action string, body any) (any, error)
	// provider reads a resource provider's registration for providers().
	provider func(namespace string) (map[string]any, error)
}

// withCopy is env inside iteration index of the copy loop named loop.
func (env *exprEnv) withCopy(loop string, index int64, resourceLoop bool) *exprEnv {
	inner := *env
	inner.copies = make(map[string]int64, len(env.copies)+2)
	for k, v := range env.copies {
		inner.copies[k] = v
	}
	inner.copies[strings.ToLower(loop)] = index
	if resourceLoop {
		inner.copies[""] = index
	}
	return &inner
}

// exprError is a template expression that cannot be evaluated.
type exprError struct{ msg string }

func (e *exprError) Error() string { return e.msg }

func exprErrorf(format string, args ...any) error {
	return &exprError{msg: fmt.Sprintf(format, args...)}
}

// evalValue evaluates every expression inside a template value, property
// copy loops included.
func (env *exprEnv) evalValue(v any) (any, error) { return env.evalWith(v, (*exprEnv).evalString) }

// evalWith copies a template value with str applied to each string, in the
// env of its place: an object's "copy" array of loops ({name, count,
// input}) becomes one array property per loop, each item the input
// evaluated at its copyIndex(name).
func (env *exprEnv) evalWith(v any, str func(*exprEnv, string) (any, error)) (any, error) {
	switch t := v.(type) {
	case string:
		return str(env, t)
	case map[string]any:
		out := make(map[string]any, len(t))
		loops, isLoops := propertyLoops(t["copy"])
		for k, e := range t {
			if isLoops && k == "copy" {
				continue
			}
			c, err := env.evalWith(e, str)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		for _, l := range loops {
			name, _ := l["name"].(string)
			count, err := env.loopCount(name, l["count"])
			if err != nil {
				return nil, err
			}
			items := make([]any, 0, count)
			for i := range count {
				item, err := env.withCopy(name, i, false).evalWith(l["input"], str)
				if err != nil {
					return nil, err
				}
				items = append(items, item)
			}
			out[name] = items
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := env.evalWith(e, str)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// propertyLoops reads an object's "copy": an array of loops, each with a
// name, a count and an input. Anything else is an ordinary property.
func propertyLoops(v any) ([]map[string]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	var out []map[string]any
	for _, item := range list {
		m, ok := item.(map[string]any)
		_, named := m["name"].(string)
		_, hasCount := m["count"]
		_, hasInput := m["input"]
		if !ok || !named || !hasCount || !hasInput {
			return nil, false
		}
		out = append(out, m)
	}
	return out, true
}

// copyLimit is ARM's limit on a copy loop's count.
const copyLimit = 800

// loopCount evaluates a copy loop's count.
func (env *exprEnv) loopCount(name string, raw any) (int64, error) {
	v, err := env.evalValue(raw)
	if err != nil {
		return 0, err
	}
	n, ok := toInt(v)
	if !ok || n < 0 || n > copyLimit {
		return 0, exprErrorf("the copy loop '%s' has count '%v': it must be an integer from 0 to %d", name, v, copyLimit)
	}
	return n, nil
}

// evalString evaluates a template string: an expression, or a literal.
func (env *exprEnv) evalString(s string) (any, error) {
	if armtemplate.IsExpression(s) {
		return env.eval(s[1 : len(s)-1])
	}
	return armtemplate.Unescape(s), nil
}

// eval parses and evaluates one expression (without its brackets).
func (env *exprEnv) eval(src string) (any, error) {
	p := &exprParser{src: src}
	n, err := p.parse()
	if err != nil {
		return nil, err
	}
	return env.evalNode(n)
}

// exprNode is a parsed expression: a literal, a call, or an access into another node.
type exprNode struct {
	literal any
	call    string // lower-cased
	written string // the call's name as written, for list* actions
	args    []*exprNode
	// of and index make an accessor: of[index].
	of    *exprNode
	index *exprNode
}

type exprParser struct {
	src string
	pos int
}

func (p *exprParser) parse() (*exprNode, error) {
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, exprErrorf("the template language expression '%s' is not valid: unexpected '%s' at position %d", p.src, p.src[p.pos:], p.pos)
	}
	return n, nil
}

func (p *exprParser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *exprParser) expr() (*exprNode, error) {
	p.space()
	if p.pos >= len(p.src) {
		return nil, exprErrorf("the template language expression '%s' ends too early", p.src)
	}
	var n *exprNode
	c := p.src[p.pos]
	switch {
	case c == '\'':
		s, err := p.exprString()
		if err != nil {
			return nil, err
		}
		n = &exprNode{literal: s}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		p.pos++
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		i, err := strconv.ParseInt(p.src[start:p.pos], 10, 64)
		if err != nil {
			return nil, exprErrorf("the template language expression '%s' holds a bad number at position %d", p.src, start)
		}
		n = &exprNode{literal: i}
	case isIdentStart(c):
		name := p.ident()
		if p.pos+1 < len(p.src) && p.src[p.pos] == '.' && isIdentStart(p.src[p.pos+1]) {
			// A user-defined function: namespace.member(...).
			p.pos++
			name += "." + p.ident()
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '(' {
			return nil, exprErrorf("the template language expression '%s' is not valid: '%s' is not a function call", p.src, name)
		}
		p.pos++
		n = &exprNode{call: strings.ToLower(name), written: name}
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
			break
		}
		for {
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, a)
			p.space()
			if p.pos >= len(p.src) {
				return nil, exprErrorf("the template language expression '%s' lacks a closing ')'", p.src)
			}
			if p.src[p.pos] == ')' {
				p.pos++
				break
			}
			if p.src[p.pos] != ',' {
				return nil, exprErrorf("the template language expression '%s' is not valid at position %d", p.src, p.pos)
			}
			p.pos++
		}
	default:
		return nil, exprErrorf("the template language expression '%s' is not valid at position %d", p.src, p.pos)
	}
	for {
		p.space()
		if p.pos >= len(p.src) {
			return n, nil
		}
		switch p.src[p.pos] {
		case '.':
			p.pos++
			p.space()
			if p.pos >= len(p.src) || !isIdentStart(p.src[p.pos]) {
				return nil, exprErrorf("the template language expression '%s' has a bad property access at position %d", p.src, p.pos)
			}
			n = &exprNode{of: n, index: &exprNode{literal: p.ident()}}
		case '[':
			p.pos++
			idx, err := p.expr()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.pos >= len(p.src) || p.src[p.pos] != ']' {
				return nil, exprErrorf("the template language expression '%s' lacks a closing ']'", p.src)
			}
			p.pos++
			n = &exprNode{of: n, index: idx}
		default:
			return n, nil
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }

func (p *exprParser) ident() string {
	start := p.pos
	for p.pos < len(p.src) && (isIdentStart(p.src[p.pos]) || (p.src[p.pos] >= '0' && p.src[p.pos] <= '9')) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// str reads a single-quoted string, where ” is a quote.
func (p *exprParser) exprString() (string, error) {
	var b strings.Builder
	for p.pos++; p.pos < len(p.src); p.pos++ {
		if p.src[p.pos] != '\'' {
			b.WriteByte(p.src[p.pos])
			continue
		}
		if p.pos+1 < len(p.src) && p.src[p.pos+1] == '\'' {
			b.WriteByte('\'')
			p.pos++
			continue
		}
		p.pos++
		return b.String(), nil
	}
	return "", exprErrorf("the template language expression '%s' has an unterminated string", p.src)
}

func (env *exprEnv) evalNode(n *exprNode) (any, error) {
	switch {
	case n.of != nil:
		of, err := env.evalNode(n.of)
		if err != nil {
			return nil, err
		}
		idx, err := env.evalNode(n.index)
		if err != nil {
			return nil, err
		}
		return access(of, idx)
	case n.call != "":
		// These read their arguments lazily, as ARM does: the branch if()
		// does not take, what and()/or() need not read, a lambda's body.
		switch n.call {
		case "if":
			return env.lazyIf(n)
		case "and", "or":
			return env.shortCircuit(n)
		case "lambda":
			return env.lambda(n)
		}
		args := make([]any, len(n.args))
		for i, a := range n.args {
			v, err := env.evalNode(a)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return env.call(n, args)
	}
	return n.literal, nil
}

func (env *exprEnv) lazyIf(n *exprNode) (any, error) {
	if len(n.args) != 3 {
		return nil, exprErrorf("the template function 'if' takes a condition and two values")
	}
	c, err := env.evalNode(n.args[0])
	if err != nil {
		return nil, err
	}
	b, ok := c.(bool)
	if !ok {
		return nil, exprErrorf("the template function 'if' expects a boolean condition, not %s", typeName(c))
	}
	if b {
		return env.evalNode(n.args[1])
	}
	return env.evalNode(n.args[2])
}

// shortCircuit is and() and or(): arguments are read until one decides.
func (env *exprEnv) shortCircuit(n *exprNode) (any, error) {
	if len(n.args) < 2 {
		return nil, exprErrorf("the template function '%s' takes at least two booleans", n.written)
	}
	decides := n.call == "or"
	for _, a := range n.args {
		v, err := env.evalNode(a)
		if err != nil {
			return nil, err
		}
		b, ok := v.(bool)
		if !ok {
			return nil, exprErrorf("the template function '%s' expects booleans, not %s", n.written, typeName(v))
		}
		if b == decides {
			return decides, nil
		}
	}
	return !decides, nil
}

// lambdaFunc is a lambda() value: the names of its parameters and its
// body, evaluated where lambda() was.
type lambdaFunc struct {
	params []string
	body   *exprNode
	env    *exprEnv
}

func (env *exprEnv) lambda(n *exprNode) (any, error) {
	if len(n.args) < 2 {
		return nil, exprErrorf("the template function 'lambda' takes parameter names and a body")
	}
	l := &lambdaFunc{body: n.args[len(n.args)-1], env: env}
	for _, a := range n.args[:len(n.args)-1] {
		v, err := env.evalNode(a)
		name, ok := v.(string)
		if err != nil || !ok {
			return nil, exprErrorf("the parameters of 'lambda' must be names given as strings")
		}
		l.params = append(l.params, name)
	}
	return l, nil
}

// call applies the lambda to args (those beyond its parameters are dropped,
// as ARM's optional index argument is).
func (l *lambdaFunc) call(args ...any) (any, error) {
	inner := *l.env
	inner.lambdaVars = make(map[string]any, len(l.env.lambdaVars)+len(l.params))
	for k, v := range l.env.lambdaVars {
		inner.lambdaVars[k] = v
	}
	for i, p := range l.params {
		if i < len(args) {
			inner.lambdaVars[p] = args[i]
		}
	}
	return inner.evalNode(l.body)
}

// access reads a property (case-insensitively, as ARM does) or an array item.
func access(of, idx any) (any, error) {
	switch t := of.(type) {
	case map[string]any:
		name, ok := idx.(string)
		if !ok {
			return nil, exprErrorf("an object's property must be named by a string, not %v", idx)
		}
		if v, ok := t[name]; ok {
			return v, nil
		}
		for k, v := range t {
			if strings.EqualFold(k, name) {
				return v, nil
			}
		}
		return nil, exprErrorf("the language expression property '%s' doesn't exist, available properties are '%s'", name, strings.Join(keysOf(t), ", "))
	case []any:
		i, ok := toInt(idx)
		if !ok || i < 0 || int(i) >= len(t) {
			return nil, exprErrorf("the array index '%v' is out of bounds", idx)
		}
		return t[i], nil
	}
	return nil, exprErrorf("the language expression cannot read property '%v' of %s", idx, typeName(of))
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func toInt(v any) (int64, bool) {
	switch t := v.(type) {
	case int64:
		return t, true
	case int:
		return int64(t), true
	case float64:
		return int64(t), t == float64(int64(t))
	case json.Number:
		i, err := t.Int64()
		return i, err == nil
	}
	return 0, false
}

// typeName is ARM's name of a value's type, for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "String"
	case bool:
		return "Boolean"
	case int64, int, json.Number, float64:
		return "Integer"
	case []any:
		return "Array"
	case map[string]any:
		return "Object"
	case *lambdaFunc:
		return "Lambda"
	}
	return fmt.Sprintf("%T", v)
}

func exprString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	case map[string]any, []any:
		b, _ := json.Marshal(t)
		return string(b)
	}
	return fmt.Sprint(v)
}

// plain is a JSON value in armfunc's types: integers as int64 (the request
// is decoded with json.Number, to keep them exact), other numbers as float64.
func plain(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case int:
		return int64(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// call runs a function whose arguments are evaluated: the runner's own,
// a list* action, else armfunc's pure one.
func (env *exprEnv) call(n *exprNode, args []any) (any, error) {
	if f, ok := runnerFunctions[n.call]; ok {
		return f(env, n, args)
	}
	if isListFunction(n.call) {
		return env.list(n.written, args)
	}
	if f, ok := env.userFunctions[n.call]; ok {
		return env.callUser(n.written, f, args)
	}
	f, ok := armfunc.Lookup(n.call)
	if !ok {
		return nil, unknownFunction(n.written)
	}
	for i, a := range args {
		if _, isLambda := a.(*lambdaFunc); isLambda {
			return nil, exprErrorf("the template function '%s' does not take a lambda (argument %d)", n.written, i+1)
		}
		args[i] = plain(a)
	}
	v, err := f(args)
	if err != nil {
		return nil, exprErrorf("unable to evaluate template language function '%s': %v", n.written, err)
	}
	return v, nil
}

// unknownFunction refuses a function: one of ARM's reference the emulator
// does not run (see runnerFunctions), else one ARM does not know.
func unknownFunction(name string) error {
	for _, f := range armfunc.Reference {
		if strings.EqualFold(f.Name, name) {
			return exprErrorf("the template function '%s' is not run by the emulator", f.Name)
		}
	}
	return exprErrorf("the template function '%s' is not valid. Please see https://aka.ms/arm-functions for usage details", name)
}

// isListFunction reports whether a function is one of the list* resource
// actions (listKeys, listSecrets, listAccountSas, ...).
func isListFunction(lower string) bool {
	return strings.HasPrefix(lower, "list") && len(lower) > len("list")
}

// knownFunction reports whether the runner evaluates the function name (lower-cased).
func knownFunction(lower string) bool {
	switch lower {
	case "if", "and", "or", "lambda":
		return true
	}
	if _, ok := runnerFunctions[lower]; ok || isListFunction(lower) {
		return true
	}
	_, ok := armfunc.Lookup(lower)
	return ok
}

// resourceID builds an ID the way resourceId() and its relatives do:
// optional subscription and resource group, then a type (the first argument
// holding a "/") and one name per type segment after the namespace.
func (env *exprEnv) resourceID(fn string, args []any) (any, error) {
	typeAt := -1
	for i, a := range args {
		if s, ok := a.(string); ok && strings.Contains(s, "/") {
			typeAt = i
			break
		}
	}
	if typeAt < 0 {
		return nil, exprErrorf("%s needs a resource type", fn)
	}
	sub, rg := env.scope.sub, env.scope.rg
	scopeArgs := args[:typeAt]
	switch fn {
	case "tenantresourceid":
		if len(scopeArgs) > 0 {
			return nil, exprErrorf("tenantResourceId takes no subscription or resource group")
		}
		return typedID("", args[typeAt:])
	case "subscriptionresourceid":
		if len(scopeArgs) > 1 {
			return nil, exprErrorf("subscriptionResourceId takes no resource group")
		}
		if len(scopeArgs) == 1 {
			sub = exprString(scopeArgs[0])
		}
		return typedID("/subscriptions/"+sub, args[typeAt:])
	}
	switch len(scopeArgs) {
	case 0:
	case 1:
		rg = exprString(scopeArgs[0])
	case 2:
		sub, rg = exprString(scopeArgs[0]), exprString(scopeArgs[1])
	default:
		return nil, exprErrorf("resourceId takes at most a subscription and a resource group before the type")
	}
	if rg == "" {
		return typedID("/subscriptions/"+sub, args[typeAt:])
	}
	return typedID("/subscriptions/"+sub+"/resourceGroups/"+rg, args[typeAt:])
}

// typedID appends a type and its names to a scope ID; a resource group is
// "/subscriptions/{s}/resourceGroups/{name}".
func typedID(scope string, typeAndNames []any) (string, error) {
	typ := exprString(typeAndNames[0])
	names := typeAndNames[1:]
	segs := strings.Split(typ, "/")
	if len(segs) < 2 || len(segs)-1 != len(names) {
		return "", exprErrorf("unable to evaluate template language function 'resourceId': the type '%s' requires %d resource name argument(s)", typ, len(segs)-1)
	}
	if strings.EqualFold(typ, armpath.TypeResourceGroup) && strings.HasPrefix(scope, "/subscriptions/") && !strings.Contains(scope, "/providers/") {
		return scope + "/resourceGroups/" + exprString(names[0]), nil
	}
	var b strings.Builder
	b.WriteString(scope + "/providers/" + segs[0])
	for i, n := range names {
		b.WriteString("/" + segs[i+1] + "/" + exprString(n))
	}
	return b.String(), nil
}
