package deploy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/deployment/armtemplate"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// This file evaluates ARM template expressions: the subset deployment
// templates use to name and wire resources. A JSON string that starts with
// "[" and ends with "]" is an expression ("[[" escapes a literal "["):
// function calls with string, integer and nested call arguments, then
// property (".name", "['name']") and index ("[0]") accessors.
//
// Functions: parameters, variables, concat, format, string, toLower,
// toUpper, equals, if, not, empty, length, json, createObject, createArray,
// deployment, resourceGroup, subscription, tenant, resourceId,
// subscriptionResourceId, tenantResourceId, extensionResourceId, reference.

// exprEnv is what an expression can see.
type exprEnv struct {
	params, vars map[string]any
	deployment   map[string]any
	scope        deployScope
	// reference reads a resource (reference()); nil makes it an error.
	reference func(id, apiVersion string, full bool) (any, error)
}

// exprError is a template expression that cannot be evaluated.
type exprError struct{ msg string }

func (e *exprError) Error() string { return e.msg }

func exprErrorf(format string, args ...any) error {
	return &exprError{msg: fmt.Sprintf(format, args...)}
}

// evalValue evaluates every expression inside a template value.
func (env *exprEnv) evalValue(v any) (any, error) { return mapStrings(v, env.evalString) }

// evalString evaluates a template string: an expression, or a literal.
func (env *exprEnv) evalString(s string) (any, error) {
	if armtemplate.IsExpression(s) {
		return env.eval(s[1 : len(s)-1])
	}
	return armtemplate.Unescape(s), nil
}

// mapStrings copies a JSON value with f applied to every string in it.
func mapStrings(v any, f func(string) (any, error)) (any, error) {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := mapStrings(e, f)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := mapStrings(e, f)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
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
	call    string
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
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '(' {
			return nil, exprErrorf("the template language expression '%s' is not valid: '%s' is not a function call", p.src, name)
		}
		p.pos++
		n = &exprNode{call: strings.ToLower(name)}
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
		args := make([]any, len(n.args))
		for i, a := range n.args {
			v, err := env.evalNode(a)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return env.call(n.call, args)
	}
	return n.literal, nil
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
	return nil, exprErrorf("the language expression cannot read property '%v' of a %T", idx, of)
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
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

func (env *exprEnv) call(name string, args []any) (any, error) {
	argString := func(i int) (string, error) {
		if i >= len(args) {
			return "", exprErrorf("the template function '%s' expects more arguments", name)
		}
		s, ok := args[i].(string)
		if !ok {
			return "", exprErrorf("the template function '%s' expects a string as argument %d, not %T", name, i+1, args[i])
		}
		return s, nil
	}
	switch name {
	case "parameters", "variables":
		key, err := argString(0)
		if err != nil {
			return nil, err
		}
		table := env.params
		if name == "variables" {
			table = env.vars
		}
		for k, v := range table {
			if strings.EqualFold(k, key) {
				return v, nil
			}
		}
		return nil, exprErrorf("the template %s '%s' is not found", strings.TrimSuffix(name, "s"), key)
	case "concat":
		if len(args) > 0 {
			if _, ok := args[0].([]any); ok {
				var out []any
				for _, a := range args {
					l, ok := a.([]any)
					if !ok {
						return nil, exprErrorf("concat mixes arrays and other values")
					}
					out = append(out, l...)
				}
				return out, nil
			}
		}
		var b strings.Builder
		for _, a := range args {
			b.WriteString(exprString(a))
		}
		return b.String(), nil
	case "format":
		f, err := argString(0)
		if err != nil {
			return nil, err
		}
		for i, a := range args[1:] {
			f = strings.ReplaceAll(f, "{"+strconv.Itoa(i)+"}", exprString(a))
		}
		return f, nil
	case "string":
		if len(args) != 1 {
			return nil, exprErrorf("string takes one argument")
		}
		return exprString(args[0]), nil
	case "tolower", "toupper":
		s, err := argString(0)
		if err != nil {
			return nil, err
		}
		if name == "tolower" {
			return strings.ToLower(s), nil
		}
		return strings.ToUpper(s), nil
	case "equals":
		if len(args) != 2 {
			return nil, exprErrorf("equals takes two arguments")
		}
		return exprString(args[0]) == exprString(args[1]), nil
	case "not":
		b, ok := firstBool(args)
		if !ok {
			return nil, exprErrorf("not takes one boolean")
		}
		return !b, nil
	case "if":
		b, ok := firstBool(args)
		if !ok || len(args) != 3 {
			return nil, exprErrorf("if takes a boolean and two values")
		}
		if b {
			return args[1], nil
		}
		return args[2], nil
	case "true", "false":
		return name == "true", nil
	case "empty":
		if len(args) != 1 {
			return nil, exprErrorf("empty takes one argument")
		}
		switch t := args[0].(type) {
		case nil:
			return true, nil
		case string:
			return t == "", nil
		case []any:
			return len(t) == 0, nil
		case map[string]any:
			return len(t) == 0, nil
		}
		return false, nil
	case "length":
		if len(args) != 1 {
			return nil, exprErrorf("length takes one argument")
		}
		switch t := args[0].(type) {
		case string:
			return int64(len(t)), nil
		case []any:
			return int64(len(t)), nil
		case map[string]any:
			return int64(len(t)), nil
		}
		return nil, exprErrorf("length of a %T", args[0])
	case "json":
		s, err := argString(0)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, exprErrorf("json: %v", err)
		}
		return v, nil
	case "createobject":
		out := map[string]any{}
		for i := 0; i+1 < len(args); i += 2 {
			out[exprString(args[i])] = args[i+1]
		}
		return out, nil
	case "createarray":
		return append([]any{}, args...), nil
	case "deployment":
		return env.deployment, nil
	case "resourcegroup":
		if env.scope.rg == "" {
			return nil, exprErrorf("the template function 'resourceGroup' is not expected at this location: the deployment is not at resource group scope")
		}
		return map[string]any{"id": env.scope.id(), "name": env.scope.rg, "type": armpath.TypeResourceGroup, "location": env.scope.location}, nil
	case "subscription":
		if env.scope.sub == "" {
			return nil, exprErrorf("the template function 'subscription' is not expected at this location: the deployment is at tenant scope")
		}
		return map[string]any{"id": "/subscriptions/" + env.scope.sub, "subscriptionId": env.scope.sub, "tenantId": armcore.Tenant, "displayName": "Emulated subscription"}, nil
	case "tenant":
		return map[string]any{"tenantId": armcore.Tenant}, nil
	case "resourceid", "subscriptionresourceid", "tenantresourceid":
		return env.resourceID(name, args)
	case "extensionresourceid":
		if len(args) < 3 {
			return nil, exprErrorf("extensionResourceId takes a scope, a type and names")
		}
		scope, _ := args[0].(string)
		id, err := typedID(strings.TrimSuffix(scope, "/"), args[1:])
		if err != nil {
			return nil, err
		}
		return id, nil
	case "reference":
		id, err := argString(0)
		if err != nil {
			return nil, err
		}
		apiVersion := ""
		if len(args) > 1 {
			apiVersion, _ = args[1].(string)
		}
		full := len(args) > 2 && strings.EqualFold(exprString(args[2]), "full")
		if env.reference == nil {
			return nil, exprErrorf("the template function 'reference' is not expected at this location")
		}
		return env.reference(id, apiVersion, full)
	}
	return nil, exprErrorf("the template function '%s' is not supported by the emulator", name)
}

func firstBool(args []any) (bool, bool) {
	if len(args) == 0 {
		return false, false
	}
	b, ok := args[0].(bool)
	return b, ok
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
