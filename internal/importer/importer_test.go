package importer

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armjson"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/testkit"
)

const (
	sub = "00000000-0000-0000-0000-000000000000"
	rg  = "/subscriptions/" + sub + "/resourceGroups/imp-rg"
)

// azure is an emulator over real HTTP, seeded with ARM bodies as Azure
// would hold them.
func azure(t *testing.T) *arm.Client {
	t.Helper()
	run, err := emulator.Start(t.Context(), emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Close() })
	client, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: sub, Endpoint: run.URL, AllowHTTP: true,
		Retry: arm.RetryOptions{MaxAttempts: 1}, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func put(t *testing.T, c *arm.Client, id, apiVersion string, body map[string]any) {
	t.Helper()
	ctx := testkit.Context(t)
	op, err := c.Put(ctx, id, apiVersion, body)
	if err == nil {
		_, err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("seeding %s: %v", id, err)
	}
}

// spec parses a manifest and returns its spec as decoded JSON.
func spec(t *testing.T, r *Resource) map[string]any {
	t.Helper()
	n, err := yaml.Parse(r.Manifest)
	if err != nil {
		t.Fatalf("%s: %v\n%s", r.ID, err, r.Manifest)
	}
	s, _ := armjson.FromYAML(n.Field("spec").Value.YNode()).(map[string]any)
	return s
}

func byName(t *testing.T, res *Result) map[string]*Resource {
	t.Helper()
	out := map[string]*Resource{}
	for _, r := range res.Resources {
		out[r.Kind.Kind+"/"+r.Name] = r
	}
	return out
}

