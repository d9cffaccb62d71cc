package views

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planfile"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fingerprints and salts differ from run to run; the golden files show where they are.
var volatile = regexp.MustCompile(`"(fingerprint|inputsDigest)": "(?:[^"\\]|\\.)*"`)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = volatile.ReplaceAll(got, []byte(`"$1": "(varies)"`))
	if bytes.Contains(got, []byte(mysqlPassword)) {
		t.Errorf("%s shows the secret value", name)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", name, got)
	}
}

func renderAll(t *testing.T, prefix string, p *planner.Plan) {
	t.Helper()
	var text, color, js, md bytes.Buffer
	if err := Text(&text, p, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&color, p, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, p); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, p, Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, prefix+".txt.golden", text.Bytes())
	golden(t, prefix+".color.golden", color.Bytes())
	golden(t, prefix+".json.golden", js.Bytes())
	golden(t, prefix+".md.golden", md.Bytes())
}

func TestPlanEveryDecision(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	g := loadScenario(t, "testdata/scenario.yaml")
	p := makePlan(t, az, g, false)
	renderAll(t, "plan", p)

	want := map[string]planner.Action{
		"rg-adopt": planner.ActionUpdate, "vnet-detach": planner.ActionNoChange, "nsg-readonly": planner.ActionSkip, "id-nochange": planner.ActionNoChange,
		"vnet-update": planner.ActionUpdate, "id-moved": planner.ActionReplace, "id-new": planner.ActionCreate, "ra-new": planner.ActionCreate,
		"ra-badrole": planner.ActionBlocked, "rg-skipped": planner.ActionSkip, "id-under-skipped": planner.ActionBlocked,
		"id-armid-owner": planner.ActionBlocked, "rg-new": planner.ActionCreate, "vnet-new": planner.ActionCreate,
		"mysql-env-secret": planner.ActionCreate, "mysql-no-secret": planner.ActionBlocked,
	}
	for _, r := range p.Resources {
		if r.Action != want[r.Name] {
			t.Errorf("%s: %s, want %s (reasons %v)", r.Name, r.Action, want[r.Name], r.Reasons)
		}
	}
	if got := SummaryLine(p); got != "Plan: 5 to create, 2 to update, 2 unchanged, 2 skipped, 4 blocked, 1 need replacing (error)." {
		t.Errorf("summary: %s", got)
	}
	if len(p.Unmanaged) != 1 || !strings.HasSuffix(p.Unmanaged[0], "/strayaccount") {
		t.Errorf("unmanaged: %v", p.Unmanaged)
	}
	if !p.HasChanges() || !p.HasErrors() {
		t.Errorf("HasChanges %v, HasErrors %v: want both", p.HasChanges(), p.HasErrors())
	}
}

func TestSavedPlanShowsTheSameAndDetectsStaleness(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	g := loadScenario(t, "testdata/scenario.yaml")
	p := makePlan(t, az, g, false)
	file := filepath.Join(t.TempDir(), "plan.azk")
	if err := planfile.Save(file, p); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(mysqlPassword)) {
		t.Fatal("the saved plan holds the secret value")
	}
	if !bytes.Contains(raw, []byte(`"$sensitive": "argon2id:`)) {
		t.Error("the saved plan holds no digest for the secret")
	}
	loaded, err := planfile.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var direct, shown bytes.Buffer
	_ = Text(&direct, p, Options{})
	_ = Text(&shown, loaded, Options{})
	if direct.String() != shown.String() {
		t.Errorf("show of the saved plan differs from the plan:\n%s", shown.String())
	}

	fresh := makePlan(t, az, g, false)
	if moved := planfile.Stale(context.Background(), loaded, fresh); len(moved) != 0 {
		t.Errorf("nothing changed, yet stale: %v", moved)
	}
	admin := az.Run.AdminClient()
	if err := admin.Drift(context.Background(), rgAdopt+"/providers/Microsoft.Network/virtualNetworks/vnet-update", map[string]any{"tags": map[string]any{"owner": "portal"}}); err != nil {
		t.Fatal(err)
	}
	changedSecret := p
	changedSecret, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, LookupEnv: envWith(map[string]string{"AZK_SECRET_MYSQL_PW_PASSWORD": "another"})})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	moved := strings.Join(planfile.Stale(context.Background(), loaded, changedSecret), "\n")
	for _, want := range []string{
		"network.azure.com/VirtualNetwork/default/vnet-update: changed in Azure since the plan was made",
		"dbformysql.azure.com/FlexibleServer/default/mysql-env-secret: the body to send changed",
	} {
		if !strings.Contains(moved, want) {
			t.Errorf("stale report lacks %q:\n%s", want, moved)
		}
	}
}

func TestDriftReport(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Seed(t)
	admin := az.Run.AdminClient()
	if err := admin.Drift(context.Background(), rgAdopt+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-nochange",
		map[string]any{"tags": map[string]any{"team": "someone-else"}}); err != nil {
		t.Fatal(err)
	}
	p := makePlan(t, az, loadScenario(t, "testdata/scenario.yaml"), true)
	renderAll(t, "drift", p)
	if err := planfile.Save(filepath.Join(t.TempDir(), "x"), p); err == nil {
		t.Error("a drift report was saved as a plan")
	}
}

const rgKV = "/subscriptions/" + testSub + "/resourceGroups/rg-kv"

