package deployment

import (
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// TestValidationStandsInForWhatNoTemplateComputes: a secret another
// resource of the plan exports (not a status field a template can read)
// refuses a deployment template, but in a template built for validation it
// stands as reference() to its exporter, so the property is there; a value
// no resource of the deployment exports is refused either way.
func TestValidationStandsInForWhatNoTemplateComputes(t *testing.T) {
	exporter := identity("rg1", "exporter")
	exporter.Node = &graph.Node{}
	user := identity("rg1", "user", exporter)
	user.Desired["properties"] = map[string]any{"secret": convert.Unknown{Reason: "secret s key k exported by exporter", Sensitive: true, ExportedBy: exporter.Node}}
	p := &planner.Plan{Resources: []*planner.Resource{exporter, user}}
	const cannot = "properties.secret is known only after apply (secret s key k exported by exporter), and a template cannot compute it"
	if _, err := Build(p, Options{}); err == nil || !strings.Contains(err.Error(), cannot) {
		t.Fatalf("a deployment: %v, want %q", err, cannot)
	}
	set, err := Build(p, Options{Validation: true})
	if err != nil || len(set.Templates) != 1 {
		t.Fatalf("validation: %v", err)
	}
	data, err := set.Templates[0].JSON()
	const standIn = `"secret": "[reference(resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'exporter'), '2023-01-31', 'Full').id]"`
	if err != nil || !strings.Contains(string(data), standIn) {
		t.Fatalf("validation template: %v, want %s in\n%s", err, standIn, data)
	}

	outside := identity("rg1", "outside")
	outside.Desired["properties"] = map[string]any{"secret": convert.Unknown{Reason: "exported by a resource the plan leaves alone", ExportedBy: &graph.Node{}}}
	if _, err := Build(&planner.Plan{Resources: []*planner.Resource{outside}}, Options{Validation: true}); err == nil || !strings.Contains(err.Error(), "a template cannot compute it") {
		t.Errorf("an exporter outside the deployment: %v", err)
	}
}
