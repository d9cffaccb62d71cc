package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/views"
)

// gitRepo makes a git repository holding manifests/stack.yaml and returns
// its directory and a function that commits a version of the file (and of
// a file beside the manifests, so that each call is a commit).
func gitRepo(t *testing.T, first string) (string, func(string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: --base GITREF needs it")
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=azk", "-c", "user.email=azk@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commits := 0
	commit := func(docs string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(repo, "manifests"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "manifests", "stack.yaml"), []byte(docs), 0o644); err != nil {
			t.Fatal(err)
		}
		commits++
		if err := os.WriteFile(filepath.Join(repo, "COMMITS"), []byte(strconv.Itoa(commits)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", "change")
	}
	git("init", "-q")
	commit(first)
	return repo, commit
}

// prStack is a resource group (tagged env), a network with two subnets, an
// identity, and a MySQL server whose password comes from a v1 Secret; the
// change under review removes the db subnet (a child) and the identity (a
// resource-group-level resource), tags the group prod and rotates the password.
func prStack(env, password string, removed bool) string {
	docs := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: " + password + "\n---\n" +
		"apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: pr\nspec:\n  location: westus2\n  tags: {env: " + env + "}\n---\n" +
		"apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: net\nspec:\n  location: westus2\n  owner: {name: pr}\n  addressSpace: {addressPrefixes: [10.0.0.0/16]}\n---\n" +
		"apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: web\nspec:\n  owner: {name: net}\n  addressPrefix: 10.0.1.0/24\n---\n" +
		"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: db1\nspec:\n  location: westus2\n  owner: {name: pr}\n  administratorLogin: admin\n  administratorLoginPassword: {name: db, key: password}\n"
	if !removed {
		docs += "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: db\nspec:\n  owner: {name: net}\n  addressPrefix: 10.0.2.0/24\n" +
			"---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: old-id\nspec:\n  location: westus2\n  owner: {name: pr}\n"
	}
	return docs
}

const (
	prPassword = "first-Secret-value-1"
	prRotated  = "rotated-Secret-value-2"
)

func decodePlan(t *testing.T, out string) (*planner.Plan, map[string]*planner.Resource, planner.Summary) {
	t.Helper()
	var p struct {
		planner.Plan
		Summary planner.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan JSON: %v\n%s", err, out)
	}
	byName := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		byName[r.Kind+"/"+r.Name] = r
	}
	return &p.Plan, byName, p.Summary
}

func changeAt(r *planner.Resource, path string) *planner.Change {
	for i := range r.Changes {
		if r.Changes[i].Path == path {
			return &r.Changes[i]
		}
	}
	return nil
}

// The pull-request plan: against the manifests of the previous commit, the
// plan tells this change from the drift Azure already has, deletes what the
// change removed, and updates the consumer of a rotated Secret; apply does
// exactly that (azk checks every apply against its plan) and a re-plan is quiet.
func TestPullRequestPlanIsThreeWay(t *testing.T) {
	run, with, commit := appliedPRStack(t)
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/pr"
	vnet := rg + "/providers/Microsoft.Network/virtualNetworks/net"
	identity := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/old-id"
	subnet := vnet + "/subnets/db"
	commit(prStack("prod", prRotated, true))
	// Behind azk's back: a tag and DNS servers set on the network in the
	// portal. The manifests never mention DNS: the PUT, which replaces the
	// network, resets them, and the plan must say so.
	if err := run.Server.Drift(vnet, []byte(`{"tags":{"owner":"portal"},"properties":{"dhcpOptions":{"dnsServers":["10.0.0.4"]}}}`)); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "json", "manifests")...)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, secret := range []string{prPassword, prRotated} {
		if strings.Contains(out+errOut, secret) {
			t.Errorf("a secret value was printed")
		}
	}
	p, byName, summary := decodePlan(t, out)
	if len(p.Inputs.Base) != 40 {
		t.Errorf("inputs.base %q, want the commit HEAD~1 names", p.Inputs.Base)
	}
	for _, name := range []string{"VirtualNetworksSubnet/db", "UserAssignedIdentity/old-id"} {
		r := byName[name]
		if r == nil || r.Action != planner.ActionDelete || r.Reason != planner.ReasonRemoved || r.CascadedBy != "" {
			t.Errorf("%s: %+v, want delete_because_removed_from_manifests", name, r)
		}
	}
	if r := byName["ResourceGroup/pr"]; r == nil || r.Action != planner.ActionUpdate {
		t.Errorf("ResourceGroup/pr: %+v, want update", r)
	} else if c := changeAt(r, "tags.env"); c == nil || c.Origin != planner.OriginChange || c.Before != "dev" || c.After != "prod" {
		t.Errorf("tags.env of the group: %+v, want dev -> prod of origin change", c)
	}
	if r := byName["VirtualNetwork/net"]; r == nil || r.Action != planner.ActionUpdate {
		t.Errorf("VirtualNetwork/net: %+v, want update", r)
	} else if c := changeAt(r, "tags.owner"); c == nil || c.Origin != planner.OriginDrift || c.Before != "portal" || c.After != nil {
		t.Errorf("tags.owner of the network: %+v, want its removal, of origin drift", c)
	} else if !slices.ContainsFunc(r.AzureOnly, func(v planner.PathValue) bool {
		return v.Path == "properties.dhcpOptions" && reflect.DeepEqual(v.Value, map[string]any{"dnsServers": []any{"10.0.0.4"}})
	}) {
		t.Errorf("the network's azureOnly %+v, want the DNS servers set behind azk's back", r.AzureOnly)
	}
	if r := byName["FlexibleServer/db1"]; r == nil || r.Action != planner.ActionUpdate || r.Reason != planner.ReasonSecretChanged {
		t.Errorf("FlexibleServer/db1: %+v, want update_because_secret_changed", r)
	} else if c := changeAt(r, "properties.administratorLoginPassword"); c == nil || !c.Sensitive || c.Origin != planner.OriginChange || c.After != nil {
		t.Errorf("the password: %+v, want a sensitive change of origin change", c)
	}
	if r := byName["VirtualNetworksSubnet/web"]; r == nil || r.Action != planner.ActionNoChange {
		t.Errorf("VirtualNetworksSubnet/web: %+v, want no-change", r)
	}
	if summary.Delete != 2 || summary.Update != 3 || summary.Changed != 4 || summary.Drifted != 1 || summary.Unmanaged != 0 {
		t.Errorf("summary %+v, want 2 to delete, 3 to update, 4 from this change, 1 drifted, nothing unmanaged", summary)
	}

	text, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...)
	change, drift := strings.Index(text, "This change: 4 resources"), strings.Index(text, "Drift Azure already has (apply reverts it): 1 resource")
	if change < 0 || drift < change {
		t.Errorf("the text plan does not list this change, then the drift:\n%s", text)
	}
	mustContain(t, "text plan", text, "- VirtualNetworksSubnet default/db will be deleted", `~ tags.env = "dev" -> "prod"`, `- tags.owner = "portal"`,
		"~ FlexibleServer default/db1 will be updated to send a changed Secret", "Plan: 0 to create, 3 to update, 2 to delete, 1 unchanged, 0 skipped, 0 blocked; this change: 4, drift: 1.")
	md, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "markdown", "manifests")...)
	mustContain(t, "markdown plan", md, "#### This change: 4 resources", "#### Drift Azure already has (apply reverts it): 1 resource", "| delete | 2 |", "| this change | 4 |", "| drifted | 1 |")

	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", "manifests")...)
	if code != 0 {
		t.Fatalf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply --base", out, "Apply complete! Resources: 0 created, 3 updated, 2 deleted, 0 failed.")
	if first, last := strings.Index(out, ": Deleting..."), strings.LastIndex(out, ": Update complete"); first < last {
		t.Errorf("a deletion started before every update ended:\n%s", out)
	}
	for id, apiVersion := range map[string]string{subnet: "2020-11-01", identity: "2023-01-31"} {
		if getBody(t, run, id, apiVersion) != nil {
			t.Errorf("%s is still in Azure", id)
		}
	}
	if tags := getBody(t, run, rg, "2020-06-01")["tags"].(map[string]any); tags["env"] != "prod" {
		t.Errorf("group tags %v, want env prod", tags)
	}
	network := getBody(t, run, vnet, "2020-11-01")
	if tags, _ := network["tags"].(map[string]any); tags["owner"] != nil {
		t.Errorf("network tags %v, want the portal's tag reverted", tags)
	}
	if props, _ := network["properties"].(map[string]any); props["dhcpOptions"] != nil {
		t.Errorf("network dhcpOptions %v, want them reset by the PUT, as the plan said", props["dhcpOptions"])
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", "manifests")...); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", "--base", "HEAD", "manifests")...); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("re-plan against the new base: exit %d\n%s\n%s", code, out, errOut)
	}
}

