package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// TestAPropertyAzureLacks: a property the manifests set that Azure's GET
// lacks is a change unless a base shows it was sent before. DNS servers
// added to a network that has none must be applied, with or without --base;
// the same servers, unchanged since the base, are a property ARM did not
// return, not a change.
func TestAPropertyAzureLacks(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	rg := "/subscriptions/" + testSub + "/resourceGroups/lk"
	az.Put(t, rg, "2020-06-01", map[string]any{"location": "westus2"})
	az.Put(t, rg+"/providers/Microsoft.Network/virtualNetworks/lk-net", "2020-11-01", map[string]any{"location": "westus2",
		"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}})
	before, after := "testdata/lacking/before.yaml", "testdata/lacking/after.yaml"
	const dns = "properties.dhcpOptions"
	plan := func(base string) *planner.Resource {
		t.Helper()
		opts := planner.Options{Reader: az.Client, Inputs: planner.Inputs{Paths: []string{after}, Namespace: "default"}}
		if base != "" {
			opts.Inputs.Base, opts.Base = base, loadScenario(t, base)
		}
		p, diags := planner.Make(context.Background(), loadScenario(t, after), opts)
		if diags.HasErrors() {
			t.Fatalf("Make: %v", diags.Err())
		}
		for _, r := range p.Resources {
			if r.Name == "lk-net" {
				return r
			}
		}
		t.Fatal("the network is not in the plan")
		return nil
	}
	changed := func(r *planner.Resource) *planner.Change {
		for i, c := range r.Changes {
			if strings.HasPrefix(c.Path, dns) {
				return &r.Changes[i]
			}
		}
		return nil
	}

	noBase := plan("")
	if noBase.Action != planner.ActionUpdate || changed(noBase) == nil {
		t.Errorf("without --base: %s %+v, want an update adding %s", noBase.Action, noBase.Changes, dns)
	}
	if !strings.Contains(strings.Join(noBase.Notes, "\n"), "--base") {
		t.Errorf("without --base the plan does not say how to tell a property ARM never returns: %q", noBase.Notes)
	}

	added := plan(before)
	if c := changed(added); added.Action != planner.ActionUpdate || c == nil || c.Origin != planner.OriginChange {
		t.Errorf("with a base without DNS servers: %s %+v, want an update whose change has origin change", added.Action, added.Changes)
	}

	sent := plan(after)
	if sent.Action != planner.ActionNoChange || changed(sent) != nil {
		t.Errorf("with a base that set the same DNS servers: %s %+v, want no change", sent.Action, sent.Changes)
	}
	if len(sent.NotReturned) != 1 || !strings.HasPrefix(sent.NotReturned[0].Path, dns) {
		t.Errorf("with a base that set the same DNS servers: not returned %+v, want %s", sent.NotReturned, dns)
	}
}
