package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// The plan is the contract: these scenarios run plan and apply end to end
// against the emulator; azk checks every apply against its plan (see
// writes_test.go).

func writeStack(t *testing.T, docs string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stack300 is a resource group with 30 networks of 4 subnets, 50 security
// groups and 99 identities: 300 resources.
func stack300(env string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: big\nspec:\n  location: westus2\n  tags: {env: %s}\n", env)
	for i := range 30 {
		fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: vnet%d\nspec:\n  location: westus2\n  owner: {name: big}\n  addressSpace: {addressPrefixes: [10.%d.0.0/16]}\n", i, i)
		for j := range 4 {
			fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: vnet%d-s%d\nspec:\n  owner: {name: vnet%d}\n  addressPrefix: 10.%d.%d.0/24\n", i, j, i, i, j)
		}
	}
	for i := range 50 {
		fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: NetworkSecurityGroup\nmetadata:\n  name: nsg%d\nspec:\n  location: westus2\n  owner: {name: big}\n", i)
	}
	for i := range 99 {
		fmt.Fprintf(&b, "---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id%d\nspec:\n  location: westus2\n  owner: {name: big}\n  tags: {team: platform}\n", i)
	}
	return b.String()
}

// After apply, the plan of the same manifests is quiet, whatever the size of
// the stack; one changed tag is one short plan and one PUT.
func TestOneChangedTagInALargeStackIsOnePut(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, stack300("dev"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--parallelism", "50", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Fatalf("plan after apply: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "quiet plan", out, "300 resources unchanged", "No changes. Azure matches the manifests.")

	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(stack300("prod")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 2 {
		t.Fatalf("plan of one change: exit %d, want 2\n%s", code, out)
	}
	if lines := strings.Count(out, "\n"); lines >= 15 {
		t.Errorf("the plan of one changed tag is %d lines, want under 15:\n%s", lines, out)
	}
	mustContain(t, "one-change plan", out, `~ tags.env = "dev" -> "prod"`, "299 resources unchanged", "Plan: 0 to create, 1 to update, 299 unchanged")
	md, _, _ := azk(t, "", with("plan", "-o", "markdown", dir)...)
	if len(md) >= 8*1024 {
		t.Errorf("the markdown plan of one changed tag is %d bytes, want under 8 KB", len(md))
	}
	mustContain(t, "markdown", md, `~ tags.env = "dev" -> "prod"`)

	out, errOut, code = azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 0 {
		t.Fatalf("apply of one change: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply of one change", out, "Apply complete! Resources: 0 created, 1 updated, 0 failed.")
	if n := strings.Count(out, "Updating..."); n != 1 {
		t.Errorf("%d resources updated, want 1", n)
	}
}

// A resource an earlier apply left in a failed provisioning state is sent
// again, as the operator would, though its body matches.
func TestFailedResourceIsSentAgain(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: flaky\nspec:\n  location: westus2\n---\n"+
		"apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id\nspec:\n  location: westus2\n  owner: {name: flaky}\n")
	run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.ManagedIdentity/userAssignedIdentities", After: 20 * time.Millisecond, Code: "InternalError", Message: "quota"}}})
	if out, _, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 1 || !strings.Contains(out, "InternalError: quota") {
		t.Fatalf("first apply: exit %d, want the identity failed\n%s", code, out)
	}
	run.Server.SetFaults(emulator.Faults{})
	out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 2 {
		t.Fatalf("plan: exit %d, want 2\n%s", code, out)
	}
	mustContain(t, "plan", out, "~ UserAssignedIdentity default/id will be sent again (its last provisioning failed)", "provisioningState Failed")
	if out, _, code := azk(t, "", with("plan", "-o", "json", dir)...); code != 0 || !strings.Contains(out, `"reason": "update_because_provisioning_failed"`) {
		t.Errorf("json plan: exit %d, no failed reason\n%s", code, out)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 || !strings.Contains(out, "0 created, 1 updated, 0 failed") {
		t.Fatalf("second apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("plan after the re-send: exit %d, want 0\n%s", code, out)
	}
}

// A path named by azk.azkcli.io/ignore-changes keeps Azure's value: the plan
// shows the difference as ignored, and a PUT for another change carries
// Azure's value there.
func TestIgnoredPathKeepsAzuresValue(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	manifest := func(team string) string {
		return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: ign\n  annotations:\n    azk.azkcli.io/ignore-changes: tags.owner\n" +
			"spec:\n  location: westus2\n  tags: {owner: azk, team: " + team + "}\n"
	}
	dir := writeStack(t, manifest("a"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	id := "/subscriptions/" + emulatorSubscription + "/resourceGroups/ign"
	if err := run.Server.Drift(id, []byte(`{"tags":{"owner":"portal","team":"a"}}`)); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", "--detailed-exitcode", "--show-unchanged", dir)...)
	if code != 0 {
		t.Fatalf("plan with only an ignored difference: exit %d, want 0\n%s", code, out)
	}
	mustContain(t, "plan", out, `# tags.owner = "portal" -> "azk" (ignored: Azure's value is kept)`, "operator differs: the operator does not honour azk.azkcli.io/ignore-changes: its PUT carries the manifests' values at tags.owner")

	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(manifest("b")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply of another change: exit %d\n%s\n%s", code, out, errOut)
	}
	tags := testkit.At[map[string]any](t, getBody(t, run, id, "2020-06-01"), "tags")
	if tags["owner"] != "portal" || tags["team"] != "b" {
		t.Errorf("tags after apply %v, want owner kept as portal and team b", tags)
	}
}

// A key holding dots (Azure Policy's platformsettings.… tags) is printed as
// tags["…"], the form ignore-changes reads back: copying the path the plan
// shows keeps the tag, where a dotted form would name a nested key.
func TestIgnoreChangesTakesThePathThePlanPrints(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	const tag = "platformsettings.host_environment.service.platform_optedin_for_rootcerts"
	manifest := func(annotation, team string) string {
		return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: dotted\n" + annotation +
			"spec:\n  location: westus2\n  tags: {team: " + team + "}\n"
	}
	dir := writeStack(t, manifest("", "a"))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	id := "/subscriptions/" + emulatorSubscription + "/resourceGroups/dotted"
	if err := run.Server.Drift(id, []byte(`{"tags":{"team":"a","`+tag+`":"true"}}`)); err != nil {
		t.Fatal(err)
	}
	printed := `tags["` + tag + `"]`
	out, _, _ := azk(t, "", with("plan", dir)...)
	mustContain(t, "plan", out, printed+` = "true"`)

	annotation := "  annotations:\n    azk.azkcli.io/ignore-changes: '" + printed + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(manifest(annotation, "b")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ = azk(t, "", with("plan", dir)...)
	mustContain(t, "plan", out, "# "+printed+` = "true"`, "(ignored: Azure's value is kept)")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply of another change: exit %d\n%s\n%s", code, out, errOut)
	}
	tags := testkit.At[map[string]any](t, getBody(t, run, id, "2020-06-01"), "tags")
	if tags[tag] != "true" || tags["team"] != "b" {
		t.Errorf("tags after apply %v, want the policy tag kept and team b", tags)
	}
}

// With --base, a resource new in the change under review that exists in
// Azure already is flagged as adopted, with what destroy would then do.
func TestPlanBaseFlagsAdoption(t *testing.T) {
	run, flags := emulatorAt(t)
	rg := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: app\nspec:\n  location: westus2\n"
	identity := "---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: found\nspec:\n  location: westus2\n  owner: {name: app}\n"
	base := t.TempDir()
	head := t.TempDir()
	for dir, docs := range map[string]string{base: rg, head: rg + identity} {
		if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "manifests", "app.yaml"), []byte(docs), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	client := emulatorClient(t, run)
	rgID := "/subscriptions/" + emulatorSubscription + "/resourceGroups/app"
	putAndWait(t, client, rgID, "2020-06-01", map[string]any{"location": "westus2"})
	putAndWait(t, client, rgID+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/found", "2023-01-31", map[string]any{"location": "westus2"})

	t.Chdir(head)
	out, errOut, code := azk(t, "", append([]string{"plan", "--base", base, "manifests"}, flags...)...)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan --base", out, "> UserAssignedIdentity default/found will be adopted, unchanged",
		"adopt:  it exists in Azure and is new in this change: taken over under manage; azk destroy deletes it from Azure, although it existed before this change",
		"; 1 adopted from Azure; this change: 1, drift: 0.", "This change: 1 resource")
	if strings.Contains(out, "ResourceGroup default/app will be adopted") {
		t.Errorf("the group is in the base, yet flagged:\n%s", out)
	}
}

// Anything blocked makes the plan an error, and apply refuses to start
// unless --allow-partial.
func TestBlockedIsAnError(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: part\nspec:\n  location: westus2\n---\n"+
		"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: nopw\nspec:\n  location: westus2\n  owner: {name: part}\n  administratorLogin: admin\n  administratorLoginPassword: {name: missing, key: password}\n")
	for _, args := range [][]string{{"plan", dir}, {"plan", "--detailed-exitcode", dir}} {
		if out, errOut, code := azk(t, "", with(args...)...); code != 1 || !strings.Contains(errOut, "1 resource blocked") {
			t.Errorf("%v: exit %d, want 1\n%s\n%s", args, code, out, errOut)
		}
	}
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 1 || !strings.Contains(errOut, "--allow-partial applies the rest") || strings.Contains(out, "Creating...") {
		t.Fatalf("apply with a blocked resource: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = azk(t, "", with("apply", "--auto-approve", "--allow-partial", dir)...)
	if code != 1 || !strings.Contains(out, "resources.azure.com/ResourceGroup/default/part: Creation complete") {
		t.Fatalf("apply --allow-partial: exit %d\n%s", code, out)
	}
	if getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/part", "2020-06-01") == nil {
		t.Error("--allow-partial did not create what was not blocked")
	}
}

// nameFromStatusStack names a PostgreSQL administrator after an identity's
// principal ID (azureNameFromConfig of a configMapExpressions value).
const nameFromStatusStack = "testdata/name-from-status"

// A resource named from another resource's status (azureNameFromConfig) is
// created by the same apply that creates that resource.
func TestNameFromStatusInOneApply(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := nameFromStatusStack
	out, errOut, code := azk(t, "", with("plan", dir)...)
	if code != 0 {
		t.Fatalf("plan: exit %d, want 0 (nothing blocked)\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan", out, "+ FlexibleServersAdministrator default/admin1 will be created (its name is known after apply)", "id:     (known after apply)")
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply", out, "Apply complete! Resources: 4 created")
	identity := getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/pg-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/admin-identity", "2023-01-31")
	principal := testkit.At[string](t, identity, "properties", "principalId")
	if getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/pg-rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg1/administrators/"+principal, "2025-08-01") == nil {
		t.Errorf("no administrator named %s", principal)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
}

// Azure never returns secrets: the plan says so, and --send-secrets sends
// them again, with nothing about their value printed.
func TestSendSecrets(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	const password = "first-Secret-value-1"
	manifest := func(pw string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: " + pw + "\n---\n" +
			"apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: sec\nspec:\n  location: westus2\n---\n" +
			"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: db1\nspec:\n  location: westus2\n  owner: {name: sec}\n  administratorLogin: admin\n  administratorLoginPassword: {name: db, key: password}\n"
	}
	dir := writeStack(t, manifest(password))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	const rotated = "rotated-Secret-value-2"
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(manifest(rotated)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Fatalf("plan of a changed secret: exit %d (a plan cannot see it)\n%s", code, out)
	}
	mustContain(t, "plan", out, "Not compared: the secrets of dbformysql.azure.com/FlexibleServer/default/db1, which Azure never returns; azk apply --send-secrets ADDRESS sends them again.")
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--send-secrets", "FlexibleServer/db1", dir)...)
	if code != 0 {
		t.Fatalf("apply --send-secrets: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply --send-secrets", out, "~ FlexibleServer default/db1 will be updated to send its secrets again", "+ properties.administratorLoginPassword = (sensitive)", "0 created, 1 updated")
	for _, secret := range []string{password, rotated} {
		if strings.Contains(out+errOut, secret) {
			t.Errorf("a secret value was printed")
		}
	}
	if _, errOut, code := azk(t, "", with("plan", "--send-secrets", "FlexibleServer/nope", dir)...); code != 1 || !strings.Contains(errOut, "--send-secrets FlexibleServer/nope: no resource of the plan has that address") {
		t.Errorf("unknown address: exit %d\n%s", code, errOut)
	}
}

func emulatorClient(t *testing.T, run *emulator.Running) *arm.Client {
	t.Helper()
	client, err := arm.New(arm.Options{Subscription: emulatorSubscription, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func putAndWait(t *testing.T, client *arm.Client, id, apiVersion string, body map[string]any) {
	t.Helper()
	ctx := testkit.Context(t)
	op, err := client.Put(ctx, id, apiVersion, body)
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// getBody reads a resource from the emulator; nil when it does not exist.
func getBody(t *testing.T, run *emulator.Running, id, apiVersion string) map[string]any {
	t.Helper()
	resp, err := emulatorClient(t, run).Get(context.Background(), id, apiVersion)
	if arm.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A tag added in the portal is shown as removed: a PUT replaces tags whole,
// and apply removes it, as the plan said.
func TestPortalTagIsShownAsRemoved(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: tagged\nspec:\n  location: westus2\n  tags: {env: dev}\n")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	id := "/subscriptions/" + emulatorSubscription + "/resourceGroups/tagged"
	if err := run.Server.Drift(id, []byte(`{"tags":{"env":"dev","costcenter":"42"}}`)); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 2 {
		t.Fatalf("plan: exit %d, want 2\n%s", code, out)
	}
	mustContain(t, "plan", out, "~ ResourceGroup default/tagged will be updated in place", `- tags.costcenter = "42"`)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if tags := testkit.At[map[string]any](t, getBody(t, run, id, "2020-06-01"), "tags"); tags["costcenter"] != nil || tags["env"] != "dev" {
		t.Errorf("tags after apply: %v", tags)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
}
