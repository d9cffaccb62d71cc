package deploy

import (
	"strings"

	"github.com/azkcli/azk/internal/deployment/armtemplate"
)

// Never a false success: a template feature the emulator does not run is
// refused, naming it, before anything runs. checkTemplate is the one check
// of a template's shape and functions; prepare calls it, so validate,
// what-if and create refuse alike, and a nested template is checked with
// its parent, where it is written.

// topLevelKeys are a template's top-level members the runner reads;
// ARM refuses any other member.
var topLevelKeys = map[string]bool{
	"$schema": true, "contentversion": true, "languageversion": true, "metadata": true,
	"parameters": true, "variables": true, "resources": true, "outputs": true, "definitions": true,
	"functions": true,
}

// notRunTopLevel are members ARM knows that change what a template does
// and the emulator does not run, with what they are.
var notRunTopLevel = map[string]string{
	"apiprofile": "an API profile",
	"imports":    "imported extensibility providers",
	"extensions": "extensions",
	"asserts":    "asserts",
}

// notRunResourceKeys are resource members the emulator does not run.
var notRunResourceKeys = map[string]string{
	"import":    "an extensibility import",
	"asserts":   "asserts",
	"extension": "an extension resource of an extensibility provider",
}

// runnerResourceKeys are the resource members the runner reads beyond the
// ones armtemplate knows as template keys; none is sent in the resource's body.
var runnerResourceKeys = map[string]bool{"existing": true, "metadata": true, "resources": true}

// bodyKey reports whether a resource member is part of the body its PUT sends.
func bodyKey(k string) bool {
	return !armtemplate.TemplateKey(k) && !runnerResourceKeys[strings.ToLower(k)]
}

// checkTemplate refuses what the emulator does not run in tmpl and reports
// whether it is languageVersion 2.0.
func checkTemplate(tmpl map[string]any) (bool, error) {
	v2 := false
	for _, k := range keysOf(tmpl) {
		lk := strings.ToLower(k)
		if what, ok := notRunTopLevel[lk]; ok {
			if isEmpty(tmpl[k]) {
				continue
			}
			return false, invalidTemplate("the template's '%s' (%s) is not run by the emulator", k, what)
		}
		if !topLevelKeys[lk] {
			return false, invalidTemplate("could not find member '%s' on object of type 'Template'", k)
		}
	}
	if lv, ok := tmpl["languageVersion"]; ok {
		switch lv {
		case "1.0":
		case "2.0":
			v2 = true
		default:
			return false, invalidTemplate("the template's languageVersion '%v' is not run by the emulator: it runs 1.0 and 2.0", lv)
		}
	}
	if _, ok := tmpl["definitions"]; ok && !v2 {
		return false, invalidTemplate("the template's 'definitions' (user-defined types) need languageVersion 2.0")
	}
	if err := checkResources(tmpl["resources"], v2); err != nil {
		return false, err
	}
	udfs, err := readUserFunctions(tmpl["functions"])
	if err != nil {
		return false, err
	}
	return v2, checkFunctions(tmpl, udfs)
}

func checkResources(resources any, v2 bool) error {
	var list []any
	switch t := resources.(type) {
	case []any:
		list = t
	case map[string]any:
		for _, k := range keysOf(t) {
			list = append(list, t[k])
		}
	}
	for _, item := range list {
		m, _ := item.(map[string]any)
		label, _ := m["name"].(string)
		for _, k := range keysOf(m) {
			if what, ok := notRunResourceKeys[strings.ToLower(k)]; ok {
				return invalidTemplate("the resource '%s' has '%s' (%s), which the emulator does not run", label, k, what)
			}
			if strings.EqualFold(k, "existing") && !v2 {
				return invalidTemplate("the resource '%s' is 'existing', which needs languageVersion 2.0", label)
			}
		}
		if children, ok := m["resources"]; ok {
			if err := checkResources(children, v2); err != nil {
				return err
			}
		}
		if !strings.EqualFold(exprString(m["type"]), "Microsoft.Resources/deployments") {
			continue
		}
		props, _ := m["properties"].(map[string]any)
		if _, ok := props["templateLink"]; ok {
			return templateLinkRefused(label)
		}
		if _, ok := props["parametersLink"]; ok {
			return invalidTemplate("the nested deployment '%s' has a parametersLink: the emulator fetches no linked parameters; give them inline", label)
		}
		if mode, _ := props["mode"].(string); mode != "" && !strings.EqualFold(mode, "Incremental") {
			return invalidTemplate("the nested deployment '%s' has mode '%s': the emulator runs Incremental deployments only", label, mode)
		}
		if inner, ok := props["template"].(map[string]any); ok {
			if _, err := checkTemplate(inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// templateLinkRefused names why a linked template is refused: the emulator
// fetches no template by URI and holds no template specs
// (Microsoft.Resources/templateSpecs) for templateLink.id to name.
func templateLinkRefused(deployment string) error {
	where := "the deployment"
	if deployment != "" {
		where = "the nested deployment '" + deployment + "'"
	}
	return invalidTemplate("%s has a templateLink: the emulator runs inline templates only; it fetches no linked template and holds no template specs", where)
}

// checkFunctions parses every expression of the template and refuses a
// function the runner does not evaluate, by name; udfs are the template's
// user-defined functions. A nested deployment's template is checked on
// its own (checkResources), with its own functions.
func checkFunctions(v any, udfs map[string]*userFunction) error {
	switch t := v.(type) {
	case string:
		if !armtemplate.IsExpression(t) {
			return nil
		}
		p := &exprParser{src: t[1 : len(t)-1]}
		n, err := p.parse()
		if err != nil {
			return invalidTemplate("%v", err)
		}
		if name := unknownCall(n, udfs); name != "" {
			return invalidTemplate("%v", unknownFunction(name))
		}
	case map[string]any:
		nested := strings.EqualFold(exprString(t["type"]), "Microsoft.Resources/deployments")
		for _, k := range keysOf(t) {
			v := t[k]
			if props, ok := v.(map[string]any); ok && nested && k == "properties" {
				rest := make(map[string]any, len(props))
				for pk, pv := range props {
					if pk != "template" {
						rest[pk] = pv
					}
				}
				v = rest
			}
			if err := checkFunctions(v, udfs); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := checkFunctions(e, udfs); err != nil {
				return err
			}
		}
	}
	return nil
}

// unknownCall is the first function in n the runner does not evaluate, as written.
func unknownCall(n *exprNode, udfs map[string]*userFunction) string {
	if n == nil {
		return ""
	}
	if _, user := udfs[n.call]; n.call != "" && !user && !knownFunction(n.call) {
		return n.written
	}
	for _, a := range n.args {
		if name := unknownCall(a, udfs); name != "" {
			return name
		}
	}
	if name := unknownCall(n.of, udfs); name != "" {
		return name
	}
	return unknownCall(n.index, udfs)
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return false
}
