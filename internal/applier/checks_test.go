package applier_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

const postgresServer = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: pg
spec:
  location: westus2
---
apiVersion: dbforpostgresql.azure.com/v1api20221201
kind: FlexibleServer
metadata:
  name: pgserver1
spec:
  location: westus2
  owner:
    name: pg
  version: "14"
  sku:
    name: Standard_B1ms
    tier: Burstable
`

const postgresDatabase = `---
apiVersion: dbforpostgresql.azure.com/v1api20221201
kind: FlexibleServersDatabase
metadata:
  name: appdb
spec:
  owner:
    name: pgserver1
  charset: UTF8
`

const aksCluster = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: aks
spec:
  location: westus2
---
apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedCluster
metadata:
  name: cluster1
spec:
  location: westus2
  owner:
    name: aks
  dnsPrefix: cluster1
  identity:
    type: SystemAssigned
  agentPoolProfiles:
    - name: system
      mode: System
      count: 1
      vmSize: Standard_D2s_v5
`

// TestApplyWaitsWhileAzureBlocksWrites: as the operator does, apply does
// not write a PostgreSQL database while its server is updating, nor an AKS
// cluster while it is upgrading; the plan says so, apply waits (wait
// events), reads again and writes once Azure reports a settled state.
func TestApplyWaitsWhileAzureBlocksWrites(t *testing.T) {
	for _, tc := range []struct {
		name, first, second string
		// blocked is the resource whose state blocks the write, the patch
		// that blocks it and the one that settles it.
		blocked         string
		block, settle   any
		written, reason string
	}{
		{"owner", postgresServer, postgresServer + postgresDatabase,
			"/subscriptions/" + subscription + "/resourceGroups/pg/providers/Microsoft.DBforPostgreSQL/flexibleServers/pgserver1",
			map[string]any{"properties": map[string]any{"state": "Updating"}}, map[string]any{"properties": map[string]any{"state": "Ready"}},
			"dbforpostgresql.azure.com/FlexibleServersDatabase/default/appdb", "its owner: the PostgreSQL server is in state Updating"},
		{"self", aksCluster, strings.Replace(aksCluster, "  dnsPrefix: cluster1\n", "  dnsPrefix: cluster1\n  tags:\n    team: web\n", 1),
			"/subscriptions/" + subscription + "/resourceGroups/aks/providers/Microsoft.ContainerService/managedClusters/cluster1",
			map[string]any{"properties": map[string]any{"provisioningState": "Upgrading"}}, map[string]any{"properties": map[string]any{"provisioningState": "Succeeded"}},
			"containerservice.azure.com/ManagedCluster/default/cluster1", "the managed cluster is in provisioningState Upgrading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, emulator.Options{}, 10)
			e.applied(t, load(t, writeManifests(t, tc.first)))
			admin := e.run.AdminClient()
			if err := admin.Drift(testkit.Context(t), tc.blocked, tc.block); err != nil {
				t.Fatal(err)
			}
			g := load(t, writeManifests(t, tc.second))
			resources := e.decide(t, g)
			var written *planner.Resource
			for _, r := range resources {
				if r.Address == tc.written {
					written = r
				}
			}
			if written == nil || !written.Writes() || !strings.Contains(strings.Join(written.Notes, "\n"), tc.reason+": apply waits") {
				t.Fatalf("the plan of %s: %+v", tc.written, written)
			}
			rec := &recorder{}
			opts := e.options(g, rec)
			// Only the write of tc.written is blocked, and only until it
			// waits: a wait for anything else would never end, so it
			// stops the apply and fails the test.
			ctx, stop := context.WithCancel(testkit.Context(t))
			defer stop()
			var once sync.Once
			opts.Events = func(ev applier.Event) {
				rec.record(ev)
				switch {
				case ev.Type != applier.EventWait:
				case ev.Address == tc.written:
					once.Do(func() {
						if err := admin.Drift(ctx, tc.blocked, tc.settle); err != nil {
							t.Error(err)
						}
					})
				default:
					t.Errorf("apply waits for %s (%s), which the plan does not write", ev.Address, ev.Message)
					stop()
				}
			}
			rep := e.apply(t, ctx, resources, opts)
			if rep.Failed() {
				var b bytes.Buffer
				rep.WriteText(&b)
				t.Fatalf("apply failed:\n%s", b.String())
			}
			waited := rec.index(applier.EventWait, tc.written)
			if waited < 0 || rec.all()[waited].Message != tc.reason || waited > rec.index(applier.EventEnd, tc.written) {
				t.Errorf("no wait for %q before the write: %+v", tc.reason, rec.all())
			}
		})
	}
}

// failing answers the first n PUTs to path with an ARM error, as a provider
// does while something the resource needs is still being provisioned.
type failing struct {
	next       policy.Transporter
	path, code string
	mu         sync.Mutex
	n          int
}

func (f *failing) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := req.Method == http.MethodPut && strings.EqualFold(req.URL.Path, f.path) && f.n > 0
	if fail {
		f.n--
	}
	f.mu.Unlock()
	if !fail {
		return f.next.Do(req)
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": f.code, "message": "the address space is being extended"}})
	return &http.Response{StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Request: req,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body))}, nil
}

