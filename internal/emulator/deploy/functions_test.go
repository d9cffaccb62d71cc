package deploy_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/deploy/armfunc"
)

// TestRunnerFunctionTable: every function of ARM's reference that armfunc
// leaves to the runner (Pure false) either evaluates, with a case here
// (the outputs of testdata/templates/runner-functions.json, deployed
// through the emulator's HTTP API, named after the function), or is
// refused by name by validate. A function added to the reference without
// either fails the test. if/and/or are armfunc's too, but the runner
// evaluates them lazily: their cases hold a branch that would fail.
func TestRunnerFunctionTable(t *testing.T) {
	s := startSDK(t, emulator.Options{})
	group := s.group("functions")
	account := "fn" + armfunc.UniqueString(group)
	year := time.Now().UTC().Format("2006")
	evaluates := map[string]string{
		"utcNow":                    `"` + year + `"`,
		"newGuid":                   `36`,
		"parameters":                `3`,
		"variables":                 `"hello, ` + account + `"`,
		"deployment":                `"functions"`,
		"environment":               `"` + s.run.URL + `/"`,
		"resourceGroup":             `"functions"`,
		"subscription":              `"` + sdkSubscription + `"`,
		"tenant":                    `"` + armcore.Tenant + `"`,
		"resourceId":                `"` + group + `/providers/Microsoft.Storage/storageAccounts/` + account + `"`,
		"subscriptionResourceId":    `"/subscriptions/` + sdkSubscription + `/providers/Microsoft.Authorization/roleDefinitions/r1"`,
		"tenantResourceId":          `"/providers/Microsoft.Management/managementGroups/mg1"`,
		"extensionResourceId":       `"` + group + `/providers/Microsoft.Authorization/locks/lock1"`,
		"managementGroupResourceId": `"/providers/Microsoft.Management/managementGroups/mg1/providers/Microsoft.Authorization/policyDefinitions/p1"`,
		"reference":                 `"Succeeded"`,
		"listKeys":                  `"key1"`,
		"listAccountSas":            `true`,
		"list*":                     `true`,
		"providers":                 `true`,
		"copyIndex":                 `[1,2,3]`,
		"filter":                    `[3,4]`,
		"map":                       `["a0","b1"]`,
		"reduce":                    `16`,
		"sort":                      `[1,2,3]`,
		"toObject":                  `{"a":"A","b":"B"}`,
		"groupBy":                   `{"a":["ab","ac"],"b":["bd"]}`,
		"mapValues":                 `{"a":10,"b":20}`,
		"if":                        `"taken"`,
		"and":                       `false`,
		"or":                        `true`,
	}
	// refused are the functions the emulator does not run, each with a
	// call that uses it.
	refused := map[string]string{
		"any":             "[any('x')]",
		"deployer":        "[deployer().objectId]",
		"references":      "[references('things')]",
		"pickZones":       "[pickZones('Microsoft.Compute', 'virtualMachines', 'westus2')]",
		"managementGroup": "[managementGroup().id]",
	}
	// actionFails are list* functions whose action the resource does not
	// have: the deployment fails naming it, as ARM's does.
	actionFails := map[string]string{
		"listSecrets": "[listSecrets(parameters('account'), '2023-01-01')]",
	}
	for _, f := range armfunc.Reference {
		_, evaluated := evaluates[f.Name]
		_, isRefused := refused[f.Name]
		_, fails := actionFails[f.Name]
		if !f.Pure && !evaluated && !isRefused && !fails {
			t.Errorf("the runner's function %s has no case: it neither evaluates here nor is refused", f.Name)
		}
	}

	outputs := s.deploy("functions", "functions", loadTemplate(t, "runner-functions.json"), nil)
	for name, want := range evaluates {
		got, _ := json.Marshal(output(t, outputs, name))
		if string(got) != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	for name, call := range refused {
		tmpl := map[string]any{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0",
			"resources": []any{}, "outputs": map[string]any{"x": map[string]any{"type": "string", "value": call}}}
		props := &armresources.DeploymentProperties{Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: tmpl}
		poller, err := s.deployments.BeginValidate(s.ctx, "functions", "refused", armresources.Deployment{Properties: props}, nil)
		if err == nil {
			_, err = poller.PollUntilDone(s.ctx, poll)
		}
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.ErrorCode != "InvalidTemplate" || !strings.Contains(err.Error(), "'"+name+"'") {
			t.Errorf("%s: %v, want InvalidTemplate naming it", name, err)
		}
	}

	for name, call := range actionFails {
		tmpl := loadTemplate(t, "runner-functions.json")
		tmpl["outputs"] = map[string]any{"x": map[string]any{"type": "object", "value": call}}
		props := &armresources.DeploymentProperties{Mode: to.Ptr(armresources.DeploymentModeIncremental), Template: tmpl}
		p, err := s.deployments.BeginCreateOrUpdate(s.ctx, "functions", "fails", armresources.Deployment{Properties: props}, nil)
		if err == nil {
			_, err = p.PollUntilDone(s.ctx, poll)
		}
		if err == nil || !strings.Contains(err.Error(), "'"+name+"'") {
			t.Errorf("%s on a storage account: %v, want the deployment to fail naming it", name, err)
		}
	}
}
