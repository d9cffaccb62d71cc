package applier_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

const chainManifests = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: chain
spec:
  location: westus2
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: web
spec:
  owner:
    name: chain
  location: westus2
  operatorSpec:
    configMaps:
      principalId:
        name: web-identity
        key: principalId
---
apiVersion: authorization.azure.com/v1api20220401
kind: RoleAssignment
metadata:
  name: web-reader
spec:
  owner:
    group: resources.azure.com
    kind: ResourceGroup
    name: chain
  principalIdFromConfig:
    name: web-identity
    key: principalId
  principalType: ServicePrincipal
  roleDefinitionReference:
    wellKnownName: Reader
`

// refusingDeletes answers a DELETE of one resource as ARM answers a
// resource under a delete lock, and passes every other request on.
type refusingDeletes struct {
	next policy.Transporter
	id   string
}

func (r refusingDeletes) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodDelete || !strings.EqualFold(req.URL.Path, r.id) {
		return r.next.Do(req)
	}
	body := `{"error":{"code":"ScopeLocked","message":"The scope cannot perform delete operation because of a lock."}}`
	return &http.Response{StatusCode: http.StatusConflict, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// In a replacement chain the reader's own DELETE goes first: when ARM
// refuses it, the reader fails with ARM's code, and the identity it reads
// from is neither deleted nor created again (what it waits for failed), so
// nothing is left naming a deleted principal.
func TestChainReaderDeleteFailureStopsTheReplacement(t *testing.T) {
	e := start(t, emulator.Options{}, 0)
	g := load(t, writeManifests(t, chainManifests))
	if rep := e.apply(t, context.Background(), e.decide(t, g), e.options(g, &recorder{})); rep.Failed() {
		t.Fatalf("first apply failed: %+v", rep.Results)
	}
	resources := e.decide(t, g, func(o *planner.Options) { o.Replace = []string{"UserAssignedIdentity/web"} })
	var identity, reader *planner.Resource
	for _, r := range resources {
		switch r.Name {
		case "web":
			identity = r
		case "web-reader":
			reader = r
		}
	}
	if identity.Action != planner.ActionRecreate || reader.Reason != planner.ReasonInputReplaced {
		t.Fatalf("plan: identity %s, role assignment %s; want the chain", identity.Action, reader.Reason)
	}
	before := e.get(t, identity.ARMID, "2023-01-31")
	e.writes.next = refusingDeletes{next: e.writes.next, id: reader.ARMID}
	// Not e.apply: it takes a failed resource to have sent all its writes,
	// and this one fails at its first.
	e.writes.reset()
	rep := applier.Apply(testkit.Bound(t, context.Background()), resources, e.options(g, &recorder{}))
	sent := e.writes.all()
	want := map[string]bool{"DELETE " + strings.ToLower(reader.ARMID): true}
	if len(sent) != 1 || !sent["DELETE "+strings.ToLower(reader.ARMID)] {
		t.Errorf("apply sent %v, want only %v: nothing after the refused DELETE", sent, want)
	}
	got := map[string]*applier.Result{}
	for _, res := range rep.Results {
		got[res.Address] = res
	}
	if len(rep.Results) != 3 {
		t.Errorf("%d results, want one per resource: %+v", len(rep.Results), rep.Results)
	}
	res := got[reader.Address]
	var armErr *arm.ResponseError
	if res == nil || res.Outcome != applier.OutcomeFailed || !errors.As(res.Err, &armErr) || armErr.Code != "ScopeLocked" {
		t.Errorf("the role assignment: %+v, want failed with ScopeLocked", res)
	}
	if res := got[identity.Address]; res == nil || res.Outcome != applier.OutcomeNotAttempted || res.BlockedBy != reader.Address {
		t.Errorf("the identity: %+v, want not attempted, waiting for the role assignment", res)
	}
	if after := e.get(t, identity.ARMID, "2023-01-31"); after["properties"].(map[string]any)["principalId"] != before["properties"].(map[string]any)["principalId"] {
		t.Error("the identity was replaced although the role assignment naming it could not be deleted")
	}
}

// A chain two readers long (a reader that exports what another reads) is
// deleted from its far end inwards and created from its start outwards,
// each DELETE ended before the next begins: the plan's decisions are
// applied as a saved plan is, by address.
func TestChainOfReadersIsDeletedOutsideIn(t *testing.T) {
	e := start(t, emulator.Options{}, 0)
	put := func(id, apiVersion string, body map[string]any) {
		t.Helper()
		op, err := e.client.Put(testkit.Context(t), id, apiVersion, body)
		if err == nil {
			_, err = op.Wait(testkit.Context(t))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	rg := "/subscriptions/" + subscription + "/resourceGroups/chain"
	put(rg, "2020-06-01", map[string]any{"location": "westus2"})
	resource := func(name string, reason planner.Reason, from string) *planner.Resource {
		id := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + name
		put(id, "2023-01-31", map[string]any{"location": "westus2"})
		r := &planner.Resource{Address: "x/UserAssignedIdentity/default/" + name, Name: name, ARMID: id, ARMType: "Microsoft.ManagedIdentity/userAssignedIdentities",
			APIVersion: "2023-01-31", Action: planner.ActionRecreate, Reason: reason,
			Request: &convert.Request{Method: http.MethodPut, URL: id + "?api-version=2023-01-31", Body: map[string]any{"location": "westus2"}}}
		if from != "" {
			r.DependsOn = []string{from}
			r.ReplacedInputs = []planner.ReplacedInput{{Path: "tags.principal", From: from, CreateOnly: "annotation"}}
		}
		return r
	}
	first := resource("first", planner.ReasonReplaceRequested, "")
	middle := resource("middle", planner.ReasonInputReplaced, first.Address)
	last := resource("last", planner.ReasonInputReplaced, middle.Address)
	rec := &recorder{}
	rep := e.apply(t, context.Background(), []*planner.Resource{first, middle, last}, applier.Options{Client: e.client, Parallelism: 10, Events: rec.record})
	if rep.Failed() || len(rep.Results) != 3 || rep.Count(applier.OutcomeReplaced) != 3 {
		t.Fatalf("apply: %+v, want three replaced", rep.Results)
	}
	at := func(r *planner.Resource, typ applier.EventType, method string, outcome applier.Outcome) int {
		for i, ev := range rec.all() {
			if ev.Address == r.Address && ev.Type == typ && ev.Method == method && ev.Outcome == outcome {
				return i
			}
		}
		t.Fatalf("no %s %s %s event for %s", typ, method, outcome, r.Name)
		return -1
	}
	deleted := func(r *planner.Resource) int { return at(r, applier.EventEnd, "", applier.OutcomeDeleted) }
	deleting := func(r *planner.Resource) int { return at(r, applier.EventStart, http.MethodDelete, "") }
	created := func(r *planner.Resource) int { return at(r, applier.EventEnd, "", applier.OutcomeReplaced) }
	creating := func(r *planner.Resource) int { return at(r, applier.EventStart, http.MethodPut, "") }
	if !(deleted(last) < deleting(middle) && deleted(middle) < deleting(first)) {
		t.Errorf("DELETEs not from the far end inwards: %+v", rec.all())
	}
	if !(created(first) < creating(middle) && created(middle) < creating(last)) {
		t.Errorf("PUTs not from the start outwards: %+v", rec.all())
	}
}