// TestApplyRetriesWhatTheOperatorRetries: a subnet's
// NetcfgSubnetRangeOutsideVnet, which the operator classifies as retryable,
// is tried again within the client's retry bounds; the same error on a
// kind whose classifier does not retry it fails at once, and one that
// persists past the bounds fails.
func TestApplyRetriesWhatTheOperatorRetries(t *testing.T) {
	subnet := "/subscriptions/" + subscription + "/resourcegroups/azk-quickstart/providers/microsoft.network/virtualnetworks/quickstart-vnet/subnets/web"
	vnet := "/subscriptions/" + subscription + "/resourcegroups/azk-quickstart/providers/microsoft.network/virtualnetworks/quickstart-vnet"
	for _, tc := range []struct {
		name, path string
		failures   int
		ok         bool
	}{
		{"retried", subnet, 2, true},
		{"past the bounds", subnet, 3, false},
		{"not retryable for the kind", vnet, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, emulator.Options{}, 10)
			f := &failing{next: e.writes.next, path: tc.path, code: "NetcfgSubnetRangeOutsideVnet", n: tc.failures}
			e.writes.next = f
			g := load(t, quickstart)
			rec := &recorder{}
			rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, rec))
			if rep.Failed() == tc.ok {
				var b bytes.Buffer
				rep.WriteText(&b)
				t.Fatalf("failed %v, want %v:\n%s", rep.Failed(), !tc.ok, b.String())
			}
			waits := 0
			for _, ev := range rec.all() {
				if ev.Type == applier.EventWait && strings.Contains(ev.Message, "NetcfgSubnetRangeOutsideVnet, which the operator retries for VirtualNetworksSubnet") {
					waits++
				}
			}
			want := map[string]int{"retried": 2, "past the bounds": 2, "not retryable for the kind": 0}[tc.name]
			if waits != want {
				t.Errorf("%d retries, want %d", waits, want)
			}
		})
	}
}

// protection rewrites the backup instance's protection status in every
// answer that carries the instance (its PUT's and its GETs'), one status per
// answer, the last one repeated: apply judges the write's own final answer
// without reading the resource again.
type protection struct {
	next     policy.Transporter
	path     string
	mu       sync.Mutex
	statuses []string
}

func (p *protection) Do(req *http.Request) (*http.Response, error) {
	resp, err := p.next.Do(req)
	carries := req.Method == http.MethodGet || req.Method == http.MethodPut
	if err != nil || !carries || !strings.EqualFold(req.URL.Path, p.path) || (resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated) {
		return resp, err
	}
	p.mu.Lock()
	status := p.statuses[0]
	if len(p.statuses) > 1 {
		p.statuses = p.statuses[1:]
	}
	p.mu.Unlock()
	return editBody(resp, func(body map[string]any) {
		props, _ := body["properties"].(map[string]any)
		props["protectionStatus"] = map[string]any{"status": status, "errorDetails": map[string]any{"code": "UserErrorMissingPermissions", "message": "the vault cannot read the disk"}}
	}), nil
}

const backup = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: backup
spec:
  location: westus2
---
apiVersion: dataprotection.azure.com/v1api20231101
kind: BackupVault
metadata:
  name: vault1
spec:
  location: westus2
  owner:
    name: backup
  identity:
    type: SystemAssigned
  properties:
    storageSettings:
      - datastoreType: VaultStore
        type: LocallyRedundant
---
apiVersion: dataprotection.azure.com/v1api20231101
kind: BackupVaultsBackupInstance
metadata:
  name: instance1
spec:
  owner:
    name: vault1
  properties:
    objectType: BackupInstance
    dataSourceInfo:
      objectType: Datasource
      resourceReference:
        armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/existing/providers/Microsoft.Compute/disks/disk1
      resourceLocation: westus2
      datasourceType: Microsoft.Compute/disks
    policyInfo:
      policyReference:
        armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/existing/providers/Microsoft.DataProtection/backupVaults/shared/backupPolicies/daily
---
apiVersion: network.azure.com/v1api20220701
kind: PrivateEndpoint
metadata:
  name: endpoint1
spec:
  location: westus2
  owner:
    name: backup
  manualPrivateLinkServiceConnections:
    - name: to-partner
      privateLinkServiceReference:
        armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/existing/providers/Microsoft.Network/privateLinkServices/partner
      privateLinkServiceConnectionState:
        status: Pending
