package views

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// TestReplacementChainRendering: a -replace that carries through the graph
// shows the chain in every form: the reader's reason and input, and on the
// replaced resource which readers follow it.
func TestReplacementChainRendering(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	const file = "testdata/replacechain.yaml"
	g := loadScenario(t, file)
	ids := map[string]string{}
	for _, n := range g.Nodes {
		ids[n.Object.Name] = n.ID
	}
	az.Put(t, ids["rc"], "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, ids["rc-web"], "2023-01-31", map[string]any{"location": "westus2"})
	az.Put(t, ids["rc-web-aks"], "2023-01-31", map[string]any{"properties": map[string]any{
		"issuer": "https://oidc.example/issuer/", "subject": "system:serviceaccount:web:web", "audiences": []any{"api://AzureADTokenExchange"}}})
	resp, err := az.Client.Get(testkit.Context(t), ids["rc-web"], "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	var identity map[string]any
	if err := json.Unmarshal(resp.Body, &identity); err != nil {
		t.Fatal(err)
	}
	az.Put(t, ids["rc-web-reader"], "2022-04-01", map[string]any{"properties": map[string]any{
		"principalId": testkit.At[string](t, identity, "properties", "principalId"), "principalType": "ServicePrincipal",
		"roleDefinitionId": "/subscriptions/" + testSub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}})
	p, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, Replace: []string{"UserAssignedIdentity/rc-web"},
		Inputs: planner.Inputs{Paths: []string{file}, Namespace: "default"}})
	if diags.HasErrors() {
		t.Fatalf("Make: %v", diags.Err())
	}
	if s := p.Summary(); s.Replace != 3 || s.NoChange != 1 {
		t.Fatalf("summary %+v, want the identity, its credential and the role assignment replaced", s)
	}
	renderAll(t, "replacechain", p)
}
