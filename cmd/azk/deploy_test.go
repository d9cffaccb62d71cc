package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// deploymentOps lists every deployment operation the emulator ran at the
// subscription and in the given resource groups, nested deployments'
// included, as "deployment ID|operation ID" -> target resource ID.
func deploymentOps(t *testing.T, client *arm.Client, groups ...string) map[string]string {
	t.Helper()
	ctx := testkit.Context(t)
	out := map[string]string{}
	scopes := []string{"/subscriptions/" + emulatorSubscription}
	for _, g := range groups {
		scopes = append(scopes, "/subscriptions/"+emulatorSubscription+"/resourceGroups/"+g)
	}
	var walk func(id string)
	walk = func(id string) {
		ops, err := client.List(ctx, id+"/operations", deployment.APIVersion)
		if err != nil {
			t.Fatalf("operations of %s: %v", id, err)
		}
		for _, raw := range ops {
			var op struct {
				OperationID string `json:"operationId"`
				Properties  struct {
					TargetResource struct{ ID, ResourceType string } `json:"targetResource"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			target := op.Properties.TargetResource
			if strings.EqualFold(target.ResourceType, "Microsoft.Resources/deployments") {
				continue // listed with its scope
			}
			out[id+"|"+op.OperationID] = strings.ToLower(target.ID)
		}
	}
	for _, s := range scopes {
		list, err := client.List(ctx, s+"/providers/Microsoft.Resources/deployments", deployment.APIVersion)
		if err != nil {
			if arm.IsNotFound(err) {
				continue
			}
			t.Fatalf("deployments of %s: %v", s, err)
		}
		for _, raw := range list {
			var d struct{ ID string }
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			walk(d.ID)
		}
	}
	return out
}

// applyThroughDeployments applies dir with --engine deployment and checks
// the plan's contract: the deployments wrote exactly the plan's creates and
// updates, each once.
func applyThroughDeployments(t *testing.T, run *emulator.Running, flags []string, dir string, groups ...string) (string, *planner.Plan) {
	t.Helper()
	client := emulatorClient(t, run)
	before := deploymentOps(t, client, groups...)
	var applied *planner.Plan
	applying = func(p *planner.Plan) { applied = p }
	defer func() { applying = func(*planner.Plan) {} }()
	out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("apply --engine deployment: exit %d\n%s\n%s", code, out, errOut)
	}
	if applied == nil {
		t.Fatal("apply did not announce its plan")
	}
	want := map[string]int{}
	for _, r := range applied.Resources {
		if r.Writes() {
			want[strings.ToLower(r.ARMID)]++
		}
	}
	got := map[string]int{}
	for k, target := range deploymentOps(t, client, groups...) {
		if _, old := before[k]; !old {
			got[target]++
		}
	}
	for id, n := range got {
		if want[id] != n {
			t.Errorf("the deployments wrote %s %d times; the plan announced %d", id, n, want[id])
		}
	}
	for id := range want {
		if got[id] == 0 {
			t.Errorf("the plan announced a write of %s, which no deployment made", id)
		}
	}
	return out, applied
}

// TestDeploymentEngineAppliesExamples applies the examples (the quick start,
// the AKS example and the four real-world stacks) through ARM deployments; each then plans as no change. A changed
// tag is then one deployment operation, and the unchanged resources keep
// their ETags: the template leaves them out.
func TestDeploymentEngineAppliesExamples(t *testing.T) {
	for _, ex := range []struct{ name, group string }{
		{"quickstart", "azk-quickstart"}, {"aks-workload-identity", "azk-aks-wi"},
		{"postgres-app", "azk-postgres-app"}, {"redis-app", "azk-redis-app"},
		{"cosmos-workload-identity", "azk-cosmos-wi"}, {"storage-keyvault-webapp", "azk-webapp"},
	} {
		t.Run(ex.name, func(t *testing.T) {
			run, flags := emulatorAt(t)
			dir := copyExample(t, ex.name)
			out, p := applyThroughDeployments(t, run, flags, dir, ex.group)
			mustContain(t, "apply", out, "ARM's deployment engine will run 1 template:", "01-subscription.json at subscription "+emulatorSubscription,
				"Apply complete! Resources: "+strconv.Itoa(len(p.Resources))+" created, 0 updated, 0 failed.")
			if out, errOut, code := runAzk("", append([]string{"plan", "--detailed-exitcode", dir}, flags...)...); code != 0 {
				t.Fatalf("plan after apply: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
	t.Run("nothing to apply", func(t *testing.T) {
		run, flags := emulatorAt(t)
		dir := copyExample(t, "quickstart")
		applyThroughDeployments(t, run, flags, dir, "azk-quickstart")
		// Both engines end a run with no change the same way: -o yaml and
		// -o json still close with their summary event.
		for _, format := range []struct{ output, summary string }{{"yaml", "---\ntype: summary\n"}, {"json", `{"type":"summary"`}} {
			out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", "-o", format.output, dir}, flags...)...)
			if code != 0 || !strings.Contains(out, format.summary) {
				t.Errorf("apply --engine deployment -o %s with nothing to apply: exit %d\n%s%s", format.output, code, out, errOut)
			}
		}
	})
	t.Run("one change", func(t *testing.T) {
		run, flags := emulatorAt(t)
		dir := copyExample(t, "quickstart")
		applyThroughDeployments(t, run, flags, dir, "azk-quickstart")
		client := emulatorClient(t, run)
		etags := func() map[string]string {
			out := map[string]string{}
			_, p := planOf(t, flags, dir)
			for _, r := range p.Resources {
				resp, err := client.Get(context.Background(), r.ARMID, r.APIVersion)
				if err != nil {
					t.Fatal(err)
				}
				out[r.Address] = resp.ETag
			}
			return out
		}
		before := etags()
		network := filepath.Join(dir, "network.yaml")
		data, err := os.ReadFile(network)
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(data), "10.10.2.0/24", "10.10.3.0/24", 1)
		if changed == string(data) {
			t.Fatal("the quick start's data subnet prefix moved; update the test")
		}
		if err := os.WriteFile(network, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		out, p := applyThroughDeployments(t, run, flags, dir, "azk-quickstart")
		mustContain(t, "apply", out, "01-rg-azk-quickstart.json at resource group azk-quickstart: 1 resource", "0 created, 1 updated, 0 failed")
		after := etags()
		for _, r := range p.Resources {
			if r.Action == planner.ActionNoChange && before[r.Address] != after[r.Address] {
				t.Errorf("%s is unchanged in the plan, yet the deployment wrote it", r.Address)
			}
		}
	})
}

// planOf runs azk plan -o json and decodes it.
func planOf(t *testing.T, flags []string, dir string) (string, *planner.Plan) {
	t.Helper()
	out, errOut, code := runAzk("", append([]string{"plan", "-o", "json", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	var p planner.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return out, &p
}

// TestExportGolden pins the templates exported for the quick start and the
// AKS example against a fresh emulator: schema, content version, parameters,
// resources with their bodies and dependsOn, outputs, and the index.
func TestExportGolden(t *testing.T) {
	for _, ex := range []string{"quickstart", "aks-workload-identity"} {
		t.Run(ex, func(t *testing.T) {
			_, flags := emulatorAt(t)
			dir := t.TempDir()
			out, errOut, code := runAzk("", append([]string{"export", "--format", "arm-template", "--out-dir", dir, "../../examples/" + ex}, flags...)...)
			if code != 0 {
				t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
			}
			files, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files {
				names = append(names, f.Name())
				data, err := os.ReadFile(filepath.Join(dir, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("export", ex, f.Name()), string(data))
			}
			want, _ := filepath.Glob(filepath.Join("testdata", "export", ex, "*"))
			if len(want) != len(names) {
				t.Errorf("export wrote %v; the golden files are %v", names, want)
			}
		})
	}
}

// TestExportNeverWritesSecrets exports and applies a server whose password
// is a canary: the template asks for it as a secureString parameter, no
// exported file and no file of the emulator's state holds it, and the
// deployment engine still delivers it.
func TestExportNeverWritesSecrets(t *testing.T) {
	const canary = "canary-Pw-7f3e9a-never-on-disk"
	t.Setenv("AZK_SECRET_DB_PASSWORD", "")
	stack := writeStack(t, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: "+canary+"\n---\n"+
		"apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: sec\nspec:\n  location: westus2\n---\n"+
		"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: db1\nspec:\n  location: westus2\n  owner: {name: sec}\n  administratorLogin: admin\n  administratorLoginPassword: {name: db, key: password}\n")
	state := t.TempDir()
	run, flags := startEmulator(t, emulator.Options{StateDir: state})
	out := t.TempDir()
	if o, errOut, code := runAzk("", append([]string{"export", "--out-dir", out, stack}, flags...)...); code != 0 {
		t.Fatalf("export: exit %d\n%s\n%s", code, o, errOut)
	}
	data, err := os.ReadFile(filepath.Join(out, "01-subscription.json"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "template", string(data), `"type": "secureString"`, `"administratorLoginPassword": "[parameters('db1_properties_administratorLoginPassword')]"`)
	if o, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", stack}, flags...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, o, errOut)
	} else if strings.Contains(o+errOut, canary) {
		t.Error("apply printed the secret")
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{out, state} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), canary) {
				t.Errorf("%s holds the secret", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var deployments struct {
		Deployments []struct {
			State string `json:"state"`
			Ops   []struct {
				Target, State string
			} `json:"ops"`
		} `json:"deployments"`
	}
	data, err = os.ReadFile(filepath.Join(state, "deployments.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &deployments); err != nil {
		t.Fatal(err)
	}
	delivered := false
	for _, d := range deployments.Deployments {
		for _, op := range d.Ops {
			delivered = delivered || (strings.HasSuffix(op.Target, "/flexibleServers/db1") && op.State == "Succeeded")
		}
	}
	if !delivered {
		t.Errorf("no deployment created the server: %s", data)
	}
}

// TestWhatIfCrossCheck compares ARM's what-if with azk's plan: they agree
// on an applied quick start; a SKU name stored in another case is no change
// to azk (enum values compare in any case) and a Modify to what-if, which
// the cross-check shows without letting it decide.
func TestWhatIfCrossCheck(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", dir}, flags...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := runAzk("", append([]string{"plan", "--what-if", "--detailed-exitcode", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("plan --what-if: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan --what-if", out, "ARM what-if, for comparison", "ARM agrees with azk on 9 of 9 resources.")
	sa := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Storage/storageAccounts/azkquickstartsa"
	if err := run.Server.Drift(sa, json.RawMessage(`{"sku":{"name":"standard_lrs"}}`)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runAzk("", append([]string{"plan", "--what-if", "--detailed-exitcode", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("plan --what-if after a case-only drift: exit %d (azk's diff decides)\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan --what-if", out,
		"! storage.azure.com/StorageAccount/default/azkquickstartsa: azk plans no-change, ARM predicts Modify",
		"sku.name (Modify)", "ARM agrees with azk on 8 of 9 resources.")
}

// TestDeploymentInterruptLeavesItRunning stops following a deployment
// whose storage account takes seconds: azk exits at once, says how to follow
// the deployment, and the deployment finishes in the emulator without azk.
func TestDeploymentInterruptLeavesItRunning(t *testing.T) {
	run, flags := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.Storage/storageAccounts", Write: 3 * time.Second}}})
	dir := copyExample(t, "quickstart")
	var out, errOut lockedBuffer
	cmd := newRootCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(append([]string{"apply", "--auto-approve", "--engine", "deployment", dir}, flags...))
	interrupted, stop := interruptOn(&out, "storage.azure.com/StorageAccount/default/azkquickstartsa: Creating...")
	err := cmd.Execute()
	ended := time.Now()
	stop()
	if err == nil {
		t.Fatal("an interrupted apply exited 0")
	}
	select {
	case at := <-interrupted:
		if d := ended.Sub(at); d > 2*time.Second {
			t.Errorf("azk waited %s for the deployment after the interrupt", d)
		}
	default:
		t.Fatalf("apply ended without being interrupted: it never showed the storage account being created\n%s\n%s", out.String(), errOut.String())
	}
	mustContain(t, "stdout", out.String(), "Still running in Azure (the deployment goes on without azk):", "storage.azure.com/StorageAccount/default/azkquickstartsa",
		"Apply interrupted! Resources: ", "still running in Azure.")
	mustContain(t, "stderr", errOut.String(), "Interrupt: azk stops following; the deployments it submitted go on in Azure.",
		"goes on in Azure; follow it with:", "az deployment sub show --subscription "+emulatorSubscription+" --name azk-")
	client := emulatorClient(t, run)
	sa := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Storage/storageAccounts/azkquickstartsa/blobServices/default/containers/artifacts"
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := client.Get(context.Background(), sa, "2023-01-01"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the deployment did not finish without azk")
		}
	}
}

// TestDeploymentFailureReport fails storage accounts: the report names the
// failed resource with ARM's code and message and what waited for it as
// not attempted, and the rest applies.
func TestDeploymentFailureReport(t *testing.T) {
	_, flags := startEmulator(t, emulator.Options{Faults: emulator.Faults{Failures: []emulator.FailureRule{{
		Type: "Microsoft.Storage/storageAccounts", After: 10 * time.Millisecond, Code: "StorageAccountQuotaExceeded", Message: "too many accounts"}}}})
	dir := copyExample(t, "quickstart")
	out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", dir}, flags...)...)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "report", out,
		"storage.azure.com/StorageAccount/default/azkquickstartsa: StorageAccountQuotaExceeded: too many accounts",
		"storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob (waits for storage.azure.com/StorageAccount/default/azkquickstartsa)",
		"Apply failed! Resources: 6 created, 0 updated, 1 failed, 2 not attempted.")
}

// TestStackManagesWhatTheManifestsHold applies the quick start as a
// deployment stack, then without its blob container: the stack deletes it
// (every resource is under manage), announced before and reported after.
// Marked detach-on-delete, the storage account is detached instead.
func TestStackManagesWhatTheManifestsHold(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }
	if out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "qs", dir)...); code != 0 {
		t.Fatalf("apply --stack: exit %d\n%s\n%s", code, out, errOut)
	}
	storage := filepath.Join(dir, "storage.yaml")
	data, err := os.ReadFile(storage)
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(string(data), "---\napiVersion: storage.azure.com/v1api20230101\nkind: StorageAccountsBlobServicesContainer")
	if cut < 0 {
		t.Fatal("the quick start's container moved; update the test")
	}
	if err := os.WriteFile(storage, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	container := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Storage/storageAccounts/azkquickstartsa/blobServices/default/containers/artifacts"
	out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "qs", dir)...)
	if code != 0 {
		t.Fatalf("apply --stack without the container: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply", out, "actionOnUnmanage: resources delete", "the stack will delete "+container, "Deleted by stack qs (no longer in the manifests): "+container)
	if _, err := emulatorClient(t, run).Get(context.Background(), container, "2023-01-01"); !arm.IsNotFound(err) {
		t.Errorf("the container is still there: %v", err)
	}
	if out, errOut, code := runAzk("", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Fatalf("plan after the stack: exit %d\n%s\n%s", code, out, errOut)
	}
	// Detach-on-delete anywhere makes the stack detach.
	data, _ = os.ReadFile(storage)
	blob := strings.Index(string(data), "---\napiVersion: storage.azure.com/v1api20230101\nkind: StorageAccountsBlobService")
	marked := strings.Replace(string(data[:blob]), "metadata:\n  name: azkquickstartsa\n", "metadata:\n  name: azkquickstartsa\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n", 1)
	if err := os.WriteFile(storage, []byte(marked), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "qs", dir)...)
	if code != 0 {
		t.Fatalf("apply --stack with detach-on-delete: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply", out, "actionOnUnmanage: resources detach", "Detached by stack qs (no longer in the manifests, left in Azure): ")
	var detached []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Detached by stack qs") {
			detached = append(detached, line[strings.LastIndex(line, "/")+1:])
		}
	}
	sort.Strings(detached)
	if strings.Join(detached, ",") != "default" {
		t.Errorf("detached %v, want the blob service", detached)
	}
}

// TestDeploymentEngineRecordsTheDecidedPolicy: as with the direct engine, a
// resource the deployment creates under reconcile-policy-if-exists gets
// reconcile-policy manage in its manifest, and one found gets the if-exists
// policy, though only the created one is in the template.
func TestDeploymentEngineRecordsTheDecidedPolicy(t *testing.T) {
	run, flags := emulatorAt(t)
	putAndWait(t, emulatorClient(t, run), "/subscriptions/"+emulatorSubscription+"/resourceGroups/found", "2020-06-01", map[string]any{"location": "westus2"})
	manifest := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: found\n  annotations:\n    serviceoperator.azure.com/reconcile-policy-if-exists: detach-on-delete\nspec:\n  location: westus2\n" +
		"---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: created\n  annotations:\n    serviceoperator.azure.com/reconcile-policy-if-exists: skip\nspec:\n  location: westus2\n"
	path := filepath.Join(t.TempDir(), "rg.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out, p := applyThroughDeployments(t, run, flags, path, "found", "created")
	mustContain(t, "apply", out, "Apply complete! Resources: 1 created, 0 updated, 0 failed.",
		"recorded serviceoperator.azure.com/reconcile-policy: manage in "+path+":10",
		"recorded serviceoperator.azure.com/reconcile-policy: detach-on-delete in "+path+":1")
	if s := p.Summary(); s.Create != 1 || s.NoChange != 1 {
		t.Fatalf("plan %+v", s)
	}
	got, _ := os.ReadFile(path)
	mustContain(t, "manifest", string(got), "name: found\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n",
		"name: created\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: manage\n")
}

// TestDeploymentEngineNamesFromStatus applies a PostgreSQL administrator
// named after an identity's principal ID, exported by a CEL expression that
// reads the identity's status: its nested deployment takes the name as a
// parameter read with reference(), and one apply creates all four.
func TestDeploymentEngineNamesFromStatus(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := nameFromStatusStack
	out, _ := applyThroughDeployments(t, run, flags, dir, "pg-rg")
	mustContain(t, "apply", out, "dbforpostgresql.azure.com/FlexibleServersAdministrator/default/admin1: Creation complete", "Apply complete! Resources: 4 created")
	identity := getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/pg-rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/admin-identity", "2023-01-31")
	principal := testkit.At[string](t, identity, "properties", "principalId")
	if getBody(t, run, "/subscriptions/"+emulatorSubscription+"/resourceGroups/pg-rg/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg1/administrators/"+principal, "2025-08-01") == nil {
		t.Errorf("no administrator named %s", principal)
	}
	if out, errOut, code := runAzk("", append([]string{"plan", "--detailed-exitcode", dir}, flags...)...); code != 0 {
		t.Errorf("plan after apply: exit %d\n%s\n%s", code, out, errOut)
	}
}
