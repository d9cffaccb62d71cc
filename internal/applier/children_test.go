package applier_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// TestUpdatingAParentKeepsItsChildren updates the quick start's virtual network
// after its subnets exist. ARM replaces a network's subnets with what its PUT
// carries, so the PUT must carry the subnets read from Azure, as the operator's does.
func TestUpdatingAParentKeepsItsChildren(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	ctx := testkit.Context(t)
	g := load(t, quickstart)
	if rep := e.apply(t, ctx, e.decide(t, g), e.options(g, &recorder{})); rep.Failed() {
		t.Fatalf("apply: %v", outcomes(rep))
	}
	guids := map[string]string{}
	for _, n := range g.Nodes {
		if n.Object.Kind == "VirtualNetworksSubnet" {
			guids[n.ID] = testkit.At[string](t, e.get(t, n.ID, n.Kind.APIVersion), "properties", "resourceGuid")
		}
	}
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(quickstart, "*.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), "      - 10.10.0.0/16\n", "      - 10.10.0.0/16\n      - 10.20.0.0/16\n", 1))
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changed := load(t, dir)
	rep := e.apply(t, ctx, e.decide(t, changed), e.options(changed, &recorder{}))
	if rep.Failed() || rep.Count(applier.OutcomeUpdated) != 1 {
		t.Fatalf("update: %v", outcomes(rep))
	}
	// A subnet the network's PUT deleted would be created again by its own
	// PUT, with a new resourceGuid: in Azure that fails as soon as it is in use.
	for id, guid := range guids {
		if got := testkit.At[string](t, e.get(t, id, "2020-11-01"), "properties", "resourceGuid"); got != guid {
			t.Errorf("%s was deleted by its network's PUT and created again", id)
		}
	}
}
