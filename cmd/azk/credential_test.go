package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredentialFromUsesTheSecretsSubscription applies a resource group that
// names its own credential: it is created in the Secret's subscription, and the
// Secret's values never reach the output.
func TestCredentialFromUsesTheSecretsSubscription(t *testing.T) {
	_, flags := emulatorAt(t)
	const other = "99999999-0000-0000-0000-000000000000"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "team.yaml"), []byte(`apiVersion: v1
kind: Secret
metadata:
  name: team-a
stringData:
  AZURE_SUBSCRIPTION_ID: `+other+`
  AZURE_TENANT_ID: 72f988bf-0000-4000-8000-000000000000
  AZURE_CLIENT_ID: 11111111-0000-0000-0000-000000000000
  AZURE_CLIENT_SECRET: do-not-print-me
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: team-a-rg
  annotations:
    serviceoperator.azure.com/credential-from: team-a
spec:
  location: westus2
`), 0o644)
	out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply output", out, "/subscriptions/"+other+"/resourceGroups/team-a-rg", "1 created")
	if strings.Contains(out+errOut, "do-not-print-me") {
		t.Error("the credential's secret was printed")
	}
	out, _, code = azk(t, "", append([]string{"plan", "--detailed-exitcode", dir}, flags...)...)
	if code != 0 {
		t.Errorf("plan after apply: exit %d, want no changes (the group is read in its own subscription)\n%s", code, out)
	}
}
