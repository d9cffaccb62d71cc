package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// noWritesIn fails for any PUT, PATCH or DELETE in log ("sends nothing";
// read-only POSTs such as name checks are allowed).
func noWritesIn(t *testing.T, what string, log []string) {
	t.Helper()
	for _, w := range writesIn(log) {
		if !strings.HasPrefix(w, "POST ") {
			t.Errorf("%s sent %s", what, w)
		}
	}
}

// C: a one-edit misspelling of storage.azure.com in the head must not read
// as the account's removal: validate, plan and apply refuse.
func TestDeletionSafetyMisspeltGroups(t *testing.T) {
	t.Parallel()
	good := docs(dsGroup("dsc", ""), dsAccount("dscacct", "dsc", ""))
	setup := func(t *testing.T, head string) (*dsEnv, string) {
		e := newDSEnv(t)
		repo, dir := e.appliedRepo(t, good)
		repo.write("manifests/stack.yaml", head)
		repo.commit()
		return e, dir
	}
	for _, group := range []string{
		"storage.azure.com.", "storage.azure.con", "storage.azure.co", "storage.azure.comm",
		"storageazure.com", "storage.azur.com", "storag.azure.com", "sotrage.azure.com",
		"Storage.azure.com", "storage-azure.com", "storage.azure.cm", "storage.zure.com",
	} {
		t.Run(group, func(t *testing.T) {
			t.Parallel()
			apiVersion := group + "/v1api20230101"
			e, dir := setup(t, strings.Replace(good, "apiVersion: storage.azure.com/v1api20230101", "apiVersion: "+apiVersion, 1))
			_, errOut, code := azk(t, "", "validate", dir)
			// The right group must be named, not only quoted in the wrong apiVersion.
			if code != 1 || !regexp.MustCompile(`stack\.yaml:\d+`).MatchString(errOut) || !strings.Contains(strings.ReplaceAll(errOut, apiVersion, ""), "storage.azure.com") {
				t.Errorf("validate: exit %d, want 1 naming stack.yaml:LINE and storage.azure.com\n%s", code, errOut)
			}
			out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", dir)
			if code != 1 {
				t.Errorf("plan --base: exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			m := e.mark()
			out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
			if code != 1 {
				t.Errorf("apply --base: exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			noDelete(t, "apply --base", e.since(m))
		})
	}
	// Second line of defence: the object keeps its kind and name but an
	// apiVersion azk does not read: its base resource must not be deleted.
	t.Run("unread apiVersion", func(t *testing.T) {
		t.Parallel()
		e, dir := setup(t, strings.Replace(good, "apiVersion: storage.azure.com/v1api20230101", "apiVersion: example.com/v1", 1))
		out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
		mustContain(t, "plan stderr", errOut, filepath.Join(dir, "stack.yaml"))
		announced := map[string]bool{}
		if code == 0 {
			_, byName, _ := decodePlan(t, out)
			if r := byName["StorageAccount/dscacct"]; r != nil && r.Removed() {
				t.Errorf("the account is planned as %s (%s)", r.Action, r.Reason)
			}
			announced = announcedDeletes(t, out)
		} else if code != 1 {
			t.Errorf("plan --base: exit %d\n%s", code, errOut)
		}
		m := e.mark()
		_, _, _ = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
		noUnannouncedDelete(t, e.since(m), announced)
		noDelete(t, "apply --base", e.since(m))
		if getBody(t, e.run, dsSub+"/resourceGroups/dsc/providers/Microsoft.Storage/storageAccounts/dscacct", "2023-01-01") == nil {
			t.Error("the account was deleted")
		}
	})
}

// D: a change of a resource's ARM ID under the same metadata.name (its
// azureName, or its owner) is refused, naming both IDs and the recipe.
func TestDeletionSafetyARMIDChanges(t *testing.T) {
	t.Parallel()
	rg := dsSub + "/resourceGroups/dsd"
	for _, tc := range []struct {
		name, base, head, oldID, newID string
	}{
		{"azureName",
			docs(dsGroup("dsd", ""), dsAccount("acct", "dsd", "dsdold1")),
			docs(dsGroup("dsd", ""), dsAccount("acct", "dsd", "dsdnew1")),
			rg + "/providers/Microsoft.Storage/storageAccounts/dsdold1",
			rg + "/providers/Microsoft.Storage/storageAccounts/dsdnew1"},
		{"subnet owner",
			docs(dsGroup("dsd", ""), dsNetwork("net1", "dsd", "10.1.0.0/16"), dsNetwork("net2", "dsd", "10.2.0.0/16"), dsSubnet("s", "net1", "10.1.1.0/24")),
			docs(dsGroup("dsd", ""), dsNetwork("net1", "dsd", "10.1.0.0/16"), dsNetwork("net2", "dsd", "10.2.0.0/16"), dsSubnet("s", "net2", "10.2.1.0/24")),
			rg + "/providers/Microsoft.Network/virtualNetworks/net1/subnets/s",
			rg + "/providers/Microsoft.Network/virtualNetworks/net2/subnets/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			repo, dir := e.appliedRepo(t, tc.base)
			repo.write("manifests/stack.yaml", tc.head)
			repo.commit()
			out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", dir)
			if code != 1 {
				t.Errorf("plan --base: exit %d, want 1\n%s", code, out)
			}
			mustContain(t, "plan stderr", errOut, tc.oldID, tc.newID, "metadata.name")
			m := e.mark()
			out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
			if code != 1 {
				t.Errorf("apply --base: exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			noWritesIn(t, "apply --base", e.since(m))
		})
	}
}

// roleStack: a group, an identity exporting its principal ID, and a Reader
// assignment of it on the group named name.
func roleStack(name string) string {
	return docs(dsGroup("dse", ""),
		"apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: dseid\nspec:\n  location: westus2\n  owner: {name: dse}\n  operatorSpec:\n    configMaps:\n      principalId: {name: dseid-cm, key: principalId}\n",
		"apiVersion: authorization.azure.com/v1api20220401\nkind: RoleAssignment\nmetadata:\n  name: "+name+"\nspec:\n  owner: {group: resources.azure.com, kind: ResourceGroup, name: dse}\n  principalIdFromConfig: {name: dseid-cm, key: principalId}\n  principalType: ServicePrincipal\n  roleDefinitionReference: {wellKnownName: Reader}\n")
}

// E: renaming a role assignment's metadata.name gives it another ARM ID
// for the same principal, role and scope: the old one must go first, or
// ARM refuses the new one as a duplicate.
func TestDeletionSafetyRoleAssignmentRename(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo, dir := e.appliedRepo(t, roleStack("ra-old"))
	repo.write("manifests/stack.yaml", roleStack("ra-new"))
	repo.commit()
	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	old, renamed := byName["RoleAssignment/ra-old"], byName["RoleAssignment/ra-new"]
	if old == nil || old.Action != planner.ActionDelete || renamed == nil || renamed.Action != planner.ActionCreate {
		t.Fatalf("want ra-old delete and ra-new create: %+v\n%+v", old, renamed)
	}
	announced := announcedDeletes(t, out)
	m := e.mark()
	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
	log := e.since(m)
	noUnannouncedDelete(t, log, announced)
	if code != 0 {
		t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	del := slices.IndexFunc(log, func(l string) bool { return strings.EqualFold(l, "DELETE "+old.ARMID) })
	put := slices.IndexFunc(log, func(l string) bool {
		return strings.HasPrefix(l, "PUT ") && strings.Contains(strings.ToLower(l), "/providers/microsoft.authorization/roleassignments/") &&
			(renamed.ARMID == "" || strings.EqualFold(l, "PUT "+renamed.ARMID))
	})
	if del < 0 || put < 0 || del > put {
		t.Errorf("want the DELETE of %s before the PUT of the new assignment (at %d, %d):\n%s", old.ARMID, del, put, strings.Join(writesIn(log), "\n"))
	}
	if out, errOut, code := e.azk(t, "plan", "--base", "HEAD", dir); code != 0 || !strings.Contains(out, "No changes") {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

const dsPostgres = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-admin\nstringData:\n  password: ds-Secret-value-1\n---\n" +
	"apiVersion: dbforpostgresql.azure.com/v1api20240801\nkind: FlexibleServer\nmetadata:\n  name: dspg\nspec:\n  owner: {name: %s}\n  location: westus2\n  version: \"16\"\n  sku: {name: Standard_B1ms, tier: Burstable}\n  storage: {storageSizeGB: 32}\n  administratorLogin: appadmin\n  administratorLoginPassword: {name: pg-admin, key: password}\n"

func dsServer(owner string) string { return strings.Replace(dsPostgres, "%s", owner, 1) }

// F: Azure cannot delete a blob service or a server configuration on its
// own: removing one from the manifests forgets it, it is never DELETEd.
func TestDeletionSafetyUndeletableKinds(t *testing.T) {
	t.Parallel()
	acct := dsSub + "/resourceGroups/dsf/providers/Microsoft.Storage/storageAccounts/dsfacct"
	config := "apiVersion: dbforpostgresql.azure.com/v1api20240801\nkind: FlexibleServersConfiguration\nmetadata:\n  name: dspg-ext\nspec:\n  owner: {name: dspg}\n  azureName: azure.extensions\n  source: user-override\n  value: PGCRYPTO\n"
	for _, tc := range []struct {
		name, base, head, key, id string
	}{
		{"blob service",
			docs(dsGroup("dsf", ""), dsAccount("dsfacct", "dsf", ""), dsBlobService("dsfacct-blob", "dsfacct")),
			docs(dsGroup("dsf", ""), dsAccount("dsfacct", "dsf", "")),
			"StorageAccountsBlobService/dsfacct-blob", acct + "/blobServices/default"},
		{"server configuration",
			docs(dsGroup("dsf", ""), dsServer("dsf"), config),
			docs(dsGroup("dsf", ""), dsServer("dsf")),
			"FlexibleServersConfiguration/dspg-ext", dsSub + "/resourceGroups/dsf/providers/Microsoft.DBforPostgreSQL/flexibleServers/dspg/configurations/azure.extensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			repo, dir := e.appliedRepo(t, tc.base)
			repo.write("manifests/stack.yaml", tc.head)
			repo.commit()
			out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
			if code != 0 {
				t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
			}
			_, byName, _ := decodePlan(t, out)
			if r := byName[tc.key]; r == nil || r.Action != planner.ActionDetach || r.Reason != "forget_because_azure_cannot_delete" {
				t.Errorf("%s: %+v, want detach forget_because_azure_cannot_delete", tc.key, r)
			}
			announced := announcedDeletes(t, out)
			m := e.mark()
			out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
			log := e.since(m)
			noUnannouncedDelete(t, log, announced)
			if code != 0 {
				t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
			}
			for _, d := range deletesIn(log) {
				if strings.EqualFold(d, "DELETE "+tc.id) {
					t.Errorf("apply sent %s", d)
				}
			}
		})
	}
	// The emulator refuses, as Azure does, to delete the default blob service.
	t.Run("emulator refuses DELETE of blobServices/default", func(t *testing.T) {
		t.Parallel()
		run, _ := startEmulator(t, emulator.Options{})
		client := emulatorClient(t, run)
		putAndWait(t, client, dsSub+"/resourceGroups/dsf", "2020-06-01", map[string]any{"location": "westus2"})
		putAndWait(t, client, acct, "2023-01-01", map[string]any{"location": "westus2", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}})
		ctx := testkit.Context(t)
		op, err := client.Delete(ctx, acct+"/blobServices/default", "2023-01-01")
		if err == nil {
			_, err = op.Wait(ctx)
		}
		var re *arm.ResponseError
		if !errors.As(err, &re) || re.StatusCode < 400 || re.StatusCode >= 500 {
			t.Errorf("DELETE blobServices/default: %v, want a 4xx refusal", err)
		}
	})
}

// G: -replace of a group whose server is blocked (its password's Secret is
// missing): the server would be deleted with the group and not created
// again, so the group's plan carries it as a cascade and apply refuses.
func TestDeletionSafetyReplaceBlockedChild(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	dir := writeStack(t, docs(dsGroup("dsg", ""), dsServer("dsg")))
	e.mustApply(t, dir)
	without := docs(dsGroup("dsg", ""), dsServer("dsg")[strings.Index(dsServer("dsg"), "apiVersion: dbforpostgresql"):])
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(without), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := e.azk(t, "plan", "-replace=ResourceGroup/dsg", "-o", "json", dir)
	announced := map[string]bool{}
	if !strings.HasPrefix(strings.TrimSpace(out), "{") {
		t.Errorf("plan -replace printed no JSON plan:\n%s\n%s", out, errOut)
	} else {
		announced = announcedDeletes(t, out)
		_, byName, _ := decodePlan(t, out)
		server := "dbforpostgresql.azure.com/FlexibleServer/default/dspg"
		r := byName["ResourceGroup/dsg"]
		found := r != nil && slices.ContainsFunc(r.Cascades, func(c planner.Cascade) bool {
			return strings.HasPrefix(c.Reason, "blocked") && (c.Address == server || strings.Contains(c.Reason, server))
		})
		if !found {
			t.Errorf("the group carries no cascade \"blocked\" for %s: %+v", server, r)
		}
		if s := byName["FlexibleServer/dspg"]; s == nil || s.Action != planner.ActionBlocked {
			t.Errorf("the server is not blocked, the case does not hold: %+v", s)
		}
	}
	m := e.mark()
	out, errOut, code := e.azk(t, "apply", "--auto-approve", "-replace=ResourceGroup/dsg", "--allow-partial", dir)
	log := e.since(m)
	noUnannouncedDelete(t, log, announced)
	noDelete(t, "apply -replace --allow-partial", log)
	if code != 1 {
		t.Errorf("apply -replace --allow-partial: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	if getBody(t, e.run, dsSub+"/resourceGroups/dsg/providers/Microsoft.DBforPostgreSQL/flexibleServers/dspg", "2024-08-01") == nil {
		t.Error("the server is gone")
	}
}

// H: the input is a committed symlink to the manifests: the base must be
// read through it as the head is.
func TestDeletionSafetySymlinkedInput(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo := newDSRepo(t)
	repo.write("stacks/v1/stack.yaml", docs(dsGroup("dsh", ""), dsIdentity("id1", "dsh"), dsIdentity("id2", "dsh")))
	if err := os.MkdirAll(repo.path("envs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../stacks/v1", repo.path("envs/prod")); err != nil {
		t.Fatal(err)
	}
	repo.commit()
	input := repo.path("envs/prod")
	e.mustApply(t, input)
	repo.write("stacks/v1/stack.yaml", docs(dsGroup("dsh", ""), dsIdentity("id1", "dsh")))
	repo.commit()
	out, errOut, code := e.azk(t, "plan", input, "--base", "HEAD~1", "-o", "json")
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	if r := byName["UserAssignedIdentity/id2"]; r == nil || r.Action != planner.ActionDelete || r.Reason != planner.ReasonRemoved {
		t.Errorf("id2: %+v, want delete_because_removed_from_manifests\n%s", r, errOut)
	}
	announced := announcedDeletes(t, out)
	m := e.mark()
	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", input)
	noUnannouncedDelete(t, e.since(m), announced)
	if code != 0 {
		t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
}

// nsDoc puts a document in namespace ns.
func nsDoc(doc, ns string) string {
	i := strings.Index(doc, "\n  name: ")
	j := i + 1 + strings.Index(doc[i+1:], "\n")
	return doc[:j+1] + "  namespace: " + ns + "\n" + doc[j+1:]
}

// I: the change that removes a resource also marks its namespace
// detach-on-delete: the removal must follow the policy of the head.
func TestDeletionSafetyNamespacePolicy(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo := newDSRepo(t)
	stack := func(removed bool) string {
		d := []string{nsDoc(dsGroup("dsi", ""), "app"), nsDoc(dsIdentity("id1", "dsi"), "app")}
		if removed {
			return docs(append([]string{"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n"}, d...)...)
		}
		return docs(append(d, nsDoc(dsIdentity("id2", "dsi"), "app"))...)
	}
	repo.write("manifests/stack.yaml", stack(false))
	repo.commit()
	dir := repo.path("manifests")
	e.mustApply(t, dir)
	repo.write("manifests/stack.yaml", stack(true))
	repo.commit()
	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	if r := byName["UserAssignedIdentity/id2"]; r == nil || r.Action != planner.ActionDetach {
		t.Errorf("id2: %+v, want detach", r)
	}
	announced := announcedDeletes(t, out)
	m := e.mark()
	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
	log := e.since(m)
	noUnannouncedDelete(t, log, announced)
	noDelete(t, "apply --base", log)
	if code != 0 {
		t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
}

// J: another writer changes (or creates) a resource between apply's plan
// and its PUT: the PUT is conditional (If-Match, If-None-Match: *), so
// apply fails instead of overwriting, and the other writer's value stays.
func TestDeletionSafetyConcurrentWriters(t *testing.T) {
	t.Parallel()
	rg := dsSub + "/resourceGroups/dsj"
	stack := func(env string, extra bool) string {
		net := strings.Replace(dsNetwork("net", "dsj", "10.0.0.0/16"), "spec:\n", "spec:\n  tags: {env: "+env+"}\n", 1)
		d := []string{dsGroup("dsj", ""), net}
		if extra {
			d = append(d, dsNetwork("net2", "dsj", "10.2.0.0/16"))
		}
		return docs(d...)
	}
	for _, tc := range []struct {
		name, id, header, want string
		head                   string
	}{
		{"changed", rg + "/providers/Microsoft.Network/virtualNetworks/net", "If-Match", "changed in Azure since", stack("two", false)},
		{"created", rg + "/providers/Microsoft.Network/virtualNetworks/net2", "If-None-Match", "created in Azure since", stack("zero", true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			e.mustApply(t, writeStack(t, stack("zero", false)))
			head := writeStack(t, tc.head)
			// The other writer: apply #1's value, written through the
			// emulator itself just before apply #2's PUT reaches it.
			client := emulatorClient(t, e.run)
			var (
				once     sync.Once
				mu       sync.Mutex
				otherErr error
			)
			e.setFault(func(_ http.ResponseWriter, r *http.Request) bool {
				if r.Method == http.MethodPut && strings.EqualFold(r.URL.Path, tc.id) {
					once.Do(func() {
						body := map[string]any{"location": "westus2", "tags": map[string]any{"env": "other"},
							"properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}}}
						if tc.name == "created" {
							body["properties"] = map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{"10.2.0.0/16"}}}
						}
						ctx := context.Background()
						op, err := client.Put(ctx, tc.id, "2020-11-01", body)
						if err == nil {
							_, err = op.Wait(ctx)
						}
						mu.Lock()
						otherErr = err
						mu.Unlock()
					})
				}
				return false
			})
			m := e.mark()
			out, errOut, code := e.azk(t, "apply", "--auto-approve", head)
			noDelete(t, "apply", e.since(m))
			mu.Lock()
			err := otherErr
			mu.Unlock()
			if err != nil {
				t.Fatalf("the other writer failed: %v", err)
			}
			if code != 1 || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("apply: exit %d, want 1 with %q\n%s\n%s", code, tc.want, out, errOut)
			}
			got := getBody(t, e.run, tc.id, "2020-11-01")
			if tags, _ := got["tags"].(map[string]any); tags["env"] != "other" {
				t.Errorf("tags %v, want the other writer's env=other", got["tags"])
			}
			hs := e.headers(http.MethodPut, tc.id)
			if len(hs) == 0 {
				t.Fatalf("no PUT of %s was sent", tc.id)
			}
			if v := hs[len(hs)-1].Get(tc.header); v == "" || tc.header == "If-None-Match" && v != "*" {
				t.Errorf("the PUT carried %s: %q", tc.header, v)
			}
		})
	}
}
