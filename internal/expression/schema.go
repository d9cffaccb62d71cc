package expression

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/azkcli/azk/internal/registry"
)

// schemaProvider declares the object types of one kind to CEL, from the
// registry's schema, so that expressions type-check against the fields the
// resource really has, as the operator's checker does over its Go types.
// At run time objects are JSON-shaped maps (map[string]any); each field reads
// its key, coerced to the declared type.
type schemaProvider struct {
	types.Provider // the environment's own, for everything else
	objects        map[string]*objectType
}

type objectType struct {
	fields map[string]*fieldDecl // by CEL name (escaped)
	names  []string
}

type fieldDecl struct {
	key  string // JSON name
	typ  *types.Type
	kind registry.Type
}

// declare registers the object type name for f and its nested objects and
// returns f's CEL type.
func (p *schemaProvider) declare(name string, f *registry.Field) *types.Type {
	if f == nil {
		return types.DynType
	}
	switch f.Type {
	case registry.TypeObject:
		if len(f.Fields) == 0 {
			return types.NewMapType(types.StringType, types.DynType)
		}
		obj := &objectType{fields: map[string]*fieldDecl{}}
		p.objects[name] = obj
		for _, c := range f.Fields {
			celName := escapeField(c.Name)
			obj.fields[celName] = &fieldDecl{key: c.Name, typ: p.declare(name+"."+celName, c), kind: c.Type}
			obj.names = append(obj.names, celName)
		}
		return types.NewObjectType(name)
	case registry.TypeArray:
		return types.NewListType(p.declare(name+"[]", f.Items))
	case registry.TypeMap:
		return types.NewMapType(types.StringType, p.declare(name+"{}", f.Values))
	case registry.TypeString:
		return types.StringType
	case registry.TypeInteger:
		return types.IntType
	case registry.TypeNumber:
		return types.DoubleType
	case registry.TypeBoolean:
		return types.BoolType
	}
	return types.DynType
}

// object registers a fixed object type from its fields.
func (p *schemaProvider) object(name string, fields ...*fieldDecl) *types.Type {
	obj := &objectType{fields: map[string]*fieldDecl{}}
	for _, f := range fields {
		obj.fields[escapeField(f.key)] = f
		obj.names = append(obj.names, escapeField(f.key))
	}
	p.objects[name] = obj
	return types.NewObjectType(name)
}

func (p *schemaProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *schemaProvider) FindStructFieldNames(name string) ([]string, bool) {
	if obj, ok := p.objects[name]; ok {
		return obj.names, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *schemaProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	obj, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	f, ok := obj.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{
		Type: f.typ,
		IsSet: func(target any) bool {
			m, _ := target.(map[string]any)
			v, ok := m[f.key]
			return ok && v != nil
		},
		GetFrom: func(target any) (any, error) {
			m, _ := target.(map[string]any)
			v, ok := m[f.key]
			if !ok || v == nil {
				return nil, fmt.Errorf("no such key: %s", f.key)
			}
			return coerce(v, f.kind), nil
		},
	}, true
}

// NewValue builds objects from CEL literals of the declared types.
func (p *schemaProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	obj, ok := p.objects[name]
	if !ok {
		return p.Provider.NewValue(name, fields)
	}
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		f, ok := obj.fields[k]
		if !ok {
			return types.NewErr("no such field: %s", k)
		}
		out[f.key] = v.Value()
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}

// coerce gives JSON numbers the type the schema declares: YAML integers in a
// number field, and ARM's float64 in an integer field.
func coerce(v any, t registry.Type) any {
	switch t {
	case registry.TypeInteger:
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			return int64(f)
		}
	case registry.TypeNumber:
		switch n := v.(type) {
		case int64:
			return float64(n)
		case int:
			return float64(n)
		}
	}
	return v
}

// escapeField spells a JSON name as a CEL field name, as Kubernetes (and so
// the operator) escapes them: reserved words as __word__, and "__", ".",
// "-", "/" as __underscores__, __dot__, __dash__, __slash__.
func escapeField(name string) string {
	switch name {
	case "true", "false", "null", "in":
		return "__" + name + "__"
	}
	return fieldEscaper.Replace(name)
}

var fieldEscaper = strings.NewReplacer("__", "__underscores__", ".", "__dot__", "-", "__dash__", "/", "__slash__")
