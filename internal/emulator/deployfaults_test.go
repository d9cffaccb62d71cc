package emulator

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// faultTemplate is a subscription deployment that exercises every kind of
// request the engine sends: it creates resource group "faults" (a
// long-running write, polled), then a nested deployment into it (a PUT of a
// deployment) holding a network whose two subnets conflict while either is
// being written, and two identities, the second reading the first's
// principal ID with reference() (a GET).
func faultTemplate() map[string]any {
	rg := sub + "/resourceGroups/faults"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/vnet"
	subnet := func(name, prefix string) map[string]any {
		return map[string]any{"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2020-11-01", "name": "vnet/" + name,
			"properties": map[string]any{"addressPrefix": prefix}, "dependsOn": []any{vnet}}
	}
	inner := template(rgSchema, nil,
		map[string]any{"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2020-11-01", "name": "vnet", "location": "westus2",
			"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}},
		subnet("a", "10.0.1.0/24"), subnet("b", "10.0.2.0/24"),
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "first", "location": "westus2"},
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "second", "location": "westus2",
			"tags":      map[string]any{"first": "[reference(resourceId('" + identities + "', 'first'), '2023-01-31', 'Full').properties.principalId]"},
			"dependsOn": []any{rg + "/providers/" + identities + "/first"}},
	)
	return template(subSchema, nil,
		map[string]any{"type": "Microsoft.Resources/resourceGroups", "apiVersion": "2020-06-01", "name": "faults", "location": "westus2"},
		map[string]any{"type": "Microsoft.Resources/deployments", "apiVersion": "2022-09-01", "name": "inner", "resourceGroup": "faults",
			"dependsOn":  []any{"[subscriptionResourceId('Microsoft.Resources/resourceGroups', 'faults')]"},
			"properties": map[string]any{"mode": "Incremental", "expressionEvaluationOptions": map[string]any{"scope": "inner"}, "template": inner}},
	)
}

// faultLRO makes the group, the network and the subnets long-running, so
// that the faults meet polls and the subnets' conflict.
var faultLRO = []LRORule{
	{Type: "Microsoft.Resources/resourceGroups", Write: 300 * time.Millisecond},
	{Type: "Microsoft.Network/*", Write: 200 * time.Millisecond},
}

// TestDeploymentEngineRetriesWhatARMRetries runs faultTemplate while a fault
// strikes every request for a while (throttling, server errors, replication
// lag), or while the subnets conflict: the engine rides through each as
// ARM's does, and every resource succeeds.
func TestDeploymentEngineRetriesWhatARMRetries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults Faults
		// window is how long the faults last once the deployment started;
		// 0 leaves them on (they end by themselves).
		window time.Duration
	}{
		{"throttling", Faults{ThrottleRate: 1}, 700 * time.Millisecond},
		{"server-errors", Faults{TransientRate: 1}, 700 * time.Millisecond},
		{"replication-lag", Faults{ReplicationLag: 700 * time.Millisecond}, 0},
		{"conflicts", Faults{ConflictTypes: []string{"Microsoft.Network/virtualNetworks/subnets"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, Options{LRO: faultLRO}, false)
			id := sub + "/providers/Microsoft.Resources/deployments/faulted"
			body := deploymentBody(faultTemplate(), nil)
			body["location"] = "westus2"
			resp, got := c.do(http.MethodPut, id+deployAPI, body)
			mustStatus(t, resp, got, http.StatusCreated)
			c.run.Server.SetFaults(tc.faults)
			if tc.window > 0 {
				time.Sleep(tc.window)
				c.run.Server.SetFaults(Faults{})
			}
			got = c.awaitDeployment(id)
			if provisioningState(got) != "Succeeded" {
				t.Fatalf("deployment under %s: %v", tc.name, got)
			}
			c.run.Server.SetFaults(Faults{})
			inner := sub + "/resourceGroups/faults/providers/Microsoft.Resources/deployments/inner"
			ops := operations(c, inner)
			if len(ops) != 5 {
				t.Fatalf("%d operations in the nested deployment, want 5: %v", len(ops), ops)
			}
			for target, op := range ops {
				if op["provisioningState"] != "Succeeded" {
					t.Errorf("%s: %v", target, op)
				}
			}
		})
	}
}

