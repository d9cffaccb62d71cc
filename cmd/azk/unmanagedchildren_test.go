package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const (
	childrenStack = "testdata/unmanagedchildren/stack.yaml"
	childrenRG    = "/subscriptions/" + emulatorSubscription + "/resourceGroups/rg-children"
	childrenVNet  = childrenRG + "/providers/Microsoft.Network/virtualNetworks/vnet"
	childrenSA    = childrenRG + "/providers/Microsoft.Storage/storageAccounts/azkchildrensa"
	childrenDB    = childrenRG + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/azk-children-db"
)

// TestPlanListsUnmanagedChildren: children Azure holds under resources of
// the manifests that the manifests do not hold (added as the portal would,
// with a PUT of their own: a subnet, a blob container under the blob
// service, a firewall rule) are listed in every output as unmanaged, each
// with its parent; the plan is still no change (exit 0 with
// --detailed-exitcode) and sends no write. The children the manifests hold,
// and the databases Azure makes with a PostgreSQL server, are not listed.
func TestPlanListsUnmanagedChildren(t *testing.T) {
	run, applyFlags, portal := appliedChildrenStack(t)
	added := map[string]string{
		childrenVNet + "/subnets/portal-added":                           "network.azure.com/VirtualNetwork/default/vnet",
		childrenSA + "/blobServices/default/containers/portal-container": "storage.azure.com/StorageAccountsBlobService/default/azkchildrensa-blob",
		childrenDB + "/firewallRules/portal-rule":                        "dbforpostgresql.azure.com/FlexibleServer/default/azk-children-db",
	}
	putAndWait(t, portal, childrenVNet+"/subnets/portal-added", "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.2.0/24"}})
	putAndWait(t, portal, childrenSA+"/blobServices/default/containers/portal-container", "2023-01-01", map[string]any{"properties": map[string]any{}})
	putAndWait(t, portal, childrenDB+"/firewallRules/portal-rule", "2024-08-01", map[string]any{"properties": map[string]any{"startIpAddress": "198.51.100.7", "endIpAddress": "198.51.100.7"}})
	// Azure makes it with every server; the emulator does not, so it is
	// added as Azure would have it.
	putAndWait(t, portal, childrenDB+"/databases/azure_maintenance", "2024-08-01", map[string]any{"properties": map[string]any{"charset": "UTF8"}})

	var (
		mu            sync.Mutex
		writes, reads []string
	)
	front := proxyTo(t, run.URL, func(_ http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !readOnlyCheck(r) {
			writes = append(writes, r.Method+" "+r.URL.Path)
		} else if r.Method == http.MethodGet {
			reads = append(reads, r.URL.Path)
		}
		return false
	})
	plan := func(format string) string {
		t.Helper()
		out, errOut, code := azk(t, "", append([]string{"plan", childrenStack, "--detailed-exitcode", "-o", format}, endpointFlags(front)...)...)
		if code != 0 {
			t.Fatalf("plan -o %s: exit %d, want 0 (unmanaged children are no change)\n%s\n%s", format, code, out, errOut)
		}
		return out
	}

	var p planner.Plan
	if err := json.Unmarshal([]byte(plan("json")), &p); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range p.UnmanagedChildren {
		got[c.ID] = c.Parent
		if !strings.HasPrefix(strings.ToLower(c.ID), strings.ToLower(c.ParentID)+"/") {
			t.Errorf("%s is not under its parent's ARM ID %s", c.ID, c.ParentID)
		}
	}
	for id, parent := range added {
		if got[id] != parent {
			t.Errorf("%s: listed under %q, want %q", id, got[id], parent)
		}
	}
	for id := range got {
		if _, ok := added[id]; !ok {
			t.Errorf("%s is listed as an unmanaged child, and no one added it", id)
		}
	}
	if s := p.Summary(); s.Unmanaged != len(p.Unmanaged)+len(added) || s.Create+s.Update+s.Replace+s.Delete != 0 {
		t.Errorf("summary %+v: want no change and %d unmanaged", s, len(p.Unmanaged)+len(added))
	}
	text := plan("text")
	golden(t, "unmanagedchildren/plan.txt", text)
	golden(t, "unmanagedchildren/plan.md", plan("markdown"))
	mu.Lock()
	if len(writes) > 0 {
		t.Errorf("the plans sent writes: %v", writes)
	}
	mu.Unlock()

	// --unmanaged-children=false lists none, and saves the reads: no GET
	// of a collection the plan's own reads do not list.
	mu.Lock()
	reads = nil
	mu.Unlock()
	out, errOut, code := azk(t, "", append([]string{"plan", childrenStack, "--detailed-exitcode", "-o", "json", "--unmanaged-children=false"}, endpointFlags(front)...)...)
	var without planner.Plan
	if err := json.Unmarshal([]byte(out), &without); code != 0 || err != nil || len(without.UnmanagedChildren) != 0 {
		t.Errorf("plan --unmanaged-children=false: exit %d (%v), %d unmanaged children, want 0 and none\n%s", code, err, len(without.UnmanagedChildren), errOut)
	}
	mu.Lock()
	for _, r := range reads {
		for _, collection := range []string{"/firewallRules", "/containers", "/databases"} {
			if strings.HasSuffix(r, collection) {
				t.Errorf("plan --unmanaged-children=false listed %s", r)
			}
		}
	}
	mu.Unlock()

	// Saved, the plan shows the same; a child added after it was made is
	// no reason to refuse applying it (the report explains, it decides nothing).
	saved := filepath.Join(t.TempDir(), "plan.azk")
	if _, errOut, code := azk(t, "", append([]string{"plan", childrenStack, "--out", saved}, applyFlags...)...); code != 0 {
		t.Fatalf("plan --out: exit %d\n%s", code, errOut)
	}
	if shown, errOut, code := azk(t, "", "show", saved); code != 0 || shown != text {
		t.Errorf("azk show: exit %d, %s; differs from the plan:\n%s", code, errOut, shown)
	}
	putAndWait(t, portal, childrenDB+"/firewallRules/portal-later", "2024-08-01", map[string]any{"properties": map[string]any{"startIpAddress": "198.51.100.8", "endIpAddress": "198.51.100.8"}})
	if out, errOut, code := azk(t, "", append([]string{"apply", saved}, applyFlags...)...); code != 0 {
		t.Errorf("apply of the saved plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

// appliedChildrenStack applies childrenStack to a new emulator and returns
// it, the flags that point azk at it (writes checked against the plans)
// and a client to change Azure with, as the portal would.
func appliedChildrenStack(t *testing.T) (*emulator.Running, []string, *arm.Client) {
	t.Helper()
	run, applyFlags := emulatorAt(t)
	if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", childrenStack}, applyFlags...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	portal, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: emulatorSubscription,
		Endpoint: run.URL, AllowHTTP: true, PollFrequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return run, applyFlags, portal
}

// TestUnmanagedChildrenListingFailureIsAWarning: a child collection ARM
// refuses to list (here the server's firewall rules, 403) is a warning
// naming the parent and the collection; the plan goes on, lists the other
// children and exits as it would without the report.
func TestUnmanagedChildrenListingFailureIsAWarning(t *testing.T) {
	run, _, portal := appliedChildrenStack(t)
	putAndWait(t, portal, childrenVNet+"/subnets/portal-added", "2020-11-01", map[string]any{"properties": map[string]any{"addressPrefix": "10.0.2.0/24"}})
	refused := strings.ToLower(childrenDB + "/firewallRules")
	front := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || strings.ToLower(r.URL.Path) != refused {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"AuthorizationFailed","message":"no read of firewall rules here"}}`))
		return true
	})
	out, errOut, code := azk(t, "", append([]string{"plan", childrenStack, "--detailed-exitcode", "-o", "json"}, endpointFlags(front)...)...)
	if code != 0 {
		t.Fatalf("plan: exit %d, want 0\n%s", code, errOut)
	}
	if want := "listing firewallRules under dbforpostgresql.azure.com/FlexibleServer/default/azk-children-db for the unmanaged report"; !strings.Contains(errOut, want) || !strings.Contains(errOut, "AuthorizationFailed") {
		t.Errorf("stderr does not warn %q with ARM's answer:\n%s", want, errOut)
	}
	var p planner.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.UnmanagedChildren) != 1 || p.UnmanagedChildren[0].ID != childrenVNet+"/subnets/portal-added" {
		t.Errorf("unmanaged children %+v, want the subnet only", p.UnmanagedChildren)
	}
}