`

// TestApplyJudgesResourcesAfterTheWrite: a backup instance is done once its
// protection is configured (apply waits while Azure configures it) and
// fails on a protection error; a private endpoint whose manual connection
// awaits approval fails, naming it.
func TestApplyJudgesResourcesAfterTheWrite(t *testing.T) {
	instance := "/subscriptions/" + subscription + "/resourcegroups/backup/providers/microsoft.dataprotection/backupvaults/vault1/backupinstances/instance1"
	for _, tc := range []struct {
		statuses []string
		fails    string
	}{
		{[]string{"ConfiguringProtection", "ConfiguringProtection", "ProtectionConfigured"}, ""},
		{[]string{"ProtectionError"}, "protection error UserErrorMissingPermissions: the vault cannot read the disk"},
	} {
		e := start(t, emulator.Options{}, 10)
		existing := "/subscriptions/" + subscription + "/resourceGroups/existing"
		for _, put := range []struct{ id, apiVersion string }{
			{existing, "2021-04-01"},
			{existing + "/providers/Microsoft.Compute/disks/disk1", "2024-03-02"},
			{existing + "/providers/Microsoft.DataProtection/backupVaults/shared", "2023-11-01"},
			{existing + "/providers/Microsoft.DataProtection/backupVaults/shared/backupPolicies/daily", "2023-11-01"},
			{existing + "/providers/Microsoft.Network/privateLinkServices/partner", "2022-07-01"},
		} {
			op, err := e.client.Put(testkit.Context(t), put.id, put.apiVersion, map[string]any{"location": "westus2"})
			if err == nil {
				_, err = op.Wait(testkit.Context(t))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		e.writes.next = &protection{next: e.writes.next, path: instance, statuses: tc.statuses}
		g := load(t, writeManifests(t, backup))
		rec := &recorder{}
		rep := e.apply(t, testkit.Context(t), e.decide(t, g), e.options(g, rec))
		errs := map[string]string{}
		for _, r := range rep.Results {
			if r.Err != nil {
				errs[r.Address] = r.Err.Error()
			}
		}
		if got := errs["network.azure.com/PrivateEndpoint/default/endpoint1"]; !strings.Contains(got, "to-partner await approval") {
			t.Errorf("the private endpoint: %q", got)
		}
		got := errs["dataprotection.azure.com/BackupVaultsBackupInstance/default/instance1"]
		if got != tc.fails {
			t.Errorf("%v: the backup instance failed with %q, want %q", tc.statuses, got, tc.fails)
		}
		if waits := rec.index(applier.EventWait, "dataprotection.azure.com/BackupVaultsBackupInstance/default/instance1"); (tc.fails == "") != (waits >= 0) {
			t.Errorf("%v: waited %v", tc.statuses, waits >= 0)
		}
	}
}

// deletes records the query and If-Match of each DELETE.
type deletes struct {
	next policy.Transporter
	mu   sync.Mutex
	seen map[string]string
}

func (d *deletes) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodDelete {
		q := req.URL.Query()
		q.Del("api-version")
		d.mu.Lock()
		d.seen[strings.ToLower(req.URL.Path)] = q.Encode() + " If-Match:" + req.Header.Get("If-Match")
		d.mu.Unlock()
	}
	return d.next.Do(req)
}

// TestDestroyDeletesAProductWithItsSubscriptions: as the operator's deleter
// does, an API Management product is deleted with deleteSubscriptions=true
// and If-Match: *; other kinds with a plain DELETE.
func TestDestroyDeletesAProductWithItsSubscriptions(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	service := "/subscriptions/" + subscription + "/resourceGroups/apim/providers/Microsoft.ApiManagement/service/apim1"
	for _, put := range [][2]string{{"/subscriptions/" + subscription + "/resourceGroups/apim", "2021-04-01"}, {service, "2022-08-01"}} {
		op, err := e.client.Put(testkit.Context(t), put[0], put[1], map[string]any{"location": "westus2"})
		if err == nil {
			_, err = op.Wait(testkit.Context(t))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	g := load(t, writeManifests(t, `apiVersion: apimanagement.azure.com/v1api20220801
kind: Product
metadata:
  name: starter
spec:
  owner:
    armId: `+service+`
  displayName: Starter
  subscriptionRequired: true
  state: published
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id1
spec:
  location: westus2
  owner:
    armId: /subscriptions/`+subscription+`/resourceGroups/apim
`))
	e.applied(t, g)
	d := &deletes{next: e.writes.next, seen: map[string]string{}}
	e.writes.next = d
	p, err := applier.PlanDestroy(testkit.Context(t), g, e.client)
	if err != nil {
		t.Fatal(err)
	}
	if rep := applier.Destroy(testkit.Context(t), p, e.options(g, &recorder{})); rep.Failed() {
		t.Fatalf("destroy: %v", outcomes(rep))
	}
	identityETag := ""
	for _, del := range p.Deletions {
		if strings.HasSuffix(del.ARMID, "/id1") {
			identityETag = del.ETag
		}
	}
	if identityETag == "" {
		t.Error("the identity's deletion carries no ETag: the plan read one")
	}
	want := map[string]string{
		// The operator's own If-Match: * stands; another DELETE carries the ETag the plan read.
		strings.ToLower(service + "/products/starter"): "deleteSubscriptions=true If-Match:*",
		"/subscriptions/" + subscription + "/resourcegroups/apim/providers/microsoft.managedidentity/userassignedidentities/id1": " If-Match:" + identityETag,
	}
	for path, w := range want {
		if d.seen[path] != w {
			t.Errorf("DELETE %s carried %q, want %q", path, d.seen[path], w)
		}
	}
}
