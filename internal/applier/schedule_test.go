package applier_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// TestApplyStartsTheLongestWorkFirst: of the resources ready at once, the
// one whose operation the recordings show lasting longest (a storage account,
// about half a minute) starts before quick ones listed ahead of it
// (security groups, a second), whatever the input order.
func TestApplyStartsTheLongestWorkFirst(t *testing.T) {
	e := start(t, emulator.Options{}, 0)
	var docs strings.Builder
	docs.WriteString("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: first\nspec:\n  location: westus2\n")
	for _, name := range []string{"nsg-a", "nsg-b", "nsg-c"} {
		docs.WriteString("---\napiVersion: network.azure.com/v1api20201101\nkind: NetworkSecurityGroup\nmetadata:\n  name: " + name + "\nspec:\n  location: westus2\n  owner:\n    name: first\n")
	}
	docs.WriteString("---\napiVersion: storage.azure.com/v1api20230101\nkind: StorageAccount\nmetadata:\n  name: azkfirstsa\nspec:\n  location: westus2\n  kind: StorageV2\n  sku:\n    name: Standard_LRS\n  owner:\n    name: first\n")
	g := load(t, writeManifests(t, docs.String()))
	rec := &recorder{}
	opts := e.options(g, rec)
	opts.Parallelism = 1 // one at a time, so the order shows
	rep := e.apply(t, testkit.Context(t), e.decide(t, g), opts)
	if rep.Failed() {
		t.Fatalf("apply failed: %v", outcomes(rep))
	}
	var started []string
	for _, ev := range rec.all() {
		if ev.Type == applier.EventStart {
			started = append(started, ev.Address[strings.LastIndexByte(ev.Address, '/')+1:])
		}
	}
	if len(started) != 5 || started[0] != "first" || started[1] != "azkfirstsa" {
		t.Errorf("started in order %v; want the resource group, then the storage account", started)
	}
}

// getCounter counts the GETs of each resource path (operation URLs aside).
type getCounter struct {
	next policy.Transporter
	mu   sync.Mutex
	gets map[string]int
}

func (c *getCounter) Do(req *http.Request) (*http.Response, error) {
	p := strings.ToLower(req.URL.Path)
	if req.Method == http.MethodGet && !strings.Contains(p, "/operations/") && !strings.Contains(p, "/operationresults/") {
		c.mu.Lock()
		c.gets[p]++
		c.mu.Unlock()
	}
	return c.next.Do(req)
}

// TestApplyReadsBackOnlyWhatTheOperationDidNotReturn: a write whose final
// answer is the resource (a synchronous answer, a Location's final 200, the
// GET that ends an Azure-AsyncOperation) is not read again.
func TestApplyReadsBackOnlyWhatTheOperationDidNotReturn(t *testing.T) {
	e := start(t, emulator.Options{RecordedTiming: true, TimeCompression: 1000}, 0)
	counter := &getCounter{next: e.run.HTTPClient(), gets: map[string]int{}}
	client, err := arm.New(arm.Options{Subscription: subscription, Endpoint: e.run.URL, Credential: arm.EmulatorCredential, Transport: counter})
	if err != nil {
		t.Fatal(err)
	}
	g := load(t, quickstart)
	resources := e.decide(t, g)
	counter.gets = map[string]int{} // the plan's reads aside
	opts := e.options(g, &recorder{})
	opts.Client = client
	rep := applier.Apply(testkit.Context(t), resources, opts)
	if rep.Failed() {
		t.Fatalf("apply failed: %v", outcomes(rep))
	}
	for _, n := range g.Nodes {
		got := counter.gets[strings.ToLower(n.ID)]
		// At most the GET with which azcore ends an Azure-AsyncOperation.
		if got > 1 {
			t.Errorf("%s read %d times after its write", n.Address(), got)
		}
		if strings.Contains(n.ID, "storageAccounts/azkquickstartsa") && !strings.Contains(n.ID, "blobServices") && got != 0 {
			t.Errorf("storage account read %d times; its Location's final answer is the account", got)
		}
	}
}
