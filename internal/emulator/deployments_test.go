package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	deployAPI  = "?api-version=2022-09-01"
	rgSchema   = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#"
	subSchema  = "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#"
	identities = "Microsoft.ManagedIdentity/userAssignedIdentities"
)

// deploy PUTs a deployment and waits for it to end, returning its final body.
func (c *client) deploy(id string, body map[string]any) map[string]any {
	c.t.Helper()
	resp, got := c.do(http.MethodPut, id+deployAPI, body)
	mustStatus(c.t, resp, got, http.StatusCreated)
	if resp.Header.Get("Azure-AsyncOperation") == "" {
		c.t.Fatalf("PUT %s: no Azure-AsyncOperation header", id)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		_, got = c.do(http.MethodGet, id+deployAPI, nil)
		switch provisioningState(got) {
		case "Succeeded", "Failed", "Canceled":
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("deployment %s did not end: %v", id, got)
	return nil
}

func operations(c *client, deploymentID string) map[string]map[string]any {
	c.t.Helper()
	out := map[string]map[string]any{}
	next := deploymentID + "/operations" + deployAPI
	for next != "" {
		_, page := c.do(http.MethodGet, next, nil)
		items, _ := page["value"].([]any)
		for _, it := range items {
			props := it.(map[string]any)["properties"].(map[string]any)
			target := props["targetResource"].(map[string]any)
			out[strings.ToLower(target["id"].(string))] = props
		}
		next, _ = page["nextLink"].(string)
	}
	return out
}

func template(schema string, params map[string]any, resources ...map[string]any) map[string]any {
	list := []any{}
	for _, r := range resources {
		list = append(list, r)
	}
	if params == nil {
		params = map[string]any{}
	}
	return map[string]any{"$schema": schema, "contentVersion": "1.0.0.0", "parameters": params, "resources": list, "outputs": map[string]any{}}
}

func deploymentBody(tmpl map[string]any, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	return map[string]any{"properties": map[string]any{"mode": "Incremental", "template": tmpl, "parameters": params}}
}

// TestDeploymentRunsTemplateInDependencyOrder deploys a network, a subnet
// that depends on it, an identity and a role assignment reading the
// identity's principal ID through reference(), with a secure parameter: every
// resource lands with its body, each is one succeeded operation, and the
// deployment never shows the secret.
func TestDeploymentRunsTemplateInDependencyOrder(t *testing.T) {
	c := start(t, Options{LRO: []LRORule{{Type: "Microsoft.Network/*", Write: 150 * time.Millisecond}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	tmpl := template(rgSchema,
		map[string]any{"secretTag": map[string]any{"type": "secureString"}},
		map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2020-11-01", "name": "vnet", "location": "westus2",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}},
		map[string]any{"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2020-11-01", "name": "vnet/web",
			"properties": map[string]any{"addressPrefix": "[[literal]"},
			"dependsOn":  []any{"[resourceId('Microsoft.Network/virtualNetworks', 'vnet')]"}},
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "westus2",
			"tags": map[string]any{"owner": "[parameters('secretTag')]"}},
		map[string]any{"type": "Microsoft.Authorization/roleAssignments", "apiVersion": "2022-04-01", "name": "11111111-1111-1111-1111-111111111111",
			"scope": "[resourceId('Microsoft.Network/virtualNetworks', 'vnet')]",
			"properties": map[string]any{
				"principalId":      "[reference(resourceId('" + identities + "', 'app'), '2023-01-31', 'Full').properties.principalId]",
				"roleDefinitionId": "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'acdd72a7-3385-48ef-bd42-f606fba81ae7')]",
			},
			"dependsOn": []any{"[resourceId('Microsoft.Network/virtualNetworks', 'vnet')]", "[resourceId('" + identities + "', 'app')]"}},
	)
	id := rgID + "/providers/Microsoft.Resources/deployments/d1"
	got := c.deploy(id, deploymentBody(tmpl, map[string]any{"secretTag": map[string]any{"value": "canary-s3cret"}}))
	if provisioningState(got) != "Succeeded" {
		t.Fatalf("deployment: %v", got)
	}
	raw, _ := json.Marshal(got)
	if strings.Contains(string(raw), "canary-s3cret") {
		t.Errorf("the deployment shows its secure parameter: %s", raw)
	}
	ops := operations(c, id)
	if len(ops) != 4 {
		t.Fatalf("%d operations, want 4: %v", len(ops), ops)
	}
	for target, op := range ops {
		if op["provisioningState"] != "Succeeded" {
			t.Errorf("%s: %v", target, op)
		}
	}
	vnet := rgID + "/providers/Microsoft.Network/virtualNetworks/vnet"
	subnetOp, vnetOp := ops[strings.ToLower(vnet+"/subnets/web")], ops[strings.ToLower(vnet)]
	if subnetOp == nil || vnetOp == nil {
		t.Fatalf("operations: %v", ops)
	}
	if s, v := subnetOp["timestamp"].(string), vnetOp["timestamp"].(string); s < v {
		t.Errorf("the subnet started (%s) before the network (%s)", s, v)
	}
	_, subnet := c.do(http.MethodGet, vnet+"/subnets/web"+api, nil)
	if p := subnet["properties"].(map[string]any)["addressPrefix"]; p != "[literal]" {
		t.Errorf("the escaped literal arrived as %v", p)
	}
	_, identity := c.do(http.MethodGet, rgID+"/providers/"+identities+"/app?api-version=2023-01-31", nil)
	principal := identity["properties"].(map[string]any)["principalId"]
	_, ra := c.do(http.MethodGet, vnet+"/providers/Microsoft.Authorization/roleAssignments/11111111-1111-1111-1111-111111111111?api-version=2022-04-01", nil)
	if got := ra["properties"].(map[string]any)["principalId"]; got != principal || principal == nil {
		t.Errorf("the role assignment's principalId is %v, want the identity's %v", got, principal)
	}
	if tags := identity["tags"].(map[string]any); tags["owner"] != "canary-s3cret" {
		t.Errorf("the secure parameter did not reach the resource: %v", tags)
	}
}

func TestDeploymentRefusesInvalidTemplates(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	identity := func(name string, deps ...any) map[string]any {
		r := map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": name, "location": "westus2"}
		if len(deps) > 0 {
			r["dependsOn"] = deps
		}
		return r
	}
	for name, body := range map[string]map[string]any{
		"missing parameter": deploymentBody(template(rgSchema, map[string]any{"p": map[string]any{"type": "string"}}, identity("a")), nil),
		"undeclared parameter": deploymentBody(template(rgSchema, nil, identity("a")),
			map[string]any{"q": map[string]any{"value": "x"}}),
		"unknown dependency": deploymentBody(template(rgSchema, nil, identity("a", "[resourceId('"+identities+"', 'nope')]")), nil),
		"cycle": deploymentBody(template(rgSchema, nil,
			identity("a", "[resourceId('"+identities+"', 'b')]"), identity("b", "[resourceId('"+identities+"', 'a')]")), nil),
		"segments":  deploymentBody(template(rgSchema, nil, map[string]any{"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2020-11-01", "name": "web"}), nil),
		"no schema": deploymentBody(map[string]any{"contentVersion": "1.0.0.0", "resources": []any{}}, nil),
	} {
		resp, got := c.do(http.MethodPut, rgID+"/providers/Microsoft.Resources/deployments/bad"+deployAPI, body)
		if resp.StatusCode != http.StatusBadRequest || errorCode(got) != "InvalidTemplate" {
			t.Errorf("%s: %d %v, want 400 InvalidTemplate", name, resp.StatusCode, got)
		}
	}
	resp, got := c.do(http.MethodPut, sub+"/resourceGroups/nope/providers/Microsoft.Resources/deployments/d"+deployAPI,
		deploymentBody(template(rgSchema, nil), nil))
	if resp.StatusCode != http.StatusNotFound || errorCode(got) != "ResourceGroupNotFound" {
		t.Errorf("a deployment into a missing group: %d %v", resp.StatusCode, got)
	}
}

// TestDeploymentFailureStopsDependents makes identities fail: the failed
// operation carries ARM's code and message, what depends on it is not
// attempted, and what does not still runs.
func TestDeploymentFailureStopsDependents(t *testing.T) {
	c := start(t, Options{Faults: Faults{Failures: []FailureRule{{Type: identities, After: 50 * time.Millisecond, Code: "QuotaExceeded", Message: "no more identities"}}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	tmpl := template(rgSchema, nil,
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "westus2"},
		map[string]any{"type": identities + "/federatedIdentityCredentials", "apiVersion": "2023-01-31", "name": "app/fic",
			"properties": map[string]any{"issuer": "https://issuer", "subject": "s", "audiences": []any{"a"}},
			"dependsOn":  []any{"[resourceId('" + identities + "', 'app')]"}},
		map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": "nsg", "location": "westus2"},
	)
	id := rgID + "/providers/Microsoft.Resources/deployments/fails"
	got := c.deploy(id, deploymentBody(tmpl, nil))
	if provisioningState(got) != "Failed" {
		t.Fatalf("deployment: %v", got)
	}
	if code := got["properties"].(map[string]any)["error"].(map[string]any)["code"]; code != "DeploymentFailed" {
		t.Errorf("error code %v", code)
	}
	ops := operations(c, id)
	app := ops[strings.ToLower(rgID+"/providers/"+identities+"/app")]
	msg, _ := app["statusMessage"].(map[string]any)
	if app["provisioningState"] != "Failed" || msg["error"].(map[string]any)["code"] != "QuotaExceeded" {
		t.Errorf("the identity's operation: %v", app)
	}
	if _, ok := ops[strings.ToLower(rgID+"/providers/"+identities+"/app/federatedIdentityCredentials/fic")]; ok {
		t.Error("the credential was attempted though its identity failed")
	}
	if nsg := ops[strings.ToLower(rgID+"/providers/Microsoft.Network/networkSecurityGroups/nsg")]; nsg["provisioningState"] != "Succeeded" {
		t.Errorf("the independent resource: %v", nsg)
	}
}

// TestNestedDeploymentCreatesGroupAndContents deploys at subscription scope
// a resource group and, nested in it, its contents.
func TestNestedDeploymentCreatesGroupAndContents(t *testing.T) {
	c := start(t, Options{}, false)
	inner := template(rgSchema, map[string]any{"tag": map[string]any{"type": "secureString"}},
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "[resourceGroup().location]",
			"tags": map[string]any{"t": "[parameters('tag')]"}})
	inner["outputs"] = map[string]any{"principal": map[string]any{"type": "string",
		"value": "[reference(resourceId('" + identities + "', 'app'), '2023-01-31', 'Full').properties.principalId]"}}
	tmpl := template(subSchema, map[string]any{"tag": map[string]any{"type": "secureString"}},
		map[string]any{"type": "Microsoft.Resources/resourceGroups", "apiVersion": "2020-06-01", "name": "nested-rg", "location": "eastus"},
		map[string]any{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "[concat(deployment().name, '-1')]",
			"resourceGroup": "nested-rg",
			"dependsOn":     []any{"[subscriptionResourceId('Microsoft.Resources/resourceGroups', 'nested-rg')]"},
			"properties": map[string]any{"mode": "Incremental", "expressionEvaluationOptions": map[string]any{"scope": "inner"},
				"parameters": map[string]any{"tag": map[string]any{"value": "[parameters('tag')]"}}, "template": inner}},
	)
	id := sub + "/providers/Microsoft.Resources/deployments/top"
	body := deploymentBody(tmpl, map[string]any{"tag": map[string]any{"value": "v"}})
	body["location"] = "eastus"
	got := c.deploy(id, body)
	if provisioningState(got) != "Succeeded" {
		t.Fatalf("deployment: %v", got)
	}
	nestedID := sub + "/resourceGroups/nested-rg/providers/Microsoft.Resources/deployments/top-1"
	_, nested := c.do(http.MethodGet, nestedID+deployAPI, nil)
	outputs, _ := nested["properties"].(map[string]any)["outputs"].(map[string]any)
	if p, _ := outputs["principal"].(map[string]any); p["value"] == nil || p["value"] == "" {
		t.Errorf("nested outputs: %v", nested)
	}
	_, app := c.do(http.MethodGet, sub+"/resourceGroups/nested-rg/providers/"+identities+"/app?api-version=2023-01-31", nil)
	if app["location"] != "eastus" || app["tags"].(map[string]any)["t"] != "v" {
		t.Errorf("the nested resource: %v", app)
	}
	resources, _ := got["properties"].(map[string]any)["outputResources"].([]any)
	if len(resources) != 3 {
		t.Errorf("outputResources %v: want the group, the nested deployment and the identity", resources)
	}
}

func TestWhatIfPredictsPerResource(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	c.mustPut(rgID+"/providers/Microsoft.Network/networkSecurityGroups/same", map[string]any{"location": "westus2"})
	c.mustPut(rgID+"/providers/Microsoft.Network/networkSecurityGroups/tagged", map[string]any{"location": "westus2", "tags": map[string]any{"a": "1", "portal": "x"}})
	c.mustPut(rgID+"/providers/Microsoft.Network/networkSecurityGroups/other", map[string]any{"location": "westus2"})
	nsg := func(name string, tags map[string]any) map[string]any {
		r := map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": name, "location": "West US 2"}
		if tags != nil {
			r["tags"] = tags
		}
		return r
	}
	tmpl := template(rgSchema, nil, nsg("same", nil), nsg("tagged", map[string]any{"a": "2"}), nsg("new", nil))
	resp, got := c.do(http.MethodPost, rgID+"/providers/Microsoft.Resources/deployments/w/whatIf"+deployAPI, deploymentBody(tmpl, nil))
	mustStatus(t, resp, got, http.StatusAccepted)
	result, err := c.pollUntilDone(resp)
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]map[string]any{}
	for _, ch := range result["properties"].(map[string]any)["changes"].([]any) {
		m := ch.(map[string]any)
		changes[m["resourceId"].(string)[strings.LastIndexByte(m["resourceId"].(string), '/')+1:]] = m
	}
	for name, want := range map[string]string{"same": "NoChange", "tagged": "Modify", "new": "Create", "other": "Ignore"} {
		if got := changes[name]["changeType"]; got != want {
			t.Errorf("%s: %v, want %s", name, got, want)
		}
	}
	var paths []string
	for _, d := range changes["tagged"]["delta"].([]any) {
		dm := d.(map[string]any)
		paths = append(paths, dm["path"].(string)+" "+dm["propertyChangeType"].(string))
	}
	if strings.Join(paths, ", ") != "tags.a Modify, tags.portal Delete" {
		t.Errorf("delta of tagged: %v", paths)
	}
}

// TestStackDeletesWhatItNoLongerNames deploys a stack of two groups'
// contents, then updates it without one resource: under delete it goes,
// under detach it stays and leaves the managed set.
func TestStackDeletesWhatItNoLongerNames(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	nsg := func(name string) map[string]any {
		return map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": name, "location": "westus2"}
	}
	stackID := rgID + "/providers/Microsoft.Resources/deploymentStacks/s1"
	put := func(action string, resources ...map[string]any) map[string]any {
		t.Helper()
		body := map[string]any{"properties": map[string]any{"template": template(rgSchema, nil, resources...),
			"actionOnUnmanage": map[string]any{"resources": action}, "denySettings": map[string]any{"mode": "none"}}}
		resp, got := c.do(http.MethodPut, stackID+"?api-version=2024-03-01", body)
		mustStatus(t, resp, got, http.StatusCreated)
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			_, got = c.do(http.MethodGet, stackID+"?api-version=2024-03-01", nil)
			if st := provisioningState(got); st == "succeeded" || st == "failed" {
				return got
			}
		}
		t.Fatalf("the stack did not settle: %v", got)
		return nil
	}
	got := put("delete", nsg("a"), nsg("b"), nsg("c"))
	if n := len(got["properties"].(map[string]any)["resources"].([]any)); n != 3 {
		t.Fatalf("managed %d resources, want 3: %v", n, got)
	}
	got = put("delete", nsg("a"), nsg("b"))
	deleted := got["properties"].(map[string]any)["deletedResources"].([]any)
	if len(deleted) != 1 || !strings.HasSuffix(deleted[0].(map[string]any)["id"].(string), "/c") {
		t.Errorf("deleted %v, want c", deleted)
	}
	if resp, _ := c.do(http.MethodGet, rgID+"/providers/Microsoft.Network/networkSecurityGroups/c"+api, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("c is still there: %d", resp.StatusCode)
	}
	got = put("detach", nsg("a"))
	detached := got["properties"].(map[string]any)["detachedResources"].([]any)
	if len(detached) != 1 {
		t.Errorf("detached %v, want b", detached)
	}
	if resp, _ := c.do(http.MethodGet, rgID+"/providers/Microsoft.Network/networkSecurityGroups/b"+api, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("b was deleted under detach: %d", resp.StatusCode)
	}
}

// TestDeploymentsOutliveRestarts: a finished deployment is kept with the
// state, its operations too. One the emulator stopped in the middle is
// resumed at the next start: the write it had sent ends as the resource
// does, its operation says so, and the deployment fails with EmulatorStopped
// for what it had not started.
func TestDeploymentsOutliveRestarts(t *testing.T) {
	dir := t.TempDir()
	opts := Options{StateDir: dir, LRO: []LRORule{{Type: "Microsoft.Network/*", Write: time.Second}}}
	c := start(t, opts, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	identity := template(rgSchema, nil, map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "westus2"})
	done := rgID + "/providers/Microsoft.Resources/deployments/done"
	if got := c.deploy(done, deploymentBody(identity, nil)); provisioningState(got) != "Succeeded" {
		t.Fatalf("deployment: %v", got)
	}
	slow := rgID + "/providers/Microsoft.Resources/deployments/slow"
	nsg := rgID + "/providers/Microsoft.Network/networkSecurityGroups/nsg"
	resp, got := c.do(http.MethodPut, slow+deployAPI, deploymentBody(template(rgSchema, nil,
		map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": "nsg", "location": "westus2"},
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "after-nsg", "location": "westus2", "dependsOn": []any{nsg}}), nil))
	mustStatus(t, resp, got, http.StatusCreated)
	for deadline := time.Now().Add(5 * time.Second); operations(c, slow)[strings.ToLower(nsg)] == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the deployment did not start the security group")
		}
	}
	if err := c.run.Close(); err != nil {
		t.Fatal(err)
	}
	c = start(t, opts, false)
	_, got = c.do(http.MethodGet, done+deployAPI, nil)
	if provisioningState(got) != "Succeeded" || len(operations(c, done)) != 1 {
		t.Errorf("after a restart: %v, operations %v", got, operations(c, done))
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, got = c.do(http.MethodGet, slow+deployAPI, nil); provisioningState(got) == "Failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deployment stopped by the restart did not end: %v", got)
		}
	}
	if !strings.Contains(fmt.Sprint(got), "EmulatorStopped") {
		t.Errorf("a deployment stopped by the restart: %v", got)
	}
	ops := operations(c, slow)
	if op := ops[strings.ToLower(nsg)]; op["provisioningState"] != "Succeeded" {
		t.Errorf("the security group's write, sent before the stop and finished after it: %v", op)
	}
	if len(ops) != 1 {
		t.Errorf("operations after the restart: %v, want the security group's only", ops)
	}
}

