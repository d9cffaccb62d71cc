package views

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// collectionsManifests are resources that share collections: security
// groups and identities in one resource group, rules of one group, subnets
// of one network.
func collectionsManifests() string {
	var b strings.Builder
	b.WriteString("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg-lists\nspec:\n  location: westus2\n")
	b.WriteString("---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: vnet\nspec:\n  location: westus2\n  owner:\n    name: rg-lists\n  addressSpace:\n    addressPrefixes: [\"10.0.0.0/16\"]\n")
	for i := range 4 {
		fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: subnet-%d\nspec:\n  owner:\n    name: vnet\n  addressPrefix: 10.0.%d.0/24\n", i, i)
	}
	for i := range 3 {
		fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: NetworkSecurityGroup\nmetadata:\n  name: nsg-%d\nspec:\n  location: westus2\n  owner:\n    name: rg-lists\n  tags:\n    tier: t%d\n", i, i)
		for j := range 3 {
			fmt.Fprintf(&b, "---\napiVersion: network.azure.com/v1api20201101\nkind: NetworkSecurityGroupsSecurityRule\nmetadata:\n  name: nsg-%d-rule-%d\nspec:\n  azureName: rule-%d\n  owner:\n    name: nsg-%d\n  protocol: Tcp\n  sourcePortRange: \"*\"\n  destinationPortRange: \"%d\"\n  sourceAddressPrefix: \"*\"\n  destinationAddressPrefix: \"*\"\n  access: Allow\n  priority: %d\n  direction: Inbound\n", i, j, j, i, 8000+j, 100+j)
		}
	}
	for i := range 4 {
		fmt.Fprintf(&b, "---\napiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id-%d\nspec:\n  location: westus2\n  owner:\n    name: rg-lists\n", i)
	}
	return b.String()
}

// countingReader counts the requests a plan sends, lists apart.
type countingReader struct {
	next        http.RoundTripper
	mu          sync.Mutex
	gets, lists int
}

func (c *countingReader) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	segs := strings.Count(strings.Trim(r.URL.Path, "/"), "/") + 1
	// An ARM ID has an even number of segments; a collection an odd one.
	if segs%2 == 1 {
		c.lists++
	} else {
		c.gets++
	}
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

// trimmingReader lists items without their properties, as some providers do.
type trimmingReader struct {
	*arm.Client
	mu    sync.Mutex
	lists int
}

func (r *trimmingReader) List(ctx context.Context, path, apiVersion string) ([]json.RawMessage, error) {
	items, err := r.Client.List(ctx, path, apiVersion)
	r.mu.Lock()
	r.lists++
	r.mu.Unlock()
	for i, raw := range items {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			delete(m, "properties")
			items[i], _ = json.Marshal(m)
		}
	}
	return items, err
}

// seedPlanned creates every resource of g in Azure as planned, parents first.
func seedPlanned(t *testing.T, az *testAzure, g *graph.Graph) {
	t.Helper()
	p, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, ReadEach: true})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	depth := map[*graph.Node]int{}
	var depthOf func(n *graph.Node) int
	depthOf = func(n *graph.Node) int {
		if d, ok := depth[n]; ok {
			return d
		}
		d := 0
		for _, dep := range n.DependsOn() {
			d = max(d, depthOf(dep)+1)
		}
		depth[n] = d
		return d
	}
	for level := 0; level < 10; level++ {
		for _, r := range p.Resources {
			if r.Node == nil || depthOf(r.Node) != level || r.Request == nil {
				continue
			}
			id, apiVersion, _ := strings.Cut(r.Request.URL, "?api-version=")
			az.Put(t, id, apiVersion, r.Request.Body)
		}
	}
}

