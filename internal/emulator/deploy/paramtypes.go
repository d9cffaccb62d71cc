package deploy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// This file binds a template's parameters and checks their values against
// their declared types, as ARM does before a deployment starts: the type,
// allowedValues, min/max length and value, and languageVersion 2.0's
// user-defined types ("$ref" to "definitions"): object properties (each
// required unless nullable), additionalProperties, array items and
// prefixItems, and discriminated unions.

// bindParameters sets env.params from the given values and the defaults,
// and shown to the parameters as a deployment shows them (secure ones
// without value).
func (env *exprEnv) bindParameters(tmpl, given map[string]any, shown map[string]any) error {
	declared, _ := tmpl["parameters"].(map[string]any)
	defs, _ := tmpl["definitions"].(map[string]any)
	env.paramTypes = declared
	for k := range given {
		if _, ok := lookupFold(declared, k); !ok {
			return invalidTemplate("the template parameter '%s' is given, but the template does not declare it", k)
		}
	}
	// Defaults may read other parameters: each is evaluated on first use.
	r := &paramResolver{env: env, declared: declared, given: given, defs: defs, shown: shown, resolving: map[string]bool{}}
	env.pendingParams = r
	defer func() { env.pendingParams = nil }()
	for _, name := range keysOf(declared) {
		if _, err := r.resolve(name); err != nil {
			return err
		}
	}
	return nil
}

type paramResolver struct {
	env                   *exprEnv
	declared, given, defs map[string]any
	shown                 map[string]any
	resolving             map[string]bool
}

func (r *paramResolver) resolve(name string) (any, error) {
	key := ""
	for k := range r.declared {
		if strings.EqualFold(k, name) {
			key = k
		}
	}
	if key == "" {
		return nil, exprErrorf("the template parameter '%s' is not found", name)
	}
	if v, ok := r.env.params[key]; ok {
		return v, nil
	}
	if r.resolving[key] {
		return nil, exprErrorf("the default value of parameter '%s' refers to itself", key)
	}
	r.resolving[key] = true
	defer delete(r.resolving, key)
	spec, _ := r.declared[key].(map[string]any)
	schema, err := resolveRef(spec, r.defs)
	if err != nil {
		return nil, invalidTemplate("the parameter '%s': %v", key, err)
	}
	var value any
	supplied := false
	if g, ok := lookupFold(r.given, key); ok {
		gm, _ := g.(map[string]any)
		if _, isRef := gm["reference"]; isRef {
			return nil, invalidTemplate("the parameter '%s' is a Key Vault reference, which the emulator does not resolve", key)
		}
		value, supplied = gm["value"], true
	}
	if !supplied {
		dv, ok := spec["defaultValue"]
		switch {
		case ok:
			inner := *r.env
			inner.parameterDefault = true
			v, err := inner.evalValue(dv)
			if err != nil {
				return nil, invalidTemplate("the default value of parameter '%s': %v", key, err)
			}
			value = v
		case nullable(spec, schema):
		default:
			return nil, invalidTemplate("the value for the template parameter '%s' is not provided", key)
		}
	}
	if err := checkValue(schema, value, r.defs, ""); err != nil {
		return nil, invalidTemplate("the provided value for the template parameter '%s' is not valid: %v", key, err)
	}
	r.env.params[key] = value
	typ, _ := schema["type"].(string)
	if strings.HasPrefix(strings.ToLower(typ), "secure") {
		r.shown[key] = map[string]any{"type": "Secure" + strings.TrimPrefix(strings.ToLower(typ), "secure")}
	} else {
		r.shown[key] = map[string]any{"type": typ, "value": value}
	}
	return value, nil
}

func nullable(specs ...map[string]any) bool {
	for _, s := range specs {
		if b, _ := s["nullable"].(bool); b {
			return true
		}
	}
	return false
}

// resolveRef follows a schema's "$ref" to its definition ("#/definitions/name"),
// the schema's own constraints kept on top.
func resolveRef(schema, defs map[string]any) (map[string]any, error) {
	for range 32 {
		ref, ok := schema["$ref"].(string)
		if !ok {
			return schema, nil
		}
		name, found := strings.CutPrefix(ref, "#/definitions/")
		def, _ := defs[name].(map[string]any)
		if !found || def == nil {
			return nil, fmt.Errorf("the type '%s' is not defined in the template's definitions", ref)
		}
		merged := map[string]any{}
		for k, v := range def {
			merged[k] = v
		}
		for k, v := range schema {
			if k != "$ref" {
				merged[k] = v
			}
		}
		schema = merged
	}
	return nil, fmt.Errorf("the type definitions refer to each other without end")
}