// TestImportWritesWhatAPutCanWrite imports a resource group with what is
// below it: each resource at its kind's newest version, owners linked,
// references to what was imported with them by name (whatever the case of
// the ARM ID Azure holds), to the rest by ARM ID, enums in the CRD's
// spelling, read-only and empty values left out, secrets never copied.
func TestImportWritesWhatAPutCanWrite(t *testing.T) {
	c := azure(t)
	put(t, c, rg, "2021-04-01", map[string]any{"location": "westus2", "tags": map[string]any{"team": "data"}})
	identity := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/App_Id"
	put(t, c, identity, "2023-01-31", map[string]any{"location": "westus2"})
	otherRG := "/subscriptions/" + sub + "/resourceGroups/other-rg"
	put(t, c, otherRG, "2021-04-01", map[string]any{"location": "westus2"})
	outside := otherRG + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/shared-id"
	put(t, c, outside, "2023-01-31", map[string]any{"location": "westus2"})
	account := rg + "/providers/Microsoft.Storage/storageAccounts/impsa"
	put(t, c, account, "2023-01-01", map[string]any{
		"location": "westus2", "kind": "storagev2", "sku": map[string]any{"name": "Standard_LRS"},
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": map[string]any{strings.ToUpper(identity): map[string]any{}, outside: map[string]any{}}},
		"properties": map[string]any{
			"accessTier": "hot", "minimumTlsVersion": "TLS1_2", "isHnsEnabled": false, "customDomain": map[string]any{},
			"primaryEndpoints": map[string]any{"blob": "https://impsa.blob.core.windows.net/"}, // read-only
		},
	})
	server := rg + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/imp-pg"
	put(t, c, server, "2024-08-01", map[string]any{"location": "westus2", "properties": map[string]any{
		"administratorLogin": "pgadmin", "administratorLoginPassword": "echoed-by-the-emulator", "version": "16",
		"storage": map[string]any{"storageSizeGB": 32},
	}})
	put(t, c, rg+"/providers/Microsoft.Fabrikam/widgets/w1", "2024-01-01", map[string]any{"location": "westus2"})

	res, err := Import(context.Background(), []string{rg}, Options{Reader: c, Recursive: true, Policy: "detach-on-delete"})
	if err != nil {
		t.Fatal(err)
	}
	got := byName(t, res)
	for _, r := range res.Resources {
		if strings.Contains(r.Manifest, "echoed-by-the-emulator") {
			t.Errorf("%s: the manifest holds a secret value:\n%s", r.ID, r.Manifest)
		}
		newest := registry.Newest(registry.Default().Versions(r.Kind.Group, r.Kind.Kind))
		if r.Kind.Version != newest {
			t.Errorf("%s imported at %s, want the newest %s", r.ID, r.Kind.Version, newest)
		}
		if !strings.Contains(r.Manifest, "    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n") || !strings.HasPrefix(r.Manifest, "# Imported by azk from "+r.ID+"\n") {
			t.Errorf("%s: no policy annotation or origin comment:\n%s", r.ID, r.Manifest)
		}
	}
	want := map[string]map[string]any{
		"ResourceGroup/imp-rg": {"location": "westus2", "tags": map[string]any{"team": "data"}},
		// The Azure name is no valid metadata.name: it stays in azureName.
		"UserAssignedIdentity/app-id": {"owner": map[string]any{"name": "imp-rg"}, "azureName": "App_Id", "location": "westus2"},
		"StorageAccount/impsa": {
			"owner": map[string]any{"name": "imp-rg"}, "location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"},
			"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": []any{
				map[string]any{"reference": map[string]any{"group": "managedidentity.azure.com", "kind": "UserAssignedIdentity", "name": "app-id"}},
				map[string]any{"reference": map[string]any{"armId": outside}},
			}},
			"accessTier": "Hot", "minimumTlsVersion": "TLS1_2", "isHnsEnabled": false,
		},
		// The services ARM creates with a storage account are resources of their own.
		"StorageAccountsBlobService/impsa-default":  {"owner": map[string]any{"name": "impsa"}},
		"StorageAccountsFileService/impsa-default":  {"owner": map[string]any{"name": "impsa"}},
		"StorageAccountsQueueService/impsa-default": {"owner": map[string]any{"name": "impsa"}},
		"StorageAccountsTableService/impsa-default": {"owner": map[string]any{"name": "impsa"}},
		"FlexibleServer/imp-pg": {"owner": map[string]any{"name": "imp-rg"}, "location": "westus2",
			"administratorLogin": "pgadmin", "version": "16", "storage": map[string]any{"storageSizeGB": int64(32)}},
	}
	for name, w := range want {
		r := got[name]
		if r == nil {
			t.Errorf("%s not imported; got %v", name, keys(got))
			continue
		}
		if s := spec(t, r); !reflect.DeepEqual(s, w) {
			t.Errorf("%s: spec\n%#v\nwant\n%#v\n%s", name, s, w, r.Manifest)
		}
	}
	if len(got) != len(want) {
		t.Errorf("imported %v, want %d resources", keys(got), len(want))
	}
	if n := strings.Join(got["FlexibleServer/imp-pg"].Notes, "\n"); !strings.Contains(n, "administratorLoginPassword left out") {
		t.Errorf("no note on the server's optional secret: %q", n)
	}
	if len(res.LeftOut) != 1 || !strings.HasSuffix(res.LeftOut[0].ID, "/providers/Microsoft.Fabrikam/widgets/w1") ||
		res.LeftOut[0].Reason != "no ASO kind manages Microsoft.Fabrikam/widgets resources" || !res.LeftOut[0].Unsupported {
		t.Errorf("the widget was not reported as left out: %+v", res.LeftOut)
	}
}

func keys(m map[string]*Resource) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func omittedFor(res *Result, idSuffix, reason string) bool {
	for _, o := range res.Omitted {
		if strings.HasSuffix(o.ID, idSuffix) && strings.HasPrefix(o.Reason.One, reason) {
			return true
		}
	}
	return false
}

