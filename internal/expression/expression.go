// Package expression evaluates the CEL expressions of operatorSpec.configMapExpressions
// and secretExpressions in the operator's environment: the variables self (the
// resource: apiVersion, kind, metadata, spec, status) and secret (the secrets
// the operator fetched for it, by operatorSpec.secrets key), the Kubernetes
// string extensions, optional types, two-variable comprehensions and
// aso.parseResourceId; an expression yields a string or a map of strings.
package expression

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"

	"github.com/azkcli/azk/internal/registry"
)

// Variable names of the operator's environment.
const (
	selfVar   = "self"
	secretVar = "secret"
)

// Output is what an expression yields.
type Output int

const (
	// String: one value, written under the destination's key.
	String Output = iota
	// Map: a map of strings, each entry a key of the destination (which names no key).
	Map
)

// Program is a compiled, type-checked expression.
type Program struct {
	Source string
	Output Output
	// ReadsStatus says the expression reads self.status: its value is known
	// only once the resource exists.
	ReadsStatus bool
	// Secrets are the secret keys it reads (secret.<key>).
	Secrets []string
	program cel.Program
}

var envs sync.Map // *registry.Kind -> *envResult

type envResult struct {
	once sync.Once
	env  *cel.Env
	err  error
}

// env returns the CEL environment for objects of kind k, built once.
func env(k *registry.Kind) (*cel.Env, error) {
	v, _ := envs.LoadOrStore(k, &envResult{})
	r := v.(*envResult)
	r.once.Do(func() { r.env, r.err = newEnv(k) })
	return r.env, r.err
}

func newEnv(k *registry.Kind) (*cel.Env, error) {
	base, err := cel.NewEnv()
	if err != nil {
		return nil, err
	}
	p := &schemaProvider{Provider: base.CELTypeProvider(), objects: map[string]*objectType{}}
	str := func(name string) *fieldDecl {
		return &fieldDecl{key: name, typ: types.StringType, kind: registry.TypeString}
	}
	strings := types.NewMapType(types.StringType, types.StringType)
	metadata := p.object("azk.ObjectMeta",
		str("name"), str("namespace"), str("generateName"), str("uid"), str("resourceVersion"),
		&fieldDecl{key: "generation", typ: types.IntType, kind: registry.TypeInteger},
		&fieldDecl{key: "labels", typ: strings, kind: registry.TypeMap},
		&fieldDecl{key: "annotations", typ: strings, kind: registry.TypeMap},
		&fieldDecl{key: "finalizers", typ: types.NewListType(types.StringType), kind: registry.TypeArray},
	)
	self := p.object("azk.Self",
		str("apiVersion"), str("kind"),
		&fieldDecl{key: "metadata", typ: metadata, kind: registry.TypeObject},
		&fieldDecl{key: "spec", typ: p.declare("azk.Spec", k.Spec), kind: registry.TypeObject},
		&fieldDecl{key: "status", typ: p.declare("azk.Status", k.Status), kind: registry.TypeObject},
	)
	resourceType := p.object("cel.ResourceType", str("namespace"), str("type"))
	resourceID := p.object("cel.ResourceID",
		str("subscriptionId"), str("resourceGroupName"), str("provider"), str("location"), str("name"),
		&fieldDecl{key: "resourceType", typ: resourceType, kind: registry.TypeObject},
	)
	p.objects["cel.ResourceID"].fields["parent"] = &fieldDecl{key: "parent", typ: resourceID, kind: registry.TypeObject}
	p.objects["cel.ResourceID"].names = append(p.objects["cel.ResourceID"].names, "parent")
	return cel.NewEnv(
		ext.Strings(ext.StringsVersion(3)),
		cel.DefaultUTCTimeZone(true),
		cel.EagerlyValidateDeclarations(true),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		ext.TwoVarComprehensions(ext.TwoVarComprehensionsVersion(0)),
		cel.CustomTypeProvider(p),
		cel.Variable(selfVar, self),
		cel.Variable(secretVar, strings),
		cel.Function("aso.parseResourceId",
			cel.Overload("aso_parseResourceId_string", []*cel.Type{cel.StringType}, resourceID,
				cel.UnaryBinding(parseResourceID))),
	)
}

// parseResourceID is aso.parseResourceId: an ARM ID as its parts.
func parseResourceID(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.NewErr("aso.parseResourceId: expected a string")
	}
	id, err := arm.ParseResourceID(s)
	if err != nil {
		return types.NewErr("aso.parseResourceId: %s", err)
	}
	return types.DefaultTypeAdapter.NativeToValue(resourceIDMap(id))
}