// appliedPRStack applies prStack's dev stack from a git repository it makes
// the working directory, against an emulator behind a write-checking proxy;
// it returns the emulator, what adds its flags to a command line, and what
// commits a new version of the stack.
func appliedPRStack(t *testing.T) (*emulator.Running, func(...string) []string, func(string)) {
	t.Helper()
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, prStack("dev", prPassword, false))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	return run, with, commit
}

// cascadeStack: a network with a subnet, an identity marked
// detach-on-delete, and a second group holding an identity.
func cascadeStack(removed bool) string {
	docs := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: cg\nspec:\n  location: westus2\n"
	if removed {
		return docs
	}
	return docs +
		"---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: v\nspec:\n  location: westus2\n  owner: {name: cg}\n  addressSpace: {addressPrefixes: [10.0.0.0/16]}\n" +
		"---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: s\nspec:\n  owner: {name: v}\n  addressPrefix: 10.0.1.0/24\n" +
		"---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: keep\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\nspec:\n  location: westus2\n  owner: {name: cg}\n" +
		"---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: gone\nspec:\n  location: westus2\n" +
		"---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: i\nspec:\n  location: westus2\n  owner: {name: gone}\n"
}

// Removing a parent with its child deletes the parent only (ARM deletes the
// child with it, reported as such); a detach-on-delete resource is left in
// Azure; and deleting a group that holds a resource not in the manifests is
// refused, as destroy refuses it, unless --allow-cascade.
func TestRemovalsCascadeAndDetach(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, cascadeStack(false))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	sub := "/subscriptions/" + emulatorSubscription
	stray := sub + "/resourceGroups/gone/providers/Microsoft.ManagedIdentity/userAssignedIdentities/stray"
	putAndWait(t, emulatorClient(t, run), stray, "2023-01-31", map[string]any{"location": "westus2"})
	commit(cascadeStack(true))

	out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "json", "manifests")...)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan warnings", errOut, "azk apply refuses unless --allow-cascade")
	_, byName, summary := decodePlan(t, out)
	want := map[string]struct {
		action     planner.Action
		reason     planner.Reason
		cascadedBy string
	}{
		"VirtualNetwork/v":          {planner.ActionDelete, planner.ReasonRemoved, ""},
		"VirtualNetworksSubnet/s":   {planner.ActionDelete, planner.ReasonRemoved, "network.azure.com/VirtualNetwork/default/v"},
		"UserAssignedIdentity/keep": {planner.ActionDetach, planner.ReasonForget, ""},
		"ResourceGroup/gone":        {planner.ActionDelete, planner.ReasonRemoved, ""},
		"UserAssignedIdentity/i":    {planner.ActionDelete, planner.ReasonRemoved, "resources.azure.com/ResourceGroup/default/gone"},
	}
	for name, w := range want {
		r := byName[name]
		if r == nil || r.Action != w.action || r.Reason != w.reason || r.CascadedBy != w.cascadedBy {
			t.Errorf("%s: %+v, want %v", name, r, w)
		}
	}
	if r := byName["ResourceGroup/gone"]; r == nil || len(r.Cascades) != 1 || r.Cascades[0].ID != stray || r.Cascades[0].Reason != planner.CascadeNotInInput {
		t.Errorf("the group's cascades: %+v, want the stray identity", r)
	}
	if summary.Delete != 4 || summary.Detach != 1 || summary.Unmanaged != 0 {
		t.Errorf("summary %+v, want 4 to delete, 1 to detach, none unmanaged", summary)
	}
	text, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "manifests")...)
	mustContain(t, "text plan", text, "- VirtualNetworksSubnet default/s will be deleted by ARM with network.azure.com/VirtualNetwork/default/v",
		". UserAssignedIdentity default/keep will be left in Azure, no longer managed",
		"cascade: deleting it also removes "+stray+" (not in the input): apply refuses unless --allow-cascade")

	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", "manifests")...)
	if code != 1 || !strings.Contains(errOut, "pass --allow-cascade") || strings.Contains(out, "Deleting...") {
		t.Fatalf("apply without --allow-cascade: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--allow-cascade", "--base", "HEAD~1", "manifests")...)
	if code != 0 {
		t.Fatalf("apply --allow-cascade: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply", out, "network.azure.com/VirtualNetworksSubnet/default/s: Deleted with network.azure.com/VirtualNetwork/default/v",
		"Apply complete! Resources: 0 created, 0 updated, 2 deleted, 2 deleted by cascade, 1 detached, 0 failed.")
	if getBody(t, run, sub+"/resourceGroups/cg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/keep", "2023-01-31") == nil {
		t.Error("the detach-on-delete identity was deleted")
	}
	for id, apiVersion := range map[string]string{sub + "/resourceGroups/gone": "2020-06-01", stray: "2023-01-31", sub + "/resourceGroups/cg/providers/Microsoft.Network/virtualNetworks/v": "2020-11-01"} {
		if getBody(t, run, id, apiVersion) != nil {
			t.Errorf("%s is still in Azure", id)
		}
	}
}

