package planner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/planner"
)

const policyInput = `apiVersion: v1
kind: Namespace
metadata:
  name: frozen
  annotations:
    serviceoperator.azure.com/reconcile-policy: skip
---
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: rg-policy
  namespace: default
spec:
  location: westus2
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-in-frozen
  namespace: frozen
spec:
  location: westus2
  owner:
    armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-existing
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-own-policy
  namespace: frozen
  annotations:
    serviceoperator.azure.com/reconcile-policy: manage
spec:
  location: westus2
  owner:
    armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-existing
---
apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata:
  name: id-if-exists
  namespace: frozen
  annotations:
    serviceoperator.azure.com/reconcile-policy-if-exists: detach-on-delete
spec:
  location: westus2
  owner:
    armId: /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-existing
`

// TestPolicySources: a resource's own reconcile-policy comes first, then
// (for one that exists) its reconcile-policy-if-exists, then its
// Namespace's annotation, then --default-reconcile-policy; the plan says
// which decided. A Namespace's skip keeps a missing resource from being
// created, as the operator's does.
func TestPolicySources(t *testing.T) {
	az := startAzure(t, emulator.Faults{})
	rg := "/subscriptions/" + testSub + "/resourceGroups/rg-existing"
	az.Put(t, rg, "2021-04-01", map[string]any{"location": "westus2"})
	az.Put(t, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-if-exists", "2023-01-31", map[string]any{"location": "westus2"})
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(policyInput), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		defaultPolicy string
		want          map[string]planner.Policy
		actions       map[string]planner.Action
	}{
		{"", map[string]planner.Policy{
			"id-in-frozen":  {"skip", "annotation serviceoperator.azure.com/reconcile-policy on Namespace frozen"},
			"id-own-policy": {"manage", planner.PolicySourceAnnotation},
			"id-if-exists":  {"detach-on-delete", planner.PolicySourceAnnotationIfExists},
			"rg-policy":     {"manage", "default"},
		}, map[string]planner.Action{"id-in-frozen": planner.ActionSkip, "id-own-policy": planner.ActionCreate, "rg-policy": planner.ActionCreate}},
		{"detach-on-delete", map[string]planner.Policy{
			"id-in-frozen": {"skip", "annotation serviceoperator.azure.com/reconcile-policy on Namespace frozen"},
			"rg-policy":    {"detach-on-delete", planner.PolicySourceDefaultFlag},
		}, nil},
	} {
		res, diags := loader.Load(loader.Options{Paths: []string{file}})
		if len(res.Namespaces) != 1 || len(diags) != 0 {
			t.Fatalf("the loader kept %d namespaces: %v", len(res.Namespaces), diags)
		}
		g, diags := graph.Build(res, graph.Options{Subscription: testSub, DefaultReconcilePolicy: tc.defaultPolicy})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		p, diags := planner.Make(context.Background(), g, planner.Options{Reader: az.Client})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		for _, r := range p.Resources {
			if want, ok := tc.want[r.Name]; ok && r.Policy != want {
				t.Errorf("default %q: %s policy %+v, want %+v", tc.defaultPolicy, r.Name, r.Policy, want)
			}
			if want, ok := tc.actions[r.Name]; ok && r.Action != want {
				t.Errorf("default %q: %s is %s, want %s", tc.defaultPolicy, r.Name, r.Action, want)
			}
			switch {
			case r.Name == "id-if-exists" && (r.RecordPolicy == nil || r.RecordPolicy.Value != "detach-on-delete"):
				t.Errorf("%s, adopted under its if-exists policy, records %+v", r.Name, r.RecordPolicy)
			case r.Name != "id-if-exists" && r.RecordPolicy != nil:
				t.Errorf("%s records %+v, though no if-exists policy decided it", r.Name, r.RecordPolicy)
			}
		}
	}

	bad := policyInput[:len("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: frozen\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: ")] + "freeze\n"
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := loader.Load(loader.Options{Paths: []string{file}})
	if _, diags := graph.Build(res, graph.Options{DefaultReconcilePolicy: "never"}); len(diags) != 2 {
		t.Errorf("an unknown Namespace policy and an unknown default policy: %v", diags)
	}
}