// TestPlanReadsWhatTheOperatorReads: the bodies the operator would send
// depend on Azure state beyond the resource (soft-deleted vaults, children
// managed as their own resources); the plan reads it and says what follows.
func TestPlanReadsWhatTheOperatorReads(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	az.Put(t, rgKV, "2020-06-01", map[string]any{"location": "westus2"})
	vault := map[string]any{"location": "westus2", "properties": map[string]any{
		"tenantId": testSub, "sku": map[string]any{"family": "A", "name": "standard"}}}
	for _, name := range []string{"kv-recover", "kv-purge"} {
		id := rgKV + "/providers/Microsoft.KeyVault/vaults/" + name
		az.Put(t, id, "2023-07-01", vault)
		op, err := az.Client.Delete(testkit.Context(t), id, "2023-07-01")
		if err == nil {
			_, err = op.Wait(testkit.Context(t))
		}
		if err != nil {
			t.Fatalf("soft-deleting %s: %v", name, err)
		}
	}
	vnet := rgKV + "/providers/Microsoft.Network/virtualNetworks/vnet-kept"
	// The subnet exists as its own resource; ARM (and the emulator) list it in
	// the network's GET, and the network's PUT must carry it to keep it.
	az.Put(t, vnet, "2020-11-01", map[string]any{"location": "westus2", "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	az.Put(t, vnet+"/subnets/web", "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	az.Put(t, rgKV+"/providers/Microsoft.Storage/storageAccounts/oldaccount", "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2"})

	p := makePlan(t, az, loadScenario(t, "testdata/children.yaml"), false)
	renderAll(t, "children", p)

	byName := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		byName[r.Name] = r
	}
	for name, want := range map[string]string{
		"kv-recover": "will recover a soft-deleted vault", "kv-purge": "will purge the soft-deleted vault first",
		"newaccount": "oldaccount; if this renames or moves one of them",
	} {
		if r := byName[name]; r == nil || !strings.Contains(strings.Join(r.Notes, "\n"), want) {
			t.Errorf("%s: notes lack %q", name, want)
		}
	}
	if notes := byName["kv-fresh"].Notes; len(notes) != 0 {
		t.Errorf("kv-fresh has no soft-deleted vault, yet: %v", notes)
	}
	kept := byName["vnet-kept"]
	if kept.Action != planner.ActionUpdate {
		t.Fatalf("vnet-kept: %s %v", kept.Action, kept.Changes)
	}
	for _, c := range kept.Changes {
		if strings.Contains(c.Path, "subnets") {
			t.Errorf("the subnet managed on its own would change: %+v", c)
		}
	}
	subnets := testkit.At[[]any](t, kept.Desired, "properties", "subnets")
	if len(subnets) != 1 || testkit.At[string](t, subnets, 0, "name") != "web" {
		t.Errorf("the PUT does not carry the existing subnet: %v", subnets)
	}
}

// TestNameFromAnExistingExporter: a resource named by another resource's
// status (azureNameFromConfig) is blocked until that resource exists, then
// planned under the name its status holds.
func TestNameFromAnExistingExporter(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	file := filepath.Join(t.TempDir(), "pg.yaml")
	manifests := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: pg-rg
spec:
  location: westus2
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: admin-identity
spec:
  location: westus2
  owner:
    name: pg-rg
  operatorSpec:
    configMapExpressions:
      - name: admin-settings
        key: principalId
        value: self.status.principalId
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServer
metadata:
  name: pg1
spec:
  location: westus2
  owner:
    name: pg-rg
  version: "16"
---
apiVersion: dbforpostgresql.azure.com/v20250801
kind: FlexibleServersAdministrator
metadata:
  name: admin1
spec:
  owner:
    name: pg1
  azureNameFromConfig:
    name: admin-settings
    key: principalId
  principalType: ServicePrincipal
  principalName: admin-identity
  tenantId: 72f988bf-0000-4000-8000-000000000000
`
	if err := os.WriteFile(file, []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	admin := func(p *planner.Plan) *planner.Resource {
		for _, r := range p.Resources {
			if r.Kind == "FlexibleServersAdministrator" {
				return r
			}
		}
		t.Fatal("the administrator is not in the plan")
		return nil
	}
	before := admin(makePlan(t, az, loadScenario(t, file), false))
	if before.Action != planner.ActionCreate || before.Reason != planner.ReasonNameAfterApply || before.ARMID != "" || !strings.Contains(strings.Join(before.Notes, ";"), "known once") {
		t.Fatalf("before the identity exists: %s %s %q %v", before.Action, before.Reason, before.ARMID, before.Notes)
	}
	rgID := "/subscriptions/" + testSub + "/resourceGroups/pg-rg"
	az.Put(t, rgID, "2020-06-01", map[string]any{"location": "westus2"})
	identityID := rgID + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/admin-identity"
	az.Put(t, identityID, "2023-01-31", map[string]any{"location": "westus2"})
	resp, err := az.Client.Get(context.Background(), identityID, "2023-01-31")
	if err != nil {
		t.Fatal(err)
	}
	var identity struct {
		Properties struct{ PrincipalID string } `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &identity); err != nil || identity.Properties.PrincipalID == "" {
		t.Fatalf("identity principal: %v %s", err, resp.Body)
	}
	principal := identity.Properties.PrincipalID
	after := admin(makePlan(t, az, loadScenario(t, file), false))
	if after.Action != planner.ActionCreate || !strings.HasSuffix(after.ARMID, "/flexibleServers/pg1/administrators/"+principal) {
		t.Errorf("after the identity exists: %s %s, want a create named %s", after.Action, after.ARMID, principal)
	}
}
