package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// examplePolicies is examples/policy as an absolute path: the tests below
// run in a git repository of their own.
func examplePolicies(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "policy"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// policyGroup is a resource group in an allowed location with its cost centre.
const policyGroup = "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: policy-rg\nspec:\n  location: westeurope\n  tags: {cost-centre: cc-1234}\n"

// policyStack is policyGroup and, unless account is "", a storage account
// whose spec ends with account (its tags, its public network access).
func policyStack(account string) string {
	if account == "" {
		return policyGroup
	}
	return policyGroup + "---\napiVersion: storage.azure.com/v1api20230101\nkind: StorageAccount\nmetadata:\n  name: azkpolicysa\nspec:\n  location: westeurope\n  owner: {name: policy-rg}\n  kind: StorageV2\n  sku: {name: Standard_LRS}\n" + account
}

// violating is a storage account without a cost-centre tag, open to the internet.
const violating = "  publicNetworkAccess: Enabled\n  tags: {team: data}\n"

// complying is the same account tagged and closed.
const complying = "  publicNetworkAccess: Disabled\n  tags: {team: data, cost-centre: cc-1234}\n"

// lineOf is the 1-based line of the first line of file holding text.
func lineOf(t *testing.T, file, text string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	t.Fatalf("%s holds no %q", file, text)
	return 0
}

// The acceptance of issue 41: a pull request adding a storage account
// without the cost-centre tag and open to the internet fails the plan with
// both findings at file:line in the comment, beside the resource in text,
// as policy entries in JSON; apply --policy writes nothing. The same with
// the rules satisfied passes, and applies.
func TestPolicyDeniesPullRequestPlan(t *testing.T) {
	policies := examplePolicies(t)
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, policyStack(""))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--policy", policies, "manifests")...); code != 0 {
		t.Fatalf("apply of the group, which complies: exit %d\n%s\n%s", code, out, errOut)
	}
	commit(policyStack(violating))
	source := "manifests/stack.yaml:" + strconv.Itoa(lineOf(t, filepath.Join(repo, "manifests", "stack.yaml"), "kind: StorageAccount")-1)
	address := "storage.azure.com/StorageAccount/default/azkpolicysa"

	md, errOut, code := azk(t, "", with("plan", "--base", "HEAD~1", "--policy", policies, "-o", "markdown", "--detailed-exitcode", "manifests")...)
	if code != 1 {
		t.Fatalf("plan of the violating change: exit %d, want 1\n%s\n%s", code, md, errOut)
	}
	mustContain(t, "stderr", errOut, "Error: the policy denies the plan, 2 findings (see above): azk apply --policy refuses to start")
	mustContain(t, "markdown", md,
		"azk apply --policy refuses this plan: the policy denies it (2 findings, below).",
		"#### Policy",
		"| **deny** | <code>"+address+"</code> | <code>"+source+"</code> | <code>main.deny_missing_tag</code> | "+address+" has no \"cost-centre\" tag |",
		"| **deny** | <code>"+address+"</code> | <code>"+source+"</code> | <code>main.deny_public_network_access</code> | "+address+" allows public network access: set properties.publicNetworkAccess to \"Disabled\" |",
		"_Policy: 2 denials, 0 warnings from 4 files.")
	if strings.Index(md, "#### Policy") > strings.Index(md, "| decision | resources |") {
		t.Errorf("the policy section is not at the top of the comment:\n%s", md)
	}

	text, _, code := azk(t, "", with("plan", "--base", "HEAD~1", "--policy", policies, "manifests")...)
	if code != 1 {
		t.Fatalf("text plan: exit %d, want 1\n%s", code, text)
	}
	beside := text[strings.Index(text, "StorageAccount default/azkpolicysa"):]
	mustContain(t, "text, beside the account", beside[:strings.Index(beside, "\n\n")],
		"policy deny: "+address+" has no \"cost-centre\" tag [main.deny_missing_tag]",
		"policy deny: "+address+" allows public network access")

	out, _, code := azk(t, "", with("plan", "--base", "HEAD~1", "--policy", policies, "-o", "json", "manifests")...)
	if code != 1 {
		t.Fatalf("json plan: exit %d, want 1", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	findings := testkit.At[[]any](t, doc, "policy", "findings")
	if len(findings) != 2 {
		t.Fatalf("policy findings %v, want 2", findings)
	}
	for i, rule := range []string{"main.deny_missing_tag", "main.deny_public_network_access"} {
		if got := testkit.At[string](t, findings[i], "rule"); got != rule {
			t.Errorf("finding %d: rule %q, want %q", i, got, rule)
		}
		if testkit.At[string](t, findings[i], "severity") != "error" || testkit.At[string](t, findings[i], "address") != address || testkit.At[string](t, findings[i], "source") != source {
			t.Errorf("finding %d: %v", i, findings[i])
		}
	}

	var writes atomic.Int64
	counted := countWrites(t, run, &writes)
	out, errOut, code = azk(t, "", append([]string{"apply", "--auto-approve", "--policy", policies, "manifests"}, counted...)...)
	if code != 1 || writes.Load() != 0 {
		t.Fatalf("apply --policy of the violating change: exit %d, %d writes; want 1 and none\n%s\n%s", code, writes.Load(), out, errOut)
	}
	mustContain(t, "apply's refusal", errOut, "the policy denies the plan, 2 findings (see above); nothing was applied")
	if _, _, code := azk(t, "", with("plan", "--policy", policies, "manifests", "-out", "plan.azk")...); code != 1 {
		t.Fatalf("saving the denied plan: exit %d, want 1", code)
	}
	_, errOut, code = azk(t, "", append([]string{"apply", "plan.azk"}, counted[:2]...)...)
	if code != 1 || writes.Load() != 0 {
		t.Fatalf("apply of the saved denied plan: exit %d, %d writes; want 1 and none\n%s", code, writes.Load(), errOut)
	}
	mustContain(t, "saved plan's refusal", errOut, "the saved plan was denied by the policy when it was made (2 findings); nothing was applied")

	commit(policyStack(complying))
	out, errOut, code = azk(t, "", with("plan", "--base", "HEAD~2", "--policy", policies, "-o", "markdown", "--detailed-exitcode", "manifests")...)
	if code != 2 {
		t.Fatalf("plan of the complying change: exit %d, want 2 (changes, nothing denied)\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "markdown", out, "#### Policy", "_Policy: 0 denials, 0 warnings from 4 files._")
	out, errOut, code = azk(t, "", append([]string{"apply", "--auto-approve", "--policy", policies, "manifests"}, counted...)...)
	if code != 0 || writes.Load() == 0 {
		t.Fatalf("apply --policy of the complying change: exit %d, %d writes\n%s\n%s", code, writes.Load(), out, errOut)
	}
}

// --require: a plan holding what it does not allow exits 3, with or without
// --detailed-exitcode, naming what breaks it; apply refuses with 3, writing
// nothing; a plan within it passes; no-drift needs the base.
func TestRequireAutoApproval(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	repo, commit := gitRepo(t, policyStack(complying))
	t.Chdir(repo)
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "manifests")...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := azk(t, "", with("plan", "--base", "HEAD", "--require", "no-delete,no-replace,no-drift", "--detailed-exitcode", "manifests")...)
	if code != 0 {
		t.Fatalf("a quiet plan under --require: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "text", out, "Policy: --require no-delete,no-replace,no-drift met.")

	commit(policyStack(""))
	address := "storage.azure.com/StorageAccount/default/azkpolicysa"
	for _, detailed := range []bool{false, true} {
		args := with("plan", "--base", "HEAD~1", "--require", "no-delete,no-drift", "manifests")
		if detailed {
			args = append(args, "--detailed-exitcode")
		}
		out, errOut, code = azk(t, "", args...)
		if code != exitRequirementsUnmet {
			t.Fatalf("a deletion under --require no-delete (detailed %v): exit %d, want %d\n%s\n%s", detailed, code, exitRequirementsUnmet, out, errOut)
		}
		mustContain(t, "stderr", errOut, "Not approved: the plan holds more than --require no-delete,no-drift allows (no-delete: "+address+"): exit 3")
		mustContain(t, "text", out, "not met: no-delete: "+address, "1 of 2 requirements (--require no-delete,no-drift) not met")
	}
	out, _, _ = azk(t, "", with("plan", "--base", "HEAD~1", "--require", "no-delete", "-o", "json", "manifests")...)
	p, _, _ := decodePlan(t, out)
	if p.Rules == nil || len(p.Rules.Requirements) != 1 || p.Rules.Requirements[0].Met || p.Rules.Requirements[0].Resources[0] != address {
		t.Errorf("JSON requirements: %+v", p.Rules)
	}
	if _, errOut, code = azk(t, "", with("plan", "--require", "no-drift", "manifests")...); code != 1 {
		t.Errorf("no-drift without --base: exit %d, want 1", code)
	}
	mustContain(t, "no-drift without --base", errOut, "--require no-drift needs --base")

	var writes atomic.Int64
	_, errOut, code = azk(t, "", append([]string{"apply", "--auto-approve", "--base", "HEAD~1", "--require", "no-delete", "manifests"}, countWrites(t, run, &writes)...)...)
	if code != exitRequirementsUnmet || writes.Load() != 0 {
		t.Fatalf("apply --require no-delete of a deletion: exit %d, %d writes; want 3 and none\n%s", code, writes.Load(), errOut)
	}
	mustContain(t, "apply's refusal", errOut, "the plan holds more than --require no-delete allows (no-delete: "+address+"); nothing was applied")
}

// A secret never reaches the policies: the canary, the value of a Secret a
// server's password reads and also a tag Azure holds (set behind azk's back),
// is in no part of the input document (--policy-input), of a finding that
// echoes the input, nor of any output.
func TestCanarySecretNeverReachesThePolicyInput(t *testing.T) {
	const canary = "Canary-Policy-Secret-7Hq2"
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := t.TempDir()
	stack := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: " + canary + "\n---\n" +
		policyGroup + "---\n" +
		"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: azkpolicydb\nspec:\n  location: westeurope\n  owner: {name: policy-rg}\n  administratorLogin: admin\n  administratorLoginPassword: {name: db, key: password}\n"
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(stack), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	group := "/subscriptions/" + emulatorSubscription + "/resourceGroups/policy-rg"
	client := clientFor(t, run, emulatorSubscription)
	op, err := client.Put(testkit.Context(t), group, "2020-06-01", map[string]any{"location": "westeurope", "tags": map[string]any{"cost-centre": "cc-1234", "note": canary}})
	if err == nil {
		_, err = op.Wait(testkit.Context(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	echo := filepath.Join(t.TempDir(), "echo.rego")
	if err := os.WriteFile(echo, []byte("package main\n\nwarn contains sprintf(\"saw %v\", [r]) if some r in input.resources\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(t.TempDir(), "input.json")
	out, errOut, code := azk(t, "", with("plan", "--send-secrets", "FlexibleServer/azkpolicydb", "--policy", echo, "--policy-input", input, dir)...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the input document": string(data), "stdout": out, "stderr": errOut} {
		if strings.Contains(text, canary) {
			t.Errorf("%s holds the secret:\n%s", what, text)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	byAddress := map[string]any{}
	for _, r := range testkit.At[[]any](t, doc, "resources") {
		byAddress[testkit.At[string](t, r, "address")] = r
	}
	server := byAddress["dbformysql.azure.com/FlexibleServer/default/azkpolicydb"]
	if got := testkit.At[string](t, server, "desired", "properties", "administratorLoginPassword"); got != "(sensitive)" {
		t.Errorf("the password in the input: %q, want (sensitive)", got)
	}
	if got := testkit.At[string](t, server, "manifest", "spec", "administratorLoginPassword", "name"); got != "db" {
		t.Errorf("the manifest's secret reference: %q", got)
	}
	rg := byAddress["resources.azure.com/ResourceGroup/default/policy-rg"]
	if got := testkit.At[string](t, rg, "current", "tags", "note"); got != "(redacted)" {
		t.Errorf("the tag Azure holds: %q, want (redacted)", got)
	}
	if got := testkit.At[string](t, rg, "action"); got != string(planner.ActionUpdate) {
		t.Errorf("the group's action %q: the tag is drift", got)
	}
	mustContain(t, "the echo", out, "policy warn: saw {")
}

// A policy written for Kubernetes objects runs unchanged over each
// resource's manifest (--policy-manifest-namespace), its findings beside
// the resource; the plan's default namespace is then not evaluated.
func TestManifestPoliciesRunUnchanged(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(policyStack(complying)), 0o644); err != nil {
		t.Fatal(err)
	}
	k8s := filepath.Join(t.TempDir(), "labels.rego")
	if err := os.WriteFile(k8s, []byte("package kubernetes\n\ndeny contains msg if {\n\tinput.kind == \"StorageAccount\"\n\tnot input.metadata.labels.team\n\tmsg := sprintf(\"%s %s must carry a team label\", [input.kind, input.metadata.name])\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, "", append([]string{"plan", "--policy", k8s, "--policy-manifest-namespace", "kubernetes", "-o", "json", dir}, flags...)...)
	if code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	p, _, _ := decodePlan(t, out)
	want := []planner.RuleFinding{{Rule: "kubernetes.deny", Severity: planner.SeverityError, Message: "StorageAccount azkpolicysa must carry a team label",
		Address: "storage.azure.com/StorageAccount/default/azkpolicysa", Source: filepath.Join(dir, "stack.yaml") + ":9",
		ARMID: "/subscriptions/" + emulatorSubscription + "/resourceGroups/policy-rg/providers/Microsoft.Storage/storageAccounts/azkpolicysa"}}
	if p.Rules == nil || len(p.Rules.Namespaces) != 0 || !reflect.DeepEqual(p.Rules.Findings, want) {
		t.Errorf("policy %+v, want the manifest finding alone", p.Rules)
	}
}
