package deployment

import (
	"fmt"
	"testing"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// TestResourceGroupScopeTopLevelDependsOn: resources that all sit in one
// existing resource group deploy at resource-group scope, each top-level,
// and each waits through dependsOn for the resources it depends on; ARM
// would otherwise start them all at once.
func TestResourceGroupScopeTopLevelDependsOn(t *testing.T) {
	rs := chain("rg1", 3)
	free := identity("rg1", "free") // depends on nothing
	p := &planner.Plan{Resources: append(rs, free)}
	set, err := Build(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Templates) != 1 {
		t.Fatalf("%d templates, want one", len(set.Templates))
	}
	if s := set.Templates[0].Scope; s != (Scope{Subscription: sub, ResourceGroup: "rg1"}) {
		t.Fatalf("the template deploys at %v, want resource group rg1", s)
	}
	doc := decode(t, set.Templates[0])
	resources := testkit.At[[]any](t, doc, "resources")
	if len(resources) != 4 {
		t.Fatalf("%d top-level resources, want the 4 identities", len(resources))
	}
	for i := range resources {
		name := testkit.At[string](t, resources, i, "name")
		deps, _ := testkit.At[map[string]any](t, resources, i)["dependsOn"].([]any)
		var want []any
		switch name {
		case "id001":
			want = []any{"[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'id000')]"}
		case "id002":
			want = []any{"[resourceId('Microsoft.ManagedIdentity/userAssignedIdentities', 'id001')]"}
		}
		if fmt.Sprint(deps) != fmt.Sprint(want) {
			t.Errorf("%s: dependsOn %v, want %v", name, deps, want)
		}
	}
}