// A saved plan carries its deletions and the base it was made against
// (as a commit, so a later commit does not move it); applying it refuses
// when a resource to delete changed in Azure since, and applies it when not.
func TestSavedPlanCarriesDeletions(t *testing.T) {
	run, with, commit := appliedPRStack(t)
	commit(prStack("dev", prPassword, true))
	planFile := filepath.Join(t.TempDir(), "plan.azk")
	if out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-out", planFile, "manifests")...); code != 0 {
		t.Fatalf("plan -out: exit %d\n%s\n%s", code, out, errOut)
	}
	identity := "/subscriptions/" + emulatorSubscription + "/resourceGroups/pr/providers/Microsoft.ManagedIdentity/userAssignedIdentities/old-id"
	if err := run.Server.Drift(identity, []byte(`{"tags":{"owner":"portal"}}`)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, "", with("apply", planFile)...)
	if code != 1 || !strings.Contains(errOut, "managedidentity.azure.com/UserAssignedIdentity/default/old-id: changed in Azure since the plan was made") {
		t.Fatalf("apply of a stale plan: exit %d\n%s\n%s", code, out, errOut)
	}
	if getBody(t, run, identity, "2023-01-31") == nil {
		t.Fatal("a stale plan deleted the identity")
	}
	if out, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "-out", planFile, "manifests")...); code != 0 {
		t.Fatalf("plan -out again: exit %d\n%s\n%s", code, out, errOut)
	}
	commit(prStack("dev", prPassword, true)) // a later commit: HEAD~1 names another one
	out, errOut, code = azk(t, "", with("apply", planFile)...)
	if code != 0 {
		t.Fatalf("apply of the saved plan: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply of the saved plan", out, "0 created, 0 updated, 2 deleted, 0 failed")
	if getBody(t, run, identity, "2023-01-31") != nil {
		t.Error("the identity is still in Azure")
	}
}