// planJSON plans g and returns the plan as JSON and the requests it took.
func planJSON(t *testing.T, az *testAzure, g *graph.Graph, readEach bool) (string, *countingReader) {
	t.Helper()
	counter := &countingReader{next: http.DefaultTransport}
	client, err := arm.New(arm.Options{Credential: arm.EmulatorCredential, Subscription: testSub, Endpoint: az.Run.URL, AllowHTTP: true,
		Transport: &http.Client{Transport: counter}})
	if err != nil {
		t.Fatal(err)
	}
	p, diags := planner.Make(context.Background(), g, planner.Options{Reader: client, ReadEach: readEach})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	var b bytes.Buffer
	if err := JSON(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String(), counter
}

// TestListReadsDecideAsGETsDo: whatever Azure holds (nothing, exactly the
// manifests, drift in tags and properties, resources deleted, a resource in
// a failed state), the plan made with list reads is the plan made with a
// GET for every resource, byte for byte, with fewer requests once resources
// exist.
func TestListReadsDecideAsGETsDo(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	file := filepath.Join(t.TempDir(), "lists.yaml")
	if err := os.WriteFile(file, []byte(collectionsManifests()), 0o644); err != nil {
		t.Fatal(err)
	}
	g := loadScenario(t, file)
	quickstart := loadScenario(t, "../../examples/quickstart")
	var last string
	same := func(stage string, g *graph.Graph) (lists, each *countingReader) {
		t.Helper()
		byList, lists := planJSON(t, az, g, false)
		byGet, each := planJSON(t, az, g, true)
		if byList != byGet {
			t.Errorf("%s: the plans differ\nwith lists:\n%s\nwith a GET each:\n%s", stage, byList, byGet)
		}
		last = byList
		return lists, each
	}
	count := func(reason planner.Reason) int { return strings.Count(last, `"reason": "`+string(reason)+`"`) }
	same("nothing exists", g)
	if count(planner.ReasonMissing)+count(planner.ReasonOwnerCreated) != len(g.Nodes) {
		t.Errorf("nothing exists: not every resource is a create:\n%s", last)
	}

	seedPlanned(t, az, g)
	seedPlanned(t, az, quickstart)
	lists, each := same("as the manifests", g)
	if lists.gets+lists.lists >= each.gets || lists.lists == 0 {
		t.Errorf("as the manifests: %d GETs and %d lists, against %d GETs one by one", lists.gets, lists.lists, each.gets)
	}
	if count(planner.ReasonMatches) != len(g.Nodes) {
		t.Errorf("as the manifests: not every resource matches:\n%s", last)
	}
	asManifests := last
	same("quickstart as the manifests", quickstart)

	// A provider whose list items carry less than its GETs: decided by GET.
	var trimmed bytes.Buffer
	reader := &trimmingReader{Client: az.Client}
	p, diags := planner.Make(context.Background(), g, planner.Options{Reader: reader})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if err := JSON(&trimmed, p); err != nil {
		t.Fatal(err)
	}
	if trimmed.String() != asManifests {
		t.Errorf("trimmed list items: the plan differs from the plan of a GET each:\n%s", trimmed.String())
	}
	if reader.lists == 0 {
		t.Error("trimmed list items: nothing was listed")
	}

	rg := "/subscriptions/" + testSub + "/resourceGroups/rg-lists"
	net := rg + "/providers/Microsoft.Network"
	drift := func(id, patch string) {
		if err := az.Run.Server.Drift(id, json.RawMessage(patch)); err != nil {
			t.Fatal(err)
		}
	}
	drift(net+"/networkSecurityGroups/nsg-1", `{"tags":{"tier":"t1","owner":"portal"}}`)
	drift(net+"/networkSecurityGroups/nsg-2/securityRules/rule-1", `{"properties":{"destinationPortRange":"9999"}}`)
	drift(net+"/virtualNetworks/vnet/subnets/subnet-3", `{"properties":{"addressPrefix":"10.0.33.0/24"}}`)
	for _, id := range []string{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-2", net + "/networkSecurityGroups/nsg-0/securityRules/rule-0"} {
		op, err := az.Client.Delete(testkit.Context(t), id, map[bool]string{true: "2023-01-31", false: "2020-11-01"}[strings.Contains(id, "Identity")])
		if err == nil {
			_, err = op.Wait(testkit.Context(t))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A write that failed leaves the rule with provisioningState Failed.
	az.Run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.Network/networkSecurityGroups/securityRules"}}})
	if op, err := az.Client.Put(testkit.Context(t), net+"/networkSecurityGroups/nsg-1/securityRules/rule-2", "2020-11-01",
		map[string]any{"properties": map[string]any{"protocol": "Tcp", "sourcePortRange": "*", "destinationPortRange": "8002",
			"sourceAddressPrefix": "*", "destinationAddressPrefix": "*", "access": "Allow", "priority": 102, "direction": "Inbound"}}); err == nil {
		_, _ = op.Wait(testkit.Context(t))
	}
	az.Run.Server.SetFaults(emulator.Faults{})
	same("drifted, deleted and failed", g)
	// The two drifted leaves and the failed rule are updates, the removed
	// tag of nsg-1 too; the deleted identity and rule are creates.
	if count(planner.ReasonChanged) != 3 || count(planner.ReasonFailed) != 1 || count(planner.ReasonMissing) != 2 {
		t.Errorf("drifted: %d changed, %d failed, %d missing; want 3, 1, 2:\n%s", count(planner.ReasonChanged), count(planner.ReasonFailed), count(planner.ReasonMissing), last)
	}
}