// TestImportSkipsWhatAzureMakes: the operator's import hooks leave out
// built-in role definitions, the built-in databases of a PostgreSQL server
// and its configurations at their defaults; what someone set is imported.
// These are left out by design (Omitted, counted by reason), not LeftOut
// (what needs the user's attention).
func TestImportSkipsWhatAzureMakes(t *testing.T) {
	c := azure(t)
	put(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	server := rg + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/pg-1"
	put(t, c, server, "2024-08-01", map[string]any{"location": "westus2", "properties": map[string]any{"version": "16"}})
	for _, db := range []string{"postgres", "azure_sys", "azure_maintenance", "appdb"} {
		put(t, c, server+"/databases/"+db, "2024-08-01", map[string]any{"properties": map[string]any{"charset": "UTF8"}})
	}
	for name, props := range map[string]map[string]any{
		"max_connections":            {"value": "100", "source": "system-default"},
		"shared_buffers":             {"value": "16384", "isReadOnly": true, "source": "user-override"},
		"log_min_duration_statement": {"value": "-1", "defaultValue": "-1", "source": "user-override"},
		"work_mem":                   {"value": "8192", "defaultValue": "4096", "source": "user-override"},
	} {
		put(t, c, server+"/configurations/"+name, "2024-08-01", map[string]any{"properties": props})
	}
	res, err := Import(context.Background(), []string{server}, Options{Reader: c, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Resources {
		names = append(names, r.Kind.Kind+"/"+r.Name)
	}
	want := []string{"FlexibleServer/pg-1", "FlexibleServersConfiguration/work-mem", "FlexibleServersDatabase/appdb"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("imported %v, want %v", names, want)
	}
	for suffix, reason := range map[string]string{
		"/databases/postgres":                        "built-in PostgreSQL database",
		"/databases/azure_sys":                       "built-in PostgreSQL database",
		"/configurations/max_connections":            "server parameter at its system default",
		"/configurations/shared_buffers":             "read-only server parameter",
		"/configurations/log_min_duration_statement": "server parameter holding its default value",
		// The emulator serves the built-in role definitions at every scope.
		"/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7": "built-in role definition",
	} {
		if !omittedFor(res, suffix, reason) {
			t.Errorf("%s not left out as %q: %+v", suffix, reason, res.Omitted)
		}
	}
	if len(res.LeftOut) != 0 {
		t.Errorf("left out as needing attention: %+v", res.LeftOut)
	}
	groups := OmittedByReason(res.Omitted)
	var lines []string
	total := 0
	for _, g := range groups {
		lines = append(lines, g.String())
		total += len(g.Resources)
	}
	roles := len(groups[0].Resources)
	wantLines := []string{
		fmt.Sprintf("%d built-in role definitions", roles),
		"3 built-in PostgreSQL databases, which ARM does not manage",
		"1 read-only server parameter, which cannot be set",
		"1 server parameter at its system default",
		"1 server parameter holding its default value",
	}
	if roles < 10 || !reflect.DeepEqual(lines, wantLines) || total != len(res.Omitted) {
		t.Errorf("left out by design:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
	for _, r := range res.Resources {
		if r.Kind.Kind == "FlexibleServer" && !strings.Contains(r.Manifest, "    armId: "+rg+"\n") {
			t.Errorf("the server's owner, not imported, is not given by ARM ID:\n%s", r.Manifest)
		}
	}
}

// TestSpecOneOfAlternatives: a one-of stands inline in ARM; import picks
// the alternative whose discriminator Azure's value carries, at every depth.
func TestSpecOneOfAlternatives(t *testing.T) {
	reg := registry.Default()
	k, ok := reg.Lookup("network.azure.com", "v20250301", "FirewallPoliciesRuleCollectionGroup")
	if !ok {
		t.Skip("no FirewallPoliciesRuleCollectionGroup v20250301 in the registry")
	}
	body := map[string]any{"properties": map[string]any{
		"priority": 200.0,
		"ruleCollections": []any{map[string]any{
			"ruleCollectionType": "FirewallPolicyFilterRuleCollection", "name": "allow-web", "priority": 100.0,
			"action": map[string]any{"type": "Allow"},
			"rules": []any{map[string]any{"ruleType": "NetworkRule", "name": "https", "ipProtocols": []any{"TCP"},
				"destinationPorts": []any{"443"}, "sourceAddresses": []any{"*"}, "destinationAddresses": []any{"*"}}},
		}},
	}}
	got := newSpecWriter(k, "x").spec(body)
	want := map[string]any{"priority": int64(200), "ruleCollections": []any{map[string]any{"firewallPolicyFilterRuleCollection": map[string]any{
		"ruleCollectionType": "FirewallPolicyFilterRuleCollection", "name": "allow-web", "priority": int64(100),
		"action": map[string]any{"type": "Allow"},
		"rules": []any{map[string]any{"networkRule": map[string]any{"ruleType": "NetworkRule", "name": "https", "ipProtocols": []any{"TCP"},
			"destinationPorts": []any{"443"}, "sourceAddresses": []any{"*"}, "destinationAddresses": []any{"*"}}}},
	}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spec\n%#v\nwant\n%#v", got, want)
	}
}
