package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// annotate adds a reconcile-policy annotation to the object named name in file.
func annotate(t *testing.T, file, name, policy string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	old := "\n  name: " + name + "\n"
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no object %s", file, name)
	}
	annotated := strings.Replace(string(data), old, old+"  annotations:\n    serviceoperator.azure.com/reconcile-policy: "+policy+"\n", 1)
	if err := os.WriteFile(file, []byte(annotated), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlanDestroy: azk plan --destroy (and Terraform's -destroy) is what
// azk destroy would do, as a plan in every output form: deleted, deleted by
// ARM with the parent, detached, and what the cascade guard refuses; with
// --detailed-exitcode, 1 while the cascade guard refuses, 2 while anything
// would be deleted. Saved with -out,
// azk destroy PLANFILE refuses it without --allow-cascade and when anything
// moved since, and otherwise deletes exactly what it shows.
//
// The quick start, with its resource group marked detach-on-delete (so the
// network, the security group and the storage account are deleted on their
// own) and its blob service too (deleting the account defeats that: a
// cascade), and a subnet in Azure that the manifests do not hold (another).
func TestPlanDestroy(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "quickstart")
	annotate(t, filepath.Join(dir, "resourcegroup.yaml"), "azk-quickstart", "detach-on-delete")
	annotate(t, filepath.Join(dir, "storage.yaml"), "azkquickstartsa-blob", "detach-on-delete")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/quickstart-vnet"
	stray := vnet + "/subnets/stray"
	putAndWait(t, emulatorClient(t, run), stray, "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.9.0/24"}})

	out, errOut, code := azk(t, "", with("plan", "--destroy", "--detailed-exitcode", dir)...)
	if code != 1 {
		t.Fatalf("plan --destroy --detailed-exitcode: exit %d, want 1 (the cascade guard refuses it)\n%s\n%s", code, out, errOut)
	}
	golden(t, "plan-destroy.text", out)
	mustContain(t, "plan --destroy warning", errOut, "they would also remove 2 more resources", "azk destroy refuses unless --allow-cascade")

	md, _, code := azk(t, "", with("plan", "-destroy", dir, "-o", "markdown")...)
	if code != 0 {
		t.Fatalf("plan -destroy -o markdown: exit %d", code)
	}
	golden(t, "plan-destroy.markdown", md)

	if y, _, code := azk(t, "", with("plan", "-destroy", dir, "-o", "yaml")...); code != 0 || !strings.Contains(y, "\ndestroy: true\n") || !strings.Contains(y, "reason: delete_because_destroy") {
		t.Errorf("plan -destroy -o yaml: exit %d\n%s", code, y)
	}
	js, _, code := azk(t, "", with("plan", "-destroy", dir, "-json")...)
	if code != 0 {
		t.Fatalf("plan -destroy -json: exit %d", code)
	}
	p, byName, summary := decodePlan(t, js)
	if !p.Destroy || summary.Delete != 8 || summary.Detach != 1 || summary.Create+summary.Update+summary.NoChange != 0 {
		t.Errorf("destroy plan: destroy %v, summary %+v", p.Destroy, summary)
	}
	sa, account := "storage.azure.com/StorageAccount/default/azkquickstartsa", byName["StorageAccount/azkquickstartsa"]
	for name, want := range map[string]struct {
		action     planner.Action
		reason     planner.Reason
		cascadedBy string
	}{
		"ResourceGroup/azk-quickstart":                    {planner.ActionDetach, planner.ReasonDestroyForget, ""},
		"VirtualNetwork/quickstart-vnet":                  {planner.ActionDelete, planner.ReasonDestroy, ""},
		"NetworkSecurityGroup/quickstart-nsg":             {planner.ActionDelete, planner.ReasonDestroy, ""},
		"StorageAccount/azkquickstartsa":                  {planner.ActionDelete, planner.ReasonDestroy, ""},
		"VirtualNetworksSubnet/web":                       {planner.ActionDelete, planner.ReasonDestroy, "network.azure.com/VirtualNetwork/default/quickstart-vnet"},
		"VirtualNetworksSubnet/data":                      {planner.ActionDelete, planner.ReasonDestroy, "network.azure.com/VirtualNetwork/default/quickstart-vnet"},
		"NetworkSecurityGroupsSecurityRule/allow-https":   {planner.ActionDelete, planner.ReasonDestroy, "network.azure.com/NetworkSecurityGroup/default/quickstart-nsg"},
		"StorageAccountsBlobService/azkquickstartsa-blob": {planner.ActionDelete, planner.ReasonDestroy, sa},
		"StorageAccountsBlobServicesContainer/artifacts":  {planner.ActionDelete, planner.ReasonDestroy, sa},
	} {
		r := byName[name]
		if r == nil || r.Action != want.action || r.Reason != want.reason || r.CascadedBy != want.cascadedBy || !r.Exists || r.Fingerprint == "" {
			t.Errorf("%s: %+v, want %+v", name, r, want)
		}
	}
	if len(byName) != 9 {
		t.Errorf("%d resources in the destroy plan, want 9", len(byName))
	}
	wantCascades := map[string]string{
		"storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob": "marked detach-on-delete, which deleting its parent defeats",
		stray: planner.CascadeNotInInput,
	}
	for _, r := range p.Resources {
		for _, c := range r.Cascades {
			what := c.ID
			if c.Address != "" {
				what = c.Address
			}
			if wantCascades[what] != c.Reason || c.By != r.Address {
				t.Errorf("unexpected cascade %+v on %s", c, r.Address)
			}
			delete(wantCascades, what)
		}
	}
	if len(wantCascades) > 0 || account == nil || len(account.Cascades) != 1 {
		t.Errorf("cascades not listed: %v", wantCascades)
	}

	// Saved, it is refused without --allow-cascade, as destroy refuses.
	planFile := filepath.Join(t.TempDir(), "destroy.azk")
	if out, errOut, code := azk(t, "", with("plan", "-destroy", dir, "-out", planFile)...); code != 0 || !strings.Contains(errOut, "carry it out with azk destroy "+planFile) {
		t.Fatalf("plan -destroy -out: exit %d\n%s\n%s", code, out, errOut)
	}
	shown, _, code := azk(t, "", "show", planFile)
	if code != 0 || shown != out {
		t.Errorf("azk show of the destroy plan: exit %d, differs from the plan:\n%s", code, shown)
	}
	out, errOut, code = azk(t, "", with("destroy", planFile)...)
	if code != 1 || !strings.Contains(errOut, "deleting would also remove these; nothing was applied") || strings.Contains(out, "Deleting...") {
		t.Fatalf("destroy PLANFILE with cascades and no --allow-cascade: exit %d\n%s\n%s", code, out, errOut)
	}

	// Azure changed since: refused.
	if err := run.Server.Drift(vnet, json.RawMessage(`{"tags":{"changed":"portal"}}`)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = azk(t, "", with("destroy", planFile, "--allow-cascade")...)
	if code != 1 || strings.Contains(out, "Deleting...") {
		t.Fatalf("stale destroy plan applied: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "stale refusal", errOut, "the saved plan is stale; nothing was deleted", "network.azure.com/VirtualNetwork/default/quickstart-vnet: changed in Azure since the plan was made")

	// The manifests changed since: refused.
	if _, _, code := azk(t, "", with("plan", "-destroy", dir, "-out", planFile)...); code != 0 {
		t.Fatal("plan -destroy -out failed")
	}
	network := filepath.Join(dir, "network.yaml")
	original, _ := os.ReadFile(network)
	if !strings.Contains(string(original), "10.10.1.0/24") {
		t.Fatal("the web subnet's prefix is not 10.10.1.0/24")
	}
	if err := os.WriteFile(network, []byte(strings.Replace(string(original), "10.10.1.0/24", "10.10.7.0/24", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = azk(t, "", with("destroy", planFile, "--allow-cascade")...)
	if code != 1 {
		t.Fatal("a destroy plan of other manifests was applied")
	}
	mustContain(t, "stale refusal", errOut, "the saved plan is stale", "the manifests changed since the plan was made")
	if err := os.WriteFile(network, original, 0o644); err != nil {
		t.Fatal(err)
	}
	if getBody(t, run, vnet, "2020-11-01") == nil || getBody(t, run, stray, "2020-11-01") == nil {
		t.Fatal("a refused destroy plan deleted something")
	}

	// A plan that creates and updates is not a destroy plan.
	changes := filepath.Join(t.TempDir(), "changes.azk")
	if _, _, code := azk(t, "", with("plan", dir, "-out", changes)...); code != 0 {
		t.Fatal("plan -out failed")
	}
	if _, errOut, code := azk(t, "", with("destroy", changes)...); code != 1 || !strings.Contains(errOut, "it does not destroy: apply it with azk apply PLANFILE") {
		t.Errorf("destroy of a plan that applies: exit %d\n%s", code, errOut)
	}

	// A fresh destroy plan deletes exactly what it shows, without asking.
	if _, _, code := azk(t, "", with("plan", "-destroy", dir, "-out", planFile)...); code != 0 {
		t.Fatal("plan -destroy -out failed")
	}
	out, errOut, code = azk(t, "", with("destroy", planFile, "--allow-cascade")...)
	if code != 0 {
		t.Fatalf("destroy PLANFILE: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "destroy PLANFILE", out, "Destroy complete! Resources: 3 deleted, 5 deleted by cascade, 1 detached, 0 failed.")
	if getBody(t, run, rg, "2021-04-01") == nil || getBody(t, run, vnet, "2020-11-01") != nil || getBody(t, run, stray, "2020-11-01") != nil {
		t.Error("destroy PLANFILE did not leave the group and delete the network with its stray subnet")
	}
	out, _, code = azk(t, "", with("plan", "--destroy", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Errorf("plan --destroy after destroy: exit %d, want 0 (only the detached group is left)\n%s", code, out)
	}
	mustContain(t, "plan --destroy after destroy", out, views.NoDestroyLine, "Plan: 0 to delete, 1 to detach.")
}

// TestApplyOfADestroyPlanDestroys: azk apply PLANFILE of a destroy plan
// destroys, as terraform apply does with one, sending exactly the DELETEs
// the plan shows (azk checks every apply against its plan); --target
// chooses as destroy does (the resource and what depends on it); the flags
// that plan changes do not combine with --destroy.
func TestApplyOfADestroyPlanDestroys(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "quickstart")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	js, errOut, code := azk(t, "", with("plan", "--destroy", "--target", "VirtualNetwork/quickstart-vnet", dir, "-o", "json")...)
	if code != 0 {
		t.Fatalf("plan --destroy --target: exit %d\n%s", code, errOut)
	}
	_, byName, _ := decodePlan(t, js)
	var names []string
	for name := range byName {
		names = append(names, name)
	}
	if len(byName) != 3 || byName["VirtualNetwork/quickstart-vnet"] == nil || byName["VirtualNetworksSubnet/web"] == nil || byName["VirtualNetworksSubnet/data"] == nil {
		t.Errorf("plan --destroy --target the network: %v, want it and its subnets", names)
	}

	planFile := filepath.Join(t.TempDir(), "destroy.azk")
	if _, errOut, code := azk(t, "", with("plan", "--destroy", dir, "--out", planFile)...); code != 0 {
		t.Fatalf("plan --destroy --out: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := azk(t, "", with("apply", "--engine", "deployment", planFile)...); code != 1 || !strings.Contains(errOut, "a destroy plan deletes") {
		t.Errorf("apply --engine deployment of a destroy plan: exit %d\n%s", code, errOut)
	}
	out, errOut, code := azk(t, "", with("apply", planFile)...)
	if code != 0 {
		t.Fatalf("apply of a destroy plan: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply of a destroy plan", out, "Destroy complete! Resources: 1 deleted, 8 deleted by cascade, 0 detached, 0 failed.")
	if getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/azk-quickstart", "2021-04-01") != nil {
		t.Error("the resource group is still there")
	}
	out, _, code = azk(t, "", with("plan", "--destroy", "--detailed-exitcode", dir)...)
	if code != 0 || !strings.Contains(out, views.NoDestroyLine) {
		t.Errorf("plan --destroy of what is gone: exit %d\n%s", code, out)
	}

	for _, extra := range [][]string{{"--base", "HEAD"}, {"--drift"}, {"-replace=VirtualNetwork/quickstart-vnet"}, {"--send-secrets", "VirtualNetwork/quickstart-vnet"}, {"--what-if"}} {
		_, errOut, code := azk(t, "", with(append([]string{"plan", "--destroy", dir}, extra...)...)...)
		if code != 1 || !strings.Contains(errOut, "--destroy plans deleting every resource of the inputs: it does not combine with "+strings.SplitN(extra[0], "=", 2)[0]) {
			t.Errorf("plan --destroy %v: exit %d\n%s", extra, code, errOut)
		}
	}
}
