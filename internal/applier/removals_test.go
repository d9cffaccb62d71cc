package applier_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const removalsBase = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rm
spec:
  location: westus2
---
apiVersion: network.azure.com/v1api20201101
kind: NetworkSecurityGroup
metadata:
  name: keep-nsg
spec:
  location: westus2
  owner: {name: rm}
  tags: {env: dev}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: gone-id
spec:
  location: westus2
  owner: {name: rm}
`

const removalsHead = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rm
spec:
  location: westus2
---
apiVersion: network.azure.com/v1api20201101
kind: NetworkSecurityGroup
metadata:
  name: keep-nsg
spec:
  location: westus2
  owner: {name: rm}
  tags: {env: prod}
`

// A plan's removals go after every write, and none is attempted when a
// write failed: a deletion may rest on it (a reference moved away).
func TestApplyDeletesRemovalsLastAndOnlyAfterEveryWrite(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	base := load(t, writeManifests(t, removalsBase))
	if rep := e.apply(t, context.Background(), e.decide(t, base), e.options(base, &recorder{})); rep.Failed() {
		t.Fatalf("apply of the base: %v", outcomes(rep))
	}
	head := load(t, writeManifests(t, removalsHead))
	withBase := func(o *planner.Options) { o.Base, o.Inputs.Base = base, "base" }
	identity := "/subscriptions/" + subscription + "/resourceGroups/rm/providers/Microsoft.ManagedIdentity/userAssignedIdentities/gone-id"

	e.run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.Network/networkSecurityGroups", Code: "InternalError", Message: "no"}}})
	rep := e.apply(t, context.Background(), e.decide(t, head, withBase), e.options(head, &recorder{}))
	got := outcomes(rep)
	if got["network.azure.com/NetworkSecurityGroup/default/keep-nsg"] != applier.OutcomeFailed || got["managedidentity.azure.com/UserAssignedIdentity/default/gone-id"] != applier.OutcomeNotAttempted {
		t.Errorf("outcomes %v, want the update failed and the deletion not attempted", got)
	}
	if e.get(t, identity, "2023-01-31") == nil {
		t.Error("the identity was deleted though a write failed")
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if want := "managedidentity.azure.com/UserAssignedIdentity/default/gone-id (waits for network.azure.com/NetworkSecurityGroup/default/keep-nsg)"; !bytes.Contains(text.Bytes(), []byte(want)) {
		t.Errorf("the report lacks %q:\n%s", want, text.String())
	}

	e.run.Server.SetFaults(emulator.Faults{})
	rec := &recorder{}
	rep = e.apply(t, context.Background(), e.decide(t, head, withBase), e.options(head, rec))
	if rep.Failed() {
		t.Fatalf("apply: %v", outcomes(rep))
	}
	if e.get(t, identity, "2023-01-31") != nil {
		t.Error("the identity is still there")
	}
	if deleted, updated := rec.index(applier.EventStart, "managedidentity.azure.com/UserAssignedIdentity/default/gone-id"), rec.index(applier.EventEnd, "network.azure.com/NetworkSecurityGroup/default/keep-nsg"); deleted < updated {
		t.Errorf("the deletion started (event %d) before the update ended (event %d)", deleted, updated)
	}
	if want := "Apply complete! Resources: 0 created, 1 updated, 1 deleted, 0 failed."; rep.Summary() != want {
		t.Errorf("summary %q, want %q", rep.Summary(), want)
	}
}
