package applier_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// An adoption whose policy cannot be recorded (the manifest is read-only)
// is applied; the report says the policy was not recorded and that nothing
// was written, and the manifest is as it was.
func TestApplyReportSaysAnUnrecordedPolicyWroteNothing(t *testing.T) {
	e := start(t, emulator.Options{}, 10)
	ctx := testkit.Context(t)
	rg := "/subscriptions/" + subscription + "/resourceGroups/locked-file"
	for _, put := range []struct{ id, version string }{
		{rg, "2021-04-01"}, // a resource group's own api-version, as ARM requires
		{rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/adopted", "2023-01-31"},
	} {
		op, err := e.client.Put(ctx, put.id, put.version, map[string]any{"location": "westus2", "tags": map[string]any{"owner": "portal"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := op.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	docs := `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: locked-file
spec:
  location: westus2
  tags: {owner: portal}
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: adopted
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: detach-on-delete
spec:
  location: westus2
  owner: {name: locked-file}
  tags: {owner: azk}
`
	file := writeManifests(t, docs)
	if err := os.Chmod(file, 0o444); err != nil {
		t.Fatal(err)
	}
	g := load(t, file)
	rep := e.apply(t, ctx, e.decide(t, g), e.options(g, &recorder{}))
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{
		"Applied, but the reconcile-policy could not be recorded: nothing was written, each manifest is as it was",
		"  managedidentity.azure.com/UserAssignedIdentity/default/adopted: " + file + ": the file is read-only: nothing was written, the file is as it was\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	if got, _ := os.ReadFile(file); string(got) != docs {
		t.Errorf("the read-only manifest changed:\n%s", got)
	}
}
