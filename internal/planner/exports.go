package planner

import (
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
)

// Export is a value a resource publishes for other resources and for
// applications: a key of a config map or Secret the operator would write,
// and where the value comes from. Values are never part of a plan.
type Export struct {
	// Kind is "configMap" or "secret".
	Kind string `json:"kind"`
	// Name is the config map's or Secret's name; Key the key in it, empty
	// for an expression yielding a map (each of its entries is a key).
	Name string `json:"name"`
	Key  string `json:"key,omitempty"`
	// From says where the value comes from: "status.<path>", "POST <action>"
	// (an action under the resource's ARM ID that reads its keys), "the
	// subscription of its ARM ID", "CEL <expression>", "the kind's
	// extension, …" (extensions.ConfigExporter), or "the operator's
	// extension" for values azk does not know how to take.
	From string `json:"from"`
}

// Export kinds.
const (
	ExportConfigMap = "configMap"
	ExportSecret    = "secret"
)

// exportsOf lists what n publishes, config maps first, each in spec order.
func exportsOf(n *graph.Node) []Export {
	var out []Export
	for _, e := range n.Exports {
		x := Export{Kind: ExportConfigMap, Name: e.ConfigMap, Key: e.Key}
		switch {
		case e.Program != nil:
			x.From = "CEL " + e.Program.Source
		case e.Manual && extensions.ConfigExporterFor(n.Kind.ARMType) != nil:
			x.From = "the kind's extension, reading what its status refers to"
		case e.Manual:
			x.From = "the operator's extension"
		default:
			x.From = "status." + strings.Join(e.Status, ".")
		}
		out = append(out, x)
	}
	for _, e := range n.SecretExports {
		x := Export{Kind: ExportSecret, Name: e.Secret, Key: e.Key}
		if e.Program != nil {
			x.From = "CEL " + e.Program.Source
		} else if x.From = extensions.SecretSource(n.Kind.ARMType, e.Name); x.From == "" {
			x.From = "the operator's extension"
		}
		out = append(out, x)
	}
	return out
}

// secretReads are the POSTs apply may send to read the secrets n exports
// (listKeys and its kin, which change nothing), when a resource of g reads
// them; full ARM paths, sorted.
func secretReads(g *graph.Graph, n *graph.Node) []string {
	if len(n.SecretExports) == 0 || n.ID == "" || !consumesSecrets(g, n) {
		return nil
	}
	e := extensions.SecretExporterFor(n.Kind.ARMType)
	if e == nil {
		return nil
	}
	var out []string
	for _, action := range e.SecretReads(n.SecretsRequested()) {
		out = append(out, n.ID+"/"+action)
	}
	sort.Strings(out)
	return out
}

// consumesSecrets reports whether a resource of g reads a Secret n exports.
func consumesSecrets(g *graph.Graph, n *graph.Node) bool {
	for _, c := range g.Nodes {
		for _, e := range c.Edges {
			if e.Kind == graph.EdgeSecret && e.To == n {
				return true
			}
		}
	}
	return false
}

// manualConfig is a config-map value from's kind fills by hand
// (extensions.ConfigExporter), from what was read of it for this plan and
// what it refers to (read once, however many resources ask); false while
// from does not exist.
func (m *maker) manualConfig(from *graph.Node, name string) (string, bool, error) {
	fs := m.states[from]
	c := extensions.ConfigExporterFor(from.Kind.ARMType)
	if fs == nil || !fs.exists || c == nil {
		return "", false, nil
	}
	fs.configOnce.Do(func() {
		fs.config, fs.configErr = c.ExportConfig(fs.convertedStatus(), from.Kind.APIVersion, func(id, apiVersion string) (map[string]any, error) {
			body, _, err := m.get(id, apiVersion)
			return body, err
		})
	})
	v, ok := fs.config[name]
	return v, ok, fs.configErr
}
