package conformance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// TestDeploymentsConformance drives the emulator's deployments with the
// SDK's DeploymentsClient and DeploymentOperationsClient, which raise on any
// status the REST specification does not list: the operations list on the
// path the specification gives a resource group's deployments (without the
// provider segment), one operation, exportTemplate, and a delete answered
// 202 with a Location that answers 204, as ARM does (204 for a deployment
// that does not exist).
func TestDeploymentsConformance(t *testing.T) {
	s := newSuite(t)
	cred := fakeCredential{}
	groups, err := armresources.NewResourceGroupsClient(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	deployments, err := armresources.NewDeploymentsClient(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	operations, err := armresources.NewDeploymentOperationsClient(subscription, cred, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := s.ctx
	const name = "conformance-deploy"
	identity := map[string]any{"type": "Microsoft.ManagedIdentity/userAssignedIdentities", "apiVersion": "2023-01-31", "name": "deployed-id", "location": location}
	template := map[string]any{
		"$schema":        "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
		"contentVersion": "1.0.0.0",
		"resources":      []any{identity},
	}
	s.check(t, "deployments/create", func(t *testing.T) {
		if _, err := groups.CreateOrUpdate(ctx, rg, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			t.Fatal(err)
		}
		poller, err := deployments.BeginCreateOrUpdate(ctx, rg, name, armresources.Deployment{Properties: &armresources.DeploymentProperties{
			Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: template}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := poller.PollUntilDone(ctx, frequency)
		if err != nil || *got.Properties.ProvisioningState != armresources.ProvisioningStateSucceeded {
			t.Fatalf("deployment: %v %+v", err, got.Properties)
		}
	})
	var opID string
	s.check(t, "deployments/operations-list", func(t *testing.T) {
		pager := operations.NewListPager(rg, name, nil)
		var targets []string
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range page.Value {
				targets = append(targets, *op.Properties.TargetResource.ID)
				opID = *op.OperationID
			}
		}
		if len(targets) != 1 || !strings.HasSuffix(targets[0], "/userAssignedIdentities/deployed-id") {
			t.Fatalf("operations of %s: %v", name, targets)
		}
	})
	s.check(t, "deployments/operation-get", func(t *testing.T) {
		got, err := operations.Get(ctx, rg, name, opID, nil)
		if err != nil || *got.Properties.ProvisioningState != "Succeeded" {
			t.Fatalf("operation %s: %v %+v", opID, err, got)
		}
	})
	s.check(t, "deployments/export-template", func(t *testing.T) {
		got, err := deployments.ExportTemplate(ctx, rg, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, _ := got.Template.(map[string]any)
		resources, _ := tmpl["resources"].([]any)
		if len(resources) != 1 || resources[0].(map[string]any)["name"] != "deployed-id" {
			t.Fatalf("exported template: %v", got.Template)
		}
	})
	s.check(t, "deployments/delete", func(t *testing.T) {
		var resp *http.Response
		poller, err := deployments.BeginDelete(policy.WithCaptureResponse(ctx, &resp), rg, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp == nil || resp.StatusCode != http.StatusAccepted || resp.Header.Get("Location") == "" {
			t.Fatalf("delete answered %v, want 202 with a Location", resp)
		}
		if _, err := poller.PollUntilDone(ctx, frequency); err != nil {
			t.Fatal(err)
		}
		exists, err := deployments.CheckExistence(ctx, rg, name, nil)
		if err != nil || exists.Success {
			t.Fatalf("after delete, the deployment exists: %v %v", exists.Success, err)
		}
		again, err := deployments.BeginDelete(ctx, rg, name, nil)
		if err != nil {
			t.Fatalf("deleting a deployment that does not exist: %v", err)
		}
		if !again.Done() {
			t.Error("deleting a deployment that does not exist did not end at once (204)")
		}
	})
}