func TestDeploymentCancel(t *testing.T) {
	c := start(t, Options{LRO: []LRORule{{Type: "Microsoft.Network/*", Write: 5 * time.Second}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	id := rgID + "/providers/Microsoft.Resources/deployments/slow"
	resp, got := c.do(http.MethodPut, id+deployAPI, deploymentBody(template(rgSchema, nil,
		map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": "nsg", "location": "westus2"}), nil))
	mustStatus(t, resp, got, http.StatusCreated)
	if resp, got := c.do(http.MethodPut, id+deployAPI, deploymentBody(template(rgSchema, nil), nil)); resp.StatusCode != http.StatusConflict || errorCode(got) != "DeploymentActive" {
		t.Errorf("replacing a running deployment: %d %v", resp.StatusCode, got)
	}
	resp, got = c.do(http.MethodPost, id+"/cancel"+deployAPI, nil)
	mustStatus(t, resp, got, http.StatusNoContent)
	for deadline := time.Now().Add(5 * time.Second); provisioningState(got) != "Canceled"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled deployment: %v", got)
		}
		_, got = c.do(http.MethodGet, id+deployAPI, nil)
	}
	if resp, got := c.do(http.MethodPost, id+"/cancel"+deployAPI, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("cancelling an ended deployment: %d %v", resp.StatusCode, got)
	}
}

// TestTemplatesKeepNumbersExact: a deployment and a stack both deploy
// integers beyond float64's exact range unchanged, as ARM does.
func TestTemplatesKeepNumbersExact(t *testing.T) {
	c := start(t, Options{}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	const big = int64(9007199254740993) // 2^53 + 1: a float64 reads it as ...992
	nsg := func(name string) map[string]any {
		return map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": name, "location": "westus2",
			"properties": map[string]any{"exact": big}}
	}
	c.deploy(rgID+"/providers/Microsoft.Resources/deployments/d1", deploymentBody(template(rgSchema, nil, nsg("viaDeployment")), nil))
	stackID := rgID + "/providers/Microsoft.Resources/deploymentStacks/s1"
	body := map[string]any{"properties": map[string]any{"template": template(rgSchema, nil, nsg("viaStack")),
		"actionOnUnmanage": map[string]any{"resources": "detach"}, "denySettings": map[string]any{"mode": "none"}}}
	resp, got := c.do(http.MethodPut, stackID+"?api-version=2024-03-01", body)
	mustStatus(t, resp, got, http.StatusCreated)
	for deadline := time.Now().Add(20 * time.Second); provisioningState(got) != "succeeded" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, got = c.do(http.MethodGet, stackID+"?api-version=2024-03-01", nil)
	}
	for _, name := range []string{"viaDeployment", "viaStack"} {
		resp, _ := c.do(http.MethodGet, rgID+"/providers/Microsoft.Network/networkSecurityGroups/"+name+api, nil)
		raw, _ := io.ReadAll(resp.Body)
		if want := fmt.Sprintf(`"exact":%d`, big); !strings.Contains(string(raw), want) {
			t.Errorf("%s: %s is not in %s", name, want, raw)
		}
	}
}
