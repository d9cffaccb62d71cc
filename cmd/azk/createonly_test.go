package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

// cosmosStack is a Cosmos DB account, database and container whose
// partition key is key; annotations go on the container.
func cosmosStack(key string, ttl int, annotations string) string {
	return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: cos\nspec:\n  location: westus2\n---\n" +
		"apiVersion: documentdb.azure.com/v1api20240815\nkind: DatabaseAccount\nmetadata:\n  name: acct\nspec:\n  location: westus2\n  owner: {name: cos}\n" +
		"  databaseAccountOfferType: Standard\n  locations: [{locationName: westus2}]\n---\n" +
		"apiVersion: documentdb.azure.com/v1api20240815\nkind: SqlDatabase\nmetadata:\n  name: db\nspec:\n  owner: {name: acct}\n  resource: {id: db}\n---\n" +
		"apiVersion: documentdb.azure.com/v1api20240815\nkind: SqlDatabaseContainer\nmetadata:\n  name: c\n" + annotations + "spec:\n  owner: {name: db}\n" +
		"  resource:\n    id: c\n    defaultTtl: " + itoa(ttl) + "\n    partitionKey: {paths: [\"" + key + "\"], kind: Hash}\n"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const containerAddress = "documentdb.azure.com/SqlDatabaseContainer/default/c"

// A Cosmos DB container's partition key, which Azure never changes in
// place, plans replace-required with the -replace recipe and the fact's
// source; a location change still does; -replace re-creates the container
// with the new key and the next plan has no changes.
func TestPartitionKeyChangePlansReplaceRequired(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, cosmosStack("/id", 60, ""))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	write := func(docs string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(docs), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cosmosStack("/tenantId", 60, ""))
	out, _, code := azk(t, "", with("plan", dir)...)
	if code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "plan", out, "! SqlDatabaseContainer default/c needs replacing: azk applies it only with -replace",
		`properties.resource.partitionKey: Azure has {"kind":"Hash","paths":["/id"]}, the manifest says {"kind":"Hash","paths":["/tenantId"]}; Azure accepts it only at creation (provider: ARM answers BadRequest): -replace=`+containerAddress+" deletes it")
	js, _, _ := azk(t, "", with("plan", "-o", "json", dir)...)
	mustContain(t, "json plan", js, `"reason": "replace_because_cannot_update"`, "(provider: ARM answers BadRequest)")

	write(strings.Replace(cosmosStack("/id", 60, ""), "name: acct\nspec:\n  location: westus2", "name: acct\nspec:\n  location: eastus", 1))
	out, _, _ = azk(t, "", with("plan", dir)...)
	mustContain(t, "location plan", out, `location: Azure has "westus2", the manifest says "eastus"; Azure cannot move it in place: -replace=documentdb.azure.com/DatabaseAccount/default/acct deletes it`)

	write(cosmosStack("/tenantId", 60, ""))
	out, errOut, code := azk(t, "", with("apply", "--auto-approve", "-replace="+containerAddress, dir)...)
	if code != 0 {
		t.Fatalf("apply -replace: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply -replace", out, "Apply complete! Resources: 0 created, 0 updated, 1 replaced, 0 failed.")
	container := "/subscriptions/" + emulatorSubscription + "/resourceGroups/cos/providers/Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/db/containers/c"
	key := getBody(t, run, container, "2024-08-15")["properties"].(map[string]any)["resource"].(map[string]any)["partitionKey"]
	if b, _ := json.Marshal(key); !strings.Contains(string(b), "/tenantId") {
		t.Errorf("the container's partition key is %s, want /tenantId", b)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Errorf("re-plan: exit %d\n%s", code, out)
	}
}

