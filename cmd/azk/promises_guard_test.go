package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// These tests guard promises that a deliberate bug once broke without any
// test noticing (issue 27); each was seen to fail with its bug put in.

const identityStack = "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: guarded\nspec:\n  location: westus2\n---\n" +
	"apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: id\nspec:\n  location: westus2\n  owner: {name: guarded}\n"

const guardedIdentity = "/subscriptions/" + emulatorSubscription + "/resourceGroups/guarded/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id"

// TestCancelledResourceIsSentAgain: a resource whose last operation was
// cancelled (provisioningState Canceled, or Cancelled as some providers
// spell it) did not take, though Azure holds a body matching the manifests:
// the plan sends it again, as the operator does, apply writes it and the
// next plan is quiet.
func TestCancelledResourceIsSentAgain(t *testing.T) {
	for _, state := range []string{"Canceled", "Cancelled"} {
		t.Run(state, func(t *testing.T) {
			run, flags := emulatorAt(t)
			with := func(args ...string) []string { return append(args, flags...) }
			dir := writeStack(t, identityStack)
			if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
				t.Fatalf("first apply: exit %d\n%s\n%s", code, out, errOut)
			}
			patch, _ := json.Marshal(map[string]any{"properties": map[string]any{"provisioningState": state}})
			if err := run.Server.Drift(guardedIdentity, patch); err != nil {
				t.Fatal(err)
			}
			if got := getBody(t, run, guardedIdentity, "2023-01-31"); got == nil || !strings.Contains(mustJSON(t, got), `"provisioningState":"`+state+`"`) {
				t.Fatalf("the emulator does not hold provisioningState %s: %v", state, got)
			}
			out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
			if code != 2 {
				t.Fatalf("plan over provisioningState %s: exit %d, want 2 (changes)\n%s\n%s", state, code, out, errOut)
			}
			mustContain(t, "plan", out, "~ UserAssignedIdentity default/id will be sent again", "provisioningState "+state)
			if out, _, code := azk(t, "", with("plan", "-o", "json", dir)...); code != 0 || !strings.Contains(out, `"reason": "update_because_provisioning_failed"`) {
				t.Errorf("json plan over provisioningState %s: exit %d, not the failed-provisioning reason\n%s", state, code, out)
			}
			if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 || !strings.Contains(out, "0 created, 1 updated, 0 failed") {
				t.Fatalf("apply over provisioningState %s: exit %d, want the identity sent again\n%s\n%s", state, code, out, errOut)
			}
			if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
				t.Errorf("plan after the re-send: exit %d, want 0\n%s", code, out)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
