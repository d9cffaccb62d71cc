package views

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const operatorInput = `apiVersion: v1
kind: Namespace
metadata:
  name: frozen
  annotations:
    serviceoperator.azure.com/reconcile-policy: skip
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg-op
  annotations:
    azk.azkcli.io/ignore-changes: tags.owner, tags.cost
spec:
  location: westus2
  tags:
    owner: team-a
    cost: "1"
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-skip
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: skip
spec:
  location: westus2
  owner:
    name: rg-op
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-manage
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: manage
spec:
  location: westus2
  owner:
    name: rg-op
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-new
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: skip
spec:
  location: westus2
  owner:
    name: rg-op
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-frozen
  namespace: frozen
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: manage
spec:
  location: westus2
  owner:
    armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-op
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-plain
spec:
  location: westus2
  owner:
    name: rg-op
`

// TestOperatorDiffers: where the operator would act otherwise on the same
// manifests, the plan says so per resource: reconcile-policy-if-exists,
// which the operator does not implement, on a resource that exists (with
// the policy the operator applies instead, from its own order: annotation,
// Namespace, default), and ignore-changes paths where Azure differs, whose
// manifests' values the operator sends. A resource that does not exist, or
// whose if-exists policy is what the operator would apply anyway, differs
// in nothing.
func TestOperatorDiffers(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg-op"
	az.Put(t, rg, "2021-04-01", map[string]any{"location": "westus2", "tags": map[string]any{"owner": "team-b", "cost": "1"}})
	for _, name := range []string{"id-skip", "id-manage", "id-frozen", "id-plain"} {
		az.Put(t, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"+name, "2023-01-31", map[string]any{"location": "westus2"})
	}
	file := filepath.Join(t.TempDir(), "operator.yaml")
	if err := os.WriteFile(file, []byte(operatorInput), 0o644); err != nil {
		t.Fatal(err)
	}
	g := loadScenario(t, file)
	for _, tc := range []struct {
		ifExistsFlag string
		want         map[string]string // name -> codes and the operator's policy or paths
	}{
		{"", map[string]string{
			"rg-op":     "operator_sends_ignored_paths [tags.owner]",
			"id-skip":   "operator_ignores_if_exists manage (default)",
			"id-frozen": "operator_ignores_if_exists skip (annotation serviceoperator.azure.com/reconcile-policy on Namespace frozen)",
		}},
		{"detach-on-delete", map[string]string{
			"rg-op":    "operator_ignores_if_exists manage (default); operator_sends_ignored_paths [tags.owner]",
			"id-skip":  "operator_ignores_if_exists manage (default)",
			"id-plain": "operator_ignores_if_exists manage (default)",
			// id-frozen: its own if-exists annotation (manage) comes before the flag.
			"id-frozen": "operator_ignores_if_exists skip (annotation serviceoperator.azure.com/reconcile-policy on Namespace frozen)",
		}},
	} {
		p, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client, ReconcilePolicyIfExists: tc.ifExistsFlag})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		got := map[string]string{}
		for _, r := range p.Resources {
			var parts []string
			for _, d := range r.OperatorDiffers {
				s := string(d.Code)
				if d.Policy != nil {
					s += " " + d.Policy.Value + " (" + d.Policy.Source + ")"
				}
				if d.Paths != nil {
					s += " [" + strings.Join(d.Paths, ",") + "]"
				}
				if d.Message == "" {
					t.Errorf("%s: %s has no message", r.Name, d.Code)
				}
				parts = append(parts, s)
			}
			if len(parts) > 0 {
				got[r.Name] = strings.Join(parts, "; ")
			}
		}
		for name, want := range tc.want {
			if got[name] != want {
				t.Errorf("flag %q: %s: got %q, want %q", tc.ifExistsFlag, name, got[name], want)
			}
		}
		for name, g := range got {
			if _, ok := tc.want[name]; !ok {
				t.Errorf("flag %q: %s differs unexpectedly: %s", tc.ifExistsFlag, name, g)
			}
		}

		var text, js bytes.Buffer
		if err := Text(&text, p, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "operator differs: the operator does not implement serviceoperator.azure.com/reconcile-policy-if-exists") ||
			!strings.Contains(text.String(), "operator differs: the operator does not honour azk.azkcli.io/ignore-changes: its PUT carries the manifests' values at tags.owner") {
			t.Errorf("flag %q: the text plan does not say where the operator differs:\n%s", tc.ifExistsFlag, text.String())
		}
		if err := JSON(&js, p); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Resources []struct {
				Name            string `json:"name"`
				OperatorDiffers []struct {
					Code    string          `json:"code"`
					Message string          `json:"message"`
					Paths   []string        `json:"paths"`
					Policy  *planner.Policy `json:"policy"`
				} `json:"operatorDiffers"`
			} `json:"resources"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range doc.Resources {
			n += len(r.OperatorDiffers)
		}
		if want := strings.Count(strings.Join(values(tc.want), ";"), "operator_"); n != want {
			t.Errorf("flag %q: the JSON plan has %d operatorDiffers entries, want %d", tc.ifExistsFlag, n, want)
		}
	}
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