// replaceStack: a group, a network with a subnet, and an identity at location.
func replaceStack(env, location string) string {
	return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rep\nspec:\n  location: westus2\n  tags: {env: " + env + "}\n---\n" +
		"apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: net\nspec:\n  location: westus2\n  owner: {name: rep}\n  addressSpace: {addressPrefixes: [10.0.0.0/16]}\n---\n" +
		"apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: web\nspec:\n  owner: {name: net}\n  addressPrefix: 10.0.1.0/24\n---\n" +
		"apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id\nspec:\n  location: " + location + "\n  owner: {name: rep}\n"
}

// -replace deletes a resource and creates it again, and with it its
// children in the manifests, which ARM deletes with it (their PUT only); a
// child the manifests do not hold makes apply refuse unless --allow-cascade.
func TestReplaceRecreatesWithChildren(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, replaceStack("dev", "westus2"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	vnet := "/subscriptions/" + emulatorSubscription + "/resourceGroups/rep/providers/Microsoft.Network/virtualNetworks/net"
	extra := vnet + "/subnets/extra"
	putAndWait(t, emulatorClient(t, run), extra, "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.9.0/24"}})
	before := getBody(t, run, vnet, "2020-11-01")["etag"]

	out, errOut, code := azk(t, "", with("plan", "-replace=VirtualNetwork/net", "-o", "json", dir)...)
	if code != 0 {
		t.Fatalf("plan -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, summary := decodePlan(t, out)
	if r := byName["VirtualNetwork/net"]; r == nil || r.Action != planner.ActionRecreate || r.Reason != planner.ReasonReplaceRequested || r.CascadedBy != "" ||
		len(r.Cascades) != 1 || r.Cascades[0].ID != extra {
		t.Errorf("the network: %+v, want replace_because_requested, taking the extra subnet along", r)
	}
	if r := byName["VirtualNetworksSubnet/web"]; r == nil || r.Action != planner.ActionRecreate || r.Reason != planner.ReasonOwnerReplaced || r.CascadedBy != "network.azure.com/VirtualNetwork/default/net" {
		t.Errorf("the subnet: %+v, want replace_because_owner_replaced by the network", r)
	}
	if r := byName["UserAssignedIdentity/id"]; r == nil || r.Action != planner.ActionNoChange {
		t.Errorf("the identity: %+v, want no-change", r)
	}
	if summary.Replace != 2 {
		t.Errorf("summary %+v, want 2 to replace", summary)
	}
	text, _, _ := azk(t, "", with("plan", "--replace", "VirtualNetwork/net", dir)...)
	mustContain(t, "text plan", text, "-/+ VirtualNetwork default/net will be replaced: deleted, then created",
		"-/+ VirtualNetworksSubnet default/web will be replaced: ARM deletes it with network.azure.com/VirtualNetwork/default/net, then it is created",
		"Plan: 0 to create, 0 to update, 2 to replace, 2 unchanged")
	if _, errOut, code := azk(t, "", with("plan", "-replace=VirtualNetwork/nope", dir)...); code != 1 || !strings.Contains(errOut, "-replace VirtualNetwork/nope: no resource of the plan has that address") {
		t.Errorf("-replace of an unknown address: exit %d\n%s", code, errOut)
	}

	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "-replace=VirtualNetwork/net", dir)...)
	if code != 1 || !strings.Contains(errOut, extra+" (not in the input; removed with network.azure.com/VirtualNetwork/default/net)") || strings.Contains(out, "Deleting...") {
		t.Fatalf("apply -replace without --allow-cascade: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "--allow-cascade", "-replace=VirtualNetwork/net", dir)...)
	if code != 0 {
		t.Fatalf("apply -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply -replace", out, "network.azure.com/VirtualNetwork/default/net: Deleting...", "network.azure.com/VirtualNetwork/default/net: Creating again...",
		"Apply complete! Resources: 0 created, 0 updated, 2 replaced, 0 failed.")
	if strings.Index(out, "VirtualNetworksSubnet/default/web: Creating again...") < strings.Index(out, "VirtualNetwork/default/net: Creation complete") {
		t.Errorf("the subnet was created before its network:\n%s", out)
	}
	after := getBody(t, run, vnet, "2020-11-01")
	if after == nil || after["etag"] == before || getBody(t, run, vnet+"/subnets/web", "2020-11-01") == nil {
		t.Errorf("the network or its subnet is not there again: %v", after)
	}
	if getBody(t, run, extra, "2020-11-01") != nil {
		t.Error("the subnet outside the manifests survived its network's deletion")
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("re-plan: exit %d\n%s", code, out)
	}
}

// A location change is replace-required: the reason names -replace, apply
// refuses it, --allow-partial applies everything else, and -replace moves it.
func TestLocationChangeNamesReplaceAndAllowPartialAppliesTheRest(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, replaceStack("dev", "westus2"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(replaceStack("prod", "eastus")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", dir)...)
	if code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "plan", out, "! UserAssignedIdentity default/id needs replacing: azk applies it only with -replace",
		`location: Azure has "westus2", the manifest says "eastus"; Azure cannot move it in place: -replace=managedidentity.azure.com/UserAssignedIdentity/default/id deletes it`)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 1 || !strings.Contains(errOut, "-replace=ADDRESS deletes and creates such a resource again, --allow-partial applies the rest") || strings.Contains(out, "Updating...") {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--allow-partial", dir)...)
	if code != 1 || !strings.Contains(out, "resources.azure.com/ResourceGroup/default/rep: Update complete") {
		t.Fatalf("apply --allow-partial: exit %d, want 1 with the group updated\n%s\n%s", code, out, errOut)
	}
	rg := "/subscriptions/" + emulatorSubscription + "/resourceGroups/rep"
	if tags := getBody(t, run, rg, "2020-06-01")["tags"].(map[string]any); tags["env"] != "prod" {
		t.Errorf("group tags %v, want env prod", tags)
	}
	identity := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"
	if got := getBody(t, run, identity, "2023-01-31")["location"]; got != "westus2" {
		t.Errorf("the identity is at %v, want it left at westus2", got)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", "-replace=managedidentity.azure.com/UserAssignedIdentity/default/id", dir)...)
	if code != 0 {
		t.Fatalf("apply -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := getBody(t, run, identity, "2023-01-31")["location"]; got != "eastus" {
		t.Errorf("the identity is at %v after -replace, want eastus", got)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("re-plan: exit %d\n%s", code, out)
	}
}
