package deployment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/deployment/armtemplate"
	"github.com/azkcli/azk/internal/expression"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/registry"
)

// object is a JSON object that keeps its keys in the order written, so that
// templates read as ARM's documentation writes them ($schema first, a
// resource's type, apiVersion and name before its body).
type object []member

type member struct {
	Key   string
	Value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// get returns the value of key, or nil.
func (o object) get(key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// marshal encodes v without escaping HTML characters, which ARM bodies (URLs,
// XML and JSON documents in strings) hold as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// secret is a secureString parameter: the secret's value stays in memory and
// is passed only in the deployment request, never written to a template.
type secret struct {
	name, description string
	value             convert.Sensitive
}

// bodyWriter turns a plan's desired body into a template resource's body:
// secrets become parameters, values another resource exports after apply
// become reference() expressions, and strings that ARM would read as
// expressions are escaped.
type bodyWriter struct {
	address string
	scope   Scope
	// newSecret declares the parameter for the secret at path and returns its name.
	newSecret func(path string, v convert.Sensitive) string
	// lookup finds the plan item of the resource that exports a value.
	lookup func(*convert.ExportRef) (*item, error)
	// validation stands a value no template computes by reference() to
	// its exporter, found by exporter (Options.Validation).
	validation bool
	exporter   func(*graph.Node) *item
}

func (w *bodyWriter) value(v any, path string) (any, error) {
	switch t := v.(type) {
	case convert.Sensitive:
		return "[parameters(" + quote(w.newSecret(path, t)) + ")]", nil
	case convert.Unknown:
		return w.reference(t, path)
	case string:
		return armtemplate.Escape(t), nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			c, err := w.value(e, armjson.Join(path, k))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := w.value(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// reference is the expression reading a value that another resource exports
// once it exists: reference(id, apiVersion, 'Full') and the ARM path of the
// status field the operator's config map export reads.
func (w *bodyWriter) reference(u convert.Unknown, path string) (any, error) {
	if u.Export != nil && w.lookup != nil {
		if armPath, ok := exportedPath(u.Export.From, u.Export.ConfigMap, u.Export.Key); ok {
			from, err := w.lookup(u.Export)
			if err != nil {
				return nil, err
			}
			return "[" + referenceExpr(from.id, from.apiVersion, armPath, w.scope) + "]", nil
		}
	}
	if w.validation && u.ExportedBy != nil && w.exporter != nil {
		if from := w.exporter(u.ExportedBy); from != nil {
			// A stand-in, never deployed: known only once the exporter is,
			// as the value it stands for.
			return "[" + referenceExpr(from.id, from.apiVersion, []string{"id"}, w.scope) + "]", nil
		}
	}
	return nil, fmt.Errorf("%s: %s is known only after apply (%s), and a template cannot compute it: apply with the default engine", w.address, path, u.Reason)
}

// referenceExpr reads the value at armPath of the resource id once it is
// deployed, from a template at scope s.
func referenceExpr(id armid.ID, apiVersion string, armPath []string, s Scope) string {
	var b strings.Builder
	fmt.Fprintf(&b, "reference(%s, %s, 'Full')", idExpr(id, s), quote(apiVersion))
	for _, seg := range armPath {
		b.WriteString(accessor(seg))
	}
	return b.String()
}

// celStatusField is a configMapExpressions value that only reads a status
// field ("self.status.principalId"), which a template can read as well.
var celStatusField = regexp.MustCompile(`^\s*self\.status((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$`)

// exportedPath is where, in its ARM body, the resource from holds the value
// it exports to config map name, key: a status field of an
// operatorSpec.configMaps entry, or of an expression that only reads one.
// ok is false for values a template cannot read (other expressions, values
// the operator's own code fills).
func exportedPath(from *graph.Node, name, key string) ([]string, bool) {
	if from == nil || from.Kind == nil {
		return nil, false
	}
	e, ok := from.Export(name, key)
	if !ok || e.Manual {
		return nil, false
	}
	status := e.Status
	if e.Program != nil {
		m := celStatusField.FindStringSubmatch(e.Program.Source)
		if m == nil || e.Program.Output != expression.String {
			return nil, false
		}
		status = strings.Split(strings.TrimPrefix(m[1], "."), ".")
	}
	if len(status) == 0 {
		return nil, false
	}
	return statusARMPath(from.Kind.Status, status)
}

// statusARMPath maps a status path (the operator's field names) to where the
// ARM body holds it, from the registry's status schema.
func statusARMPath(f *registry.Field, status []string) ([]string, bool) {
	var out []string
	for _, name := range status {
		if f == nil {
			return nil, false
		}
		var next *registry.Field
		for _, c := range f.Fields {
			if c.Name == name {
				next = c
				break
			}
		}
		if next == nil || next.ARM == nil {
			return nil, false
		}
		out = append(out, next.ARM...)
		f = next
	}
	return out, len(out) > 0
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// accessor reads property seg in a template expression.
func accessor(seg string) string {
	if identifier.MatchString(seg) {
		return "." + seg
	}
	return "[" + quote(seg) + "]"
}

// resourceEntry is one template resource: type, apiVersion, name (parent
// names first for child types), scope for extension resources, the body's
// keys, and dependsOn.
func resourceEntry(it *item, s Scope, body map[string]any, dependsOn []string) (object, error) {
	name := strings.Join(resourceNames(it.id), "/")
	if it.late != nil {
		// Named from another resource's status: the nested deployment
		// carrying it passes the name as a parameter, read with reference().
		names := resourceNames(it.id)
		name = "[parameters(" + quote(it.late.param) + ")]"
		if len(names) > 1 {
			name = "[concat(" + quote(strings.Join(names[:len(names)-1], "/")+"/") + ", parameters(" + quote(it.late.param) + "))]"
		}
	}
	o := object{{"type", it.id.Type()}, {"apiVersion", it.apiVersion}, {"name", name}}
	if n := len(it.id.Providers); n > 1 {
		// An extension resource names the resource it extends relative to
		// the deployment's scope, as ARM's documentation writes it
		// ("Microsoft.KeyVault/vaults/kv"); that resource is in the same
		// scope, since the extension's ID starts with its ID.
		parent := armid.ID{Subscription: it.id.Subscription, ResourceGroup: it.id.ResourceGroup, Providers: it.id.Providers[:n-1]}
		rel := strings.TrimPrefix(parent.String(), s.ID()+"/providers/")
		if rel == parent.String() {
			return nil, fmt.Errorf("%s: it extends %s, outside %s", it.r.Address, parent, s)
		}
		o = append(o, member{"scope", rel})
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		if k == "name" {
			continue // the template's name carries it, with the parents'
		}
		if armtemplate.TemplateKey(k) || strings.EqualFold(k, "id") {
			return nil, fmt.Errorf("%s: the body's top-level %q is a template keyword, so a template cannot carry this body: apply with the default engine", it.r.Address, k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o = append(o, member{k, body[k]})
	}
	if len(dependsOn) > 0 {
		o = append(o, member{"dependsOn", dependsOn})
	}
	return o, nil
}
