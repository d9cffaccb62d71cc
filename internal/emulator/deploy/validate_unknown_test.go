package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
)

// TestValidateKeepsValuesKnownAfterDeployment: a role assignment whose
// principalId reads, with reference(), an identity the same template
// creates passes validation (the property is there, its value known only
// once deployed); the same assignment without principalId is refused as
// missing it, so the check still looks inside the object that holds such a
// value.
func TestValidateKeepsValuesKnownAfterDeployment(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := emulator.Start(ctx, emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	const sub = "00000000-0000-0000-0000-000000000000"
	c, err := arm.New(arm.Options{Subscription: sub, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	group := "/subscriptions/" + sub + "/resourceGroups/known-after"
	op, err := c.Put(ctx, group, "2021-04-01", map[string]any{"location": "westus2"})
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	validate := func(assignment map[string]any) error {
		template := map[string]any{
			"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
			"contentVersion": "1.0.0.0",
			"resources": []any{
				map[string]any{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31", "name": "app", "location": "westus2"},
				map[string]any{"type": "Microsoft.Authorization/roleAssignments", "apiVersion": "2022-04-01", "name": "0d7f7c4e-0000-4000-8000-000000000001",
					"properties": assignment,
					"dependsOn":  []any{"[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'app')]"}},
			},
		}
		op, err := c.Post(ctx, group+"/providers/Microsoft.Resources/deployments/check/validate", "2024-03-01",
			map[string]any{"properties": map[string]any{"mode": "Incremental", "template": template}})
		if err == nil {
			_, err = op.Wait(ctx)
		}
		return err
	}
	role := "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	if err := validate(map[string]any{
		"principalId":      "[reference(resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'app'), '2023-01-31', 'Full').properties.principalId]",
		"principalType":    "ServicePrincipal",
		"roleDefinitionId": role,
	}); err != nil {
		t.Fatalf("principalId known after deployment: %v", err)
	}
	err = validate(map[string]any{"principalType": "ServicePrincipal", "roleDefinitionId": role})
	var re *arm.ResponseError
	if !errors.As(err, &re) || len(re.Details) != 1 || re.Details[0].Code != "InvalidRequestContent" ||
		!strings.Contains(re.Details[0].Message, "Required property 'principalId'") {
		t.Fatalf("principalId left out: %v, want one InvalidRequestContent detail naming principalId", err)
	}
}