// The replace-on-change annotation makes a path create-only for one
// resource: a change there plans replace-required, naming the annotation;
// a path the kind's body lacks is refused at validate, at its file and line.
func TestReplaceOnChangeAnnotation(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	annotation := "  annotations:\n    azk.azkcli.io/replace-on-change: properties.resource.defaultTtl\n"
	dir := writeStack(t, cosmosStack("/id", 60, annotation))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(cosmosStack("/id", 120, annotation)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", dir)...)
	if code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "plan", out, "properties.resource.defaultTtl: Azure has 60, the manifest says 120; Azure accepts it only at creation (annotation azk.azkcli.io/replace-on-change): -replace="+containerAddress)

	bad := writeStack(t, cosmosStack("/id", 60, "  annotations:\n    azk.azkcli.io/replace-on-change: |\n      properties.resource.defaultTtl\n      properties.resource.partitionKeys\n"))
	out, errOut, code := azk(t, "", "validate", bad)
	if code != 1 {
		t.Fatalf("validate: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	line := strings.Count(strings.Split(cosmosStack("/id", 60, "  annotations:\n    azk.azkcli.io/replace-on-change: |\n      properties.resource.defaultTtl\n      properties.resource.partitionKeys\n"), "properties.resource.partitionKeys")[0], "\n") + 1
	mustContain(t, "validate", out+errOut, "stack.yaml:"+itoa(line), `"properties.resource.partitionKeys": SqlDatabaseContainer has no property "partitionKeys" under properties.resource (did you mean "properties.resource.partitionKey"?)`)
}

// A role assignment's principal is part of what it is: a new principal
// plans replace-required, from the identity fact and ARM's code.
func TestRoleAssignmentPrincipalChangePlansReplaceRequired(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	stack := func(principal string) string {
		return "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: ra\nspec:\n  location: westus2\n---\n" +
			"apiVersion: authorization.azure.com/v1api20220401\nkind: RoleAssignment\nmetadata:\n  name: reader\nspec:\n  owner: {group: resources.azure.com, kind: ResourceGroup, name: ra}\n" +
			"  principalId: " + principal + "\n  principalType: ServicePrincipal\n  roleDefinitionReference: {wellKnownName: Reader}\n"
	}
	const before, after = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	dir := writeStack(t, stack(before))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(stack(after)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := azk(t, "", with("plan", dir)...)
	if code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "plan", out, "! RoleAssignment default/reader needs replacing",
		`properties.principalId: Azure has "`+before+`", the manifest says "`+after+`"; Azure accepts it only at creation (identity: ARM answers RoleAssignmentUpdateNotPermitted): -replace=authorization.azure.com/RoleAssignment/default/reader`)
}

// When ARM refuses an update for changing a property azk did not know is
// create-only, apply reports the resource replace-required, with ARM's
// code, the property and the -replace recipe, in the end report and in
// the -o json events.
func TestRefusedUpdateIsReportedReplaceRequired(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, cosmosStack("/id", 60, ""))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(cosmosStack("/id", 120, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	run.Server.SetFaults(emulator.Faults{Failures: []emulator.FailureRule{{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers", After: 20 * time.Millisecond,
		Code: "PropertyChangeNotAllowed", Message: "Changing property 'properties.resource.defaultTtl' is not allowed."}}})
	defer run.Server.SetFaults(emulator.Faults{})
	out, _, code := azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 1 {
		t.Fatalf("apply: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "apply", out, "Failed:\n  "+containerAddress+": PropertyChangeNotAllowed: Changing property 'properties.resource.defaultTtl' is not allowed.",
		"; replace-required: Azure accepts properties.resource.defaultTtl only at creation (ARM refused: PropertyChangeNotAllowed): -replace="+containerAddress+" deletes it and creates it again")
	js, _, _ := azk(t, "", with("apply", "--auto-approve", "-o", "json", dir)...)
	mustContain(t, "apply -o json", js, `"replaceRequired":{"property":"properties.resource.defaultTtl","source":"ARM refused: PropertyChangeNotAllowed","replace":"-replace=`+containerAddress+`"}`)
}

// azk explain shows, per field, that Azure accepts it only at creation and
// where that fact comes from; an updatable field says nothing of it.
func TestExplainShowsCreateOnlyFields(t *testing.T) {
	out, errOut, code := azk(t, "", "explain", "SqlDatabaseContainer.spec.resource")
	if code != 0 {
		t.Fatalf("explain: exit %d\n%s", code, errOut)
	}
	mustContain(t, "explain", out, "  partitionKey\t<Object>\n      ARM: properties.resource.partitionKey\n      create-only: Azure accepts it only when the resource is created (provider: ARM answers BadRequest)\n",
		"  defaultTtl\t<integer>\n      ARM: properties.resource.defaultTtl\n  id\t")
	out, _, _ = azk(t, "", "explain", "ManagedCluster.spec.dnsPrefix", "--api-version", "v1api20250801")
	mustContain(t, "explain dnsPrefix", out, "create-only: Azure accepts it only when the resource is created (REST spec: Microsoft.ContainerService/managedClusters@2025-08-01; CRD: containerservice.azure.com/v1api20250801)")
	out, _, _ = azk(t, "", "explain", "RoleAssignment", "-o", "json")
	mustContain(t, "explain -o json", out, `"path": "spec.principalId"`, `"createOnly": "identity: ARM answers RoleAssignmentUpdateNotPermitted"`)
}