// awaitDeployment polls the deployment id (riding through the faults in
// force, as a client would) until it ends.
func (c *client) awaitDeployment(id string) map[string]any {
	c.t.Helper()
	var got map[string]any
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var resp *http.Response
		resp, got = c.do(http.MethodGet, id+deployAPI, nil)
		if resp.StatusCode != http.StatusOK {
			continue
		}
		switch provisioningState(got) {
		case "Succeeded", "Failed", "Canceled":
			return got
		}
	}
	c.t.Fatalf("deployment %s did not end: %v", id, got)
	return nil
}

// TestDeploymentEngineFailsWhatFailsForReal: an operation that fails (a
// failure rule), or a write the provider refuses (400), is that resource's
// failure, at once: no retry turns it into a success or delays it.
func TestDeploymentEngineFailsWhatFailsForReal(t *testing.T) {
	c := start(t, Options{Faults: Faults{Failures: []FailureRule{{Type: identities, After: 20 * time.Millisecond, Code: "QuotaExceeded", Message: "no more identities"}}}}, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	id := rgID + "/providers/Microsoft.Resources/deployments/fails"
	started := time.Now()
	got := c.deploy(id, deploymentBody(template(rgSchema, nil,
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "westus2"},
		map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "1999-01-01", "name": "nsg", "location": "westus2"},
	), nil))
	if took := time.Since(started); took > 2*time.Second {
		t.Errorf("the deployment took %s to fail: failures were retried", took)
	}
	if provisioningState(got) != "Failed" {
		t.Fatalf("deployment: %v", got)
	}
	ops := operations(c, id)
	for _, tc := range []struct{ target, code string }{
		{rgID + "/providers/" + identities + "/app", "QuotaExceeded"},
		{rgID + "/providers/Microsoft.Network/networkSecurityGroups/nsg", "InvalidApiVersionParameter"},
	} {
		op := ops[strings.ToLower(tc.target)]
		msg, _ := op["statusMessage"].(map[string]any)
		if op["provisioningState"] != "Failed" || !strings.Contains(fmt.Sprint(msg), tc.code) {
			t.Errorf("%s: %v, want failed with %s", tc.target, op, tc.code)
		}
	}
}

// TestDeploymentOperationsSurviveACrash copies the state folder while a
// deployment runs, which is what a killed emulator leaves on disk, and
// starts an emulator on the copy: the operation that had ended is there
// (the journal), the one in flight ends as its resource does, and the
// deployment fails with EmulatorStopped.
func TestDeploymentOperationsSurviveACrash(t *testing.T) {
	dir := t.TempDir()
	opts := Options{StateDir: dir, LRO: []LRORule{{Type: "Microsoft.Network/*", Write: 600 * time.Millisecond}}}
	c := start(t, opts, false)
	c.mustPut(rgID, map[string]any{"location": "westus2"})
	id := rgID + "/providers/Microsoft.Resources/deployments/crashed"
	nsg := rgID + "/providers/Microsoft.Network/networkSecurityGroups/nsg"
	app := rgID + "/providers/" + identities + "/app"
	resp, got := c.do(http.MethodPut, id+deployAPI, deploymentBody(template(rgSchema, nil,
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "app", "location": "westus2"},
		map[string]any{"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2020-11-01", "name": "nsg", "location": "westus2", "dependsOn": []any{app}},
		map[string]any{"type": identities, "apiVersion": "2023-01-31", "name": "late", "location": "westus2", "dependsOn": []any{nsg}},
	), nil))
	mustStatus(t, resp, got, http.StatusCreated)
	for deadline := time.Now().Add(5 * time.Second); operations(c, id)[strings.ToLower(nsg)] == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the deployment did not start the security group")
		}
	}
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	opts.StateDir = crashed
	c = start(t, opts, false)
	got = c.awaitDeployment(id)
	if provisioningState(got) != "Failed" || !strings.Contains(fmt.Sprint(got), "EmulatorStopped") {
		t.Errorf("the deployment the crash stopped: %v", got)
	}
	ops := operations(c, id)
	if len(ops) != 2 || ops[strings.ToLower(app)]["provisioningState"] != "Succeeded" || ops[strings.ToLower(nsg)]["provisioningState"] != "Succeeded" {
		t.Errorf("operations after the crash: %v; want the identity's and the security group's, both succeeded", ops)
	}
	if resp, _ := c.do(http.MethodGet, rgID+"/providers/"+identities+"/late?api-version=2023-01-31", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the resource the deployment had not started exists: %d", resp.StatusCode)
	}
}

// copyDir copies the files of the folder from into to, as they are now.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755); err != nil {
			return err
		}
		dst, err := os.Create(filepath.Join(to, rel))
		if err != nil {
			return err
		}
		defer dst.Close()
		_, err = io.Copy(dst, src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
