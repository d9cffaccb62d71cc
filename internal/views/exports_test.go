package views

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
)

// TestExportedSecretsAreNeverSaved: a plan holds a secret another resource
// exports as unknown and sensitive, and saves it so; a value fetched from
// Azure is not saved either, not even as a digest.
func TestExportedSecretsAreNeverSaved(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	g := loadScenario(t, "testdata/exports.yaml")
	p := makePlan(t, az, g, false)
	var app *planner.Resource
	for _, r := range p.Resources {
		if r.Name == "keys-app" {
			app = r
		}
	}
	const path = "properties.configuration.secrets[name=storage-key].value"
	if len(app.Secrets) != 1 || app.Secrets[0] != path {
		t.Errorf("secrets %v", app.Secrets)
	}
	var text bytes.Buffer
	if err := Text(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+ " + path + " = (sensitive, known after apply)", "exports: secret keysacct-keys.key1 from POST listKeys"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the plan lacks %q:\n%s", want, text.String())
		}
	}

	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := planfile.Save(file, p); err != nil {
		t.Fatal(err)
	}
	saved, err := planfile.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if moved := planfile.Stale(context.Background(), saved, makePlan(t, az, g, false)); len(moved) > 0 {
		t.Errorf("a fresh plan differs from the saved one: %v", moved)
	}

	// As apply re-converts it once the account exists.
	const key = "fetched-storage-key-never-saved"
	var appNode *graph.Node
	for _, n := range g.Nodes {
		if n.Object.Name == "keys-app" {
			appNode = n
		}
	}
	req, diags := convert.Convert(g, appNode, convert.Sources{Secrets: func(*graph.Node, string) (map[string]string, bool, error) {
		return map[string]string{"key1": key}, true, nil
	}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if body, err := convert.MarshalRequest(req.Body); err != nil || !strings.Contains(string(body), key) {
		t.Fatalf("the request does not carry the fetched key: %s %v", body, err)
	}
	app.Desired = req.Body
	if err := planfile.Save(file, p); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(file)
	if bytes.Contains(raw, []byte(key)) || bytes.Count(raw, []byte(`"$sensitive"`)) != 0 || !bytes.Contains(raw, []byte(`"$sensitiveUnknown"`)) {
		t.Errorf("a fetched secret was saved:\n%s", raw)
	}
}
