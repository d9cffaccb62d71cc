package preflight

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const (
	lockSub   = "00000000-0000-4000-8000-0000000000aa"
	lockGroup = "/subscriptions/" + lockSub + "/resourceGroups/lk"
	groupType = "Microsoft.Resources/resourceGroups"
	identType = "Microsoft.ManagedIdentity/userAssignedIdentities"
)

func lockClient(t *testing.T, endpoint string) *arm.Client {
	t.Helper()
	c, err := arm.New(arm.Options{Subscription: lockSub, Endpoint: endpoint, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustPut(t *testing.T, c *arm.Client, id, version string, body map[string]any) {
	t.Helper()
	op, err := c.Put(context.Background(), id, version, body)
	if err == nil {
		_, err = op.Wait(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestLocksCheckWhatARMRefuses: in a group with a ReadOnly lock on one
// identity and a CanNotDelete lock on another, the check reports the
// group's delete (locks inside it), the cascaded delete of the
// CanNotDelete identity, the update of the ReadOnly one and a create
// beside it as nothing (the group is not ReadOnly), and no read.
func TestLocksCheckWhatARMRefuses(t *testing.T) {
	emu, err := emulator.Start(context.Background(), emulator.Options{}, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emu.Close() })
	c := lockClient(t, emu.URL)
	mustPut(t, c, lockGroup, "2021-04-01", map[string]any{"location": "westus2"})
	id := func(n string) string { return lockGroup + "/providers/" + identType + "/" + n }
	for _, n := range []string{"ro", "nodel", "plain"} {
		mustPut(t, c, id(n), "2023-01-31", map[string]any{"location": "westus2"})
	}
	mustPut(t, c, id("ro")+"/providers/Microsoft.Authorization/locks/freeze", LocksAPIVersion, map[string]any{"properties": map[string]any{"level": "ReadOnly"}})
	mustPut(t, c, id("nodel")+"/providers/Microsoft.Authorization/locks/keep", LocksAPIVersion, map[string]any{"properties": map[string]any{"level": "CanNotDelete"}})

	plan := &planner.Plan{Resources: []*planner.Resource{
		{Address: "group", ARMID: lockGroup, ARMType: groupType, Action: planner.ActionDelete},
		{Address: "nodel", ARMID: id("nodel"), ARMType: identType, Action: planner.ActionDelete, CascadedBy: "group"},
		{Address: "ro", ARMID: id("ro"), ARMType: identType, Action: planner.ActionUpdate},
		{Address: "new", ARMID: id("new"), ARMType: identType, Action: planner.ActionCreate},
		{Address: "plain", ARMID: id("plain"), ARMType: identType, Action: planner.ActionNoChange},
	}}
	got := map[string]string{}
	for _, f := range locks(&run{ctx: context.Background(), client: c, plan: plan}) {
		got[f.Address] = f.Code + ": " + f.Message
	}
	want := map[string][]string{
		"group": {"ScopeLocked: the delete is refused by the CanNotDelete lock 'keep' on " + id("nodel") + " and the ReadOnly lock 'freeze' on " + id("ro")},
		"nodel": {"ScopeLocked: the delete (with group) is refused by the CanNotDelete lock 'keep'", "az lock delete --ids " + id("nodel") + "/providers/Microsoft.Authorization/locks/keep"},
		"ro":    {"ScopeLocked: the update is refused by the ReadOnly lock 'freeze'"},
	}
	if len(got) != len(want) {
		t.Errorf("findings at %v, want at group, nodel and ro", got)
	}
	for address, parts := range want {
		for _, p := range parts {
			if !strings.Contains(got[address], p) {
				t.Errorf("%s: %q, want it to hold %q", address, got[address], p)
			}
		}
	}
}

// TestLocksListingFailedIsCheckFailed: a subscription whose locks cannot
// be listed gives one CheckFailed warning per resource, and no error.
func TestLocksListingFailedIsCheckFailed(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"AuthorizationFailed","message":"no Microsoft.Authorization/locks/read"}}`))
	}))
	t.Cleanup(refusing.Close)
	plan := &planner.Plan{Resources: []*planner.Resource{
		{Address: "a", ARMID: lockGroup + "/providers/" + identType + "/a", ARMType: identType, Action: planner.ActionUpdate},
		{Address: "b", ARMID: lockGroup + "/providers/" + identType + "/b", ARMType: identType, Action: planner.ActionDelete},
	}}
	fs := locks(&run{ctx: context.Background(), client: lockClient(t, refusing.URL), plan: plan})
	if len(fs) != 1 || fs[0].Code != "CheckFailed" || fs[0].Severity != planner.SeverityError || !strings.Contains(fs[0].Message, "AuthorizationFailed") {
		t.Errorf("findings %+v, want one CheckFailed error naming ARM's refusal and nothing else", fs)
	}
}