func resourceIDMap(id *arm.ResourceID) map[string]any {
	if id == nil {
		return nil
	}
	out := map[string]any{
		"subscriptionId":    id.SubscriptionID,
		"resourceGroupName": id.ResourceGroupName,
		"provider":          id.Provider,
		"location":          id.Location,
		"name":              id.Name,
		"resourceType":      map[string]any{"namespace": id.ResourceType.Namespace, "type": id.ResourceType.Type},
	}
	if id.Parent != nil {
		out["parent"] = resourceIDMap(id.Parent)
	}
	return out
}

type compileKey struct {
	kind   *registry.Kind
	source string
}

var programs sync.Map // compileKey -> *compiled

type compiled struct {
	once    sync.Once
	program *Program
	err     error
}

// Compile parses and type-checks source for objects of kind k, once per
// kind and source: validation and the graph both ask for every expression.
// The error says what is wrong, as the operator's webhook would refuse it.
// The Program is shared: callers read it and never change it.
func Compile(k *registry.Kind, source string) (*Program, error) {
	v, _ := programs.LoadOrStore(compileKey{k, source}, &compiled{})
	c := v.(*compiled)
	c.once.Do(func() { c.program, c.err = compile(k, source) })
	return c.program, c.err
}

func compile(k *registry.Kind, source string) (*Program, error) {
	e, err := env(k)
	if err != nil {
		return nil, fmt.Errorf("CEL environment for %s: %v", k.Kind, err)
	}
	checked, iss := e.Compile(source)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	p := &Program{Source: source}
	switch out := checked.OutputType(); {
	case out.IsExactType(types.StringType):
		p.Output = String
	case out.IsExactType(types.NewMapType(types.StringType, types.StringType)):
		p.Output = Map
	default:
		return nil, fmt.Errorf("must return one of [string, map(string, string)], but returns %s", out)
	}
	if p.program, err = e.Program(checked); err != nil {
		return nil, err
	}
	selected := map[string]map[string]bool{selfVar: {}, secretVar: {}}
	selections(checked.NativeRep().Expr(), selected)
	p.ReadsStatus = selected[selfVar]["status"]
	for key := range selected[secretVar] {
		p.Secrets = append(p.Secrets, key)
	}
	return p, nil
}

// Eval runs the program over self (the resource as JSON-shaped maps) and the
// secrets it reads; it yields a string or a map, as Output says.
func (p *Program) Eval(self map[string]any, secret map[string]string) (string, map[string]string, error) {
	if secret == nil {
		secret = map[string]string{}
	}
	out, _, err := p.program.Eval(map[string]any{selfVar: self, secretVar: secret})
	if err != nil {
		return "", nil, err
	}
	if p.Output == String {
		s, ok := out.Value().(string)
		if !ok {
			return "", nil, fmt.Errorf("returned %s, not a string", out.Type())
		}
		return s, nil, nil
	}
	native, err := out.ConvertToNative(mapOfStrings)
	if err != nil {
		return "", nil, err
	}
	return "", native.(map[string]string), nil
}

// selections records, per variable in found, the fields selected directly
// on it (self.status, secret.key1).
func selections(e ast.Expr, found map[string]map[string]bool) {
	if e == nil {
		return
	}
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if op := s.Operand(); op.Kind() == ast.IdentKind {
			if m, ok := found[op.AsIdent()]; ok {
				m[s.FieldName()] = true
			}
			return
		}
		selections(s.Operand(), found)
	case ast.CallKind:
		c := e.AsCall()
		selections(c.Target(), found)
		for _, a := range c.Args() {
			selections(a, found)
		}
		if c.FunctionName() == "_[_]" && len(c.Args()) == 2 {
			// secret["key"] reads a key too.
			if op, key := c.Args()[0], c.Args()[1]; op.Kind() == ast.IdentKind && key.Kind() == ast.LiteralKind {
				if m, ok := found[op.AsIdent()]; ok {
					if s, ok := key.AsLiteral().Value().(string); ok {
						m[s] = true
					}
				}
			}
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		selections(c.IterRange(), found)
		selections(c.AccuInit(), found)
		selections(c.LoopCondition(), found)
		selections(c.LoopStep(), found)
		selections(c.Result(), found)
	case ast.ListKind:
		for _, item := range e.AsList().Elements() {
			selections(item, found)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			me := entry.AsMapEntry()
			selections(me.Key(), found)
			selections(me.Value(), found)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			selections(f.AsStructField().Value(), found)
		}
	}
}

var mapOfStrings = reflect.TypeOf(map[string]string{})