// checkValue checks v against a schema; at names where it is, for messages.
func checkValue(schema map[string]any, v any, defs map[string]any, at string) error {
	schema, err := resolveRef(schema, defs)
	if err != nil {
		return err
	}
	where := func() string {
		if at == "" {
			return ""
		}
		return " at '" + at + "'"
	}
	if v == nil {
		if nullable(schema) {
			return nil
		}
		return fmt.Errorf("a value is required%s", where())
	}
	typ, _ := schema["type"].(string)
	if typ != "" && !typeMatches(typ, v) {
		return fmt.Errorf("expected a value of type '%s'%s, not %s", typ, where(), typeName(v))
	}
	if allowed, ok := schema["allowedValues"].([]any); ok {
		items := []any{v}
		if list, isList := v.([]any); isList && strings.EqualFold(typ, "array") {
			items = list
		}
		for _, item := range items {
			if !containsValue(allowed, item) {
				return fmt.Errorf("the value '%s'%s is not part of the allowed values '%s'", exprString(item), where(), exprString(allowed))
			}
		}
	}
	if err := checkBounds(schema, v, where()); err != nil {
		return err
	}
	switch t := v.(type) {
	case map[string]any:
		return checkObject(schema, t, defs, at)
	case []any:
		prefix, _ := schema["prefixItems"].([]any)
		for i, item := range t {
			itemAt := fmt.Sprintf("%s[%d]", at, i)
			if i < len(prefix) {
				ps, _ := prefix[i].(map[string]any)
				if err := checkValue(ps, item, defs, itemAt); err != nil {
					return err
				}
				continue
			}
			switch items := schema["items"].(type) {
			case map[string]any:
				if err := checkValue(items, item, defs, itemAt); err != nil {
					return err
				}
			case bool:
				if !items && len(prefix) > 0 {
					return fmt.Errorf("the array%s has more items than its %d", where(), len(prefix))
				}
			}
		}
	}
	return nil
}

func checkBounds(schema map[string]any, v any, where string) error {
	length := -1
	switch t := v.(type) {
	case string:
		length = utf8.RuneCountInString(t)
	case []any:
		length = len(t)
	}
	if n, ok := toInt(schema["minLength"]); ok && length >= 0 && int64(length) < n {
		return fmt.Errorf("the length %d%s is less than the minimum length %d", length, where, n)
	}
	if n, ok := toInt(schema["maxLength"]); ok && length >= 0 && int64(length) > n {
		return fmt.Errorf("the length %d%s is more than the maximum length %d", length, where, n)
	}
	if i, isInt := toInt(v); isInt {
		if n, ok := toInt(schema["minValue"]); ok && i < n {
			return fmt.Errorf("the value %d%s is less than the minimum value %d", i, where, n)
		}
		if n, ok := toInt(schema["maxValue"]); ok && i > n {
			return fmt.Errorf("the value %d%s is more than the maximum value %d", i, where, n)
		}
	}
	return nil
}

func checkObject(schema map[string]any, obj map[string]any, defs map[string]any, at string) error {
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	if disc, ok := schema["discriminator"].(map[string]any); ok {
		prop, _ := disc["propertyName"].(string)
		mapping, _ := disc["mapping"].(map[string]any)
		tag, _ := obj[prop].(string)
		variant, ok := mapping[tag].(map[string]any)
		if !ok {
			return fmt.Errorf("the discriminator '%s' of '%s' has value '%s', which is not one of '%s'", prop, at, tag, strings.Join(keysOf(mapping), "', '"))
		}
		return checkValue(variant, obj, defs, at)
	}
	props, _ := schema["properties"].(map[string]any)
	for _, name := range keysOf(props) {
		ps, _ := props[name].(map[string]any)
		v, present := obj[name]
		if !present {
			resolved, err := resolveRef(ps, defs)
			if err != nil {
				return err
			}
			if !nullable(ps, resolved) {
				return fmt.Errorf("the property '%s' is required", join(name))
			}
			continue
		}
		if err := checkValue(ps, v, defs, join(name)); err != nil {
			return err
		}
	}
	if props == nil && schema["additionalProperties"] == nil {
		return nil
	}
	for _, k := range keysOf(obj) {
		if _, declared := props[k]; declared {
			continue
		}
		switch extra := schema["additionalProperties"].(type) {
		case bool:
			if !extra {
				return fmt.Errorf("the property '%s' is not allowed", join(k))
			}
		case map[string]any:
			if err := checkValue(extra, obj[k], defs, join(k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func containsValue(list []any, v any) bool {
	for _, item := range list {
		if sameJSON(item, v) {
			return true
		}
	}
	return false
}

// sameJSON compares JSON values whatever their Go number types.
func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(plain(a))
	jb, _ := json.Marshal(plain(b))
	var ca, cb any
	_ = json.Unmarshal(ja, &ca)
	_ = json.Unmarshal(jb, &cb)
	return reflect.DeepEqual(ca, cb)
}

func typeMatches(typ string, v any) bool {
	switch strings.ToLower(typ) {
	case "string", "securestring":
		_, ok := v.(string)
		return ok
	case "int":
		_, ok := toInt(v)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "object", "secureobject":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	}
	return false
}
