package main

// Deletion and the cascade guard (issue 42), end to end against the
// emulator behind dsEnv's recording and fault proxy: each test was seen to
// fail with a bug put into the behaviour it holds.

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
	"github.com/azkcli/azk/internal/views"
)

// pdIdentity is an identity whose Azure name is azureName.
func pdIdentity(name, owner, azureName string) string {
	return dsIdentity(name, owner) + "  azureName: " + azureName + "\n"
}

// 1: the head keeps the base's ARM ID under a new metadata.name: a move,
// never a deletion.
func TestDeletionPromiseMovedARMIDIsNotDeleted(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo, dir := e.appliedRepo(t, docs(dsGroup("pdm", ""), pdIdentity("id-old", "pdm", "shared")))
	repo.write("manifests/stack.yaml", docs(dsGroup("pdm", ""), pdIdentity("id-new", "pdm", "shared")))
	repo.commit()
	id := dsSub + "/resourceGroups/pdm/providers/Microsoft.ManagedIdentity/userAssignedIdentities/shared"
	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	p, byName, _ := decodePlan(t, out)
	for _, r := range p.Resources {
		if strings.EqualFold(r.ARMID, id) && r.Removed() {
			t.Errorf("%s is planned as %s (%s): the head still holds its ARM ID", r.Address, r.Action, r.Reason)
		}
	}
	if r := byName["UserAssignedIdentity/id-new"]; r == nil || r.Moved == nil || r.Adopt != nil {
		t.Errorf("id-new: %+v; want moved, not adopted", r)
	}
	m := e.mark()
	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
	noDelete(t, "apply --base", e.since(m))
	if code != 0 {
		t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	if getBody(t, e.run, id, "2023-01-31") == nil {
		t.Error("the identity is gone from Azure")
	}
}

// 2: a read of what is to be deleted that fails other than with 404 is an
// error, never "already gone".
func TestDeletionPromiseUnreadableIsNotGone(t *testing.T) {
	t.Parallel()
	id2 := dsSub + "/resourceGroups/pdr/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id2"
	retry := []string{"--retry-max-attempts", "2", "--retry-max-delay", "10ms"}
	for _, fault := range []struct{ kind, code string }{{"403", "AuthorizationFailed"}, {"500", "InternalServerError"}} {
		t.Run(fault.kind+"/removal", func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			repo, dir := e.appliedRepo(t, docs(dsGroup("pdr", ""), dsIdentity("id1", "pdr"), dsIdentity("id2", "pdr")))
			repo.write("manifests/stack.yaml", docs(dsGroup("pdr", ""), dsIdentity("id1", "pdr")))
			repo.commit()
			e.setFault(dsFault(id2, fault.kind))
			out, errOut, code := e.azk(t, append([]string{"plan", "--base", "HEAD~1", dir}, retry...)...)
			if code != 1 || !strings.Contains(errOut, fault.code) || !strings.Contains(errOut, "id2") {
				t.Errorf("plan --base: exit %d, want 1 naming %s and id2\n%s\n%s", code, fault.code, out, errOut)
			}
			m := e.mark()
			out, errOut, code = e.azk(t, append([]string{"apply", "--auto-approve", "--base", "HEAD~1", dir}, retry...)...)
			if code != 1 || !strings.Contains(errOut, fault.code) {
				t.Errorf("apply --base: exit %d, want 1 naming %s\n%s\n%s", code, fault.code, out, errOut)
			}
			noWritesIn(t, "apply --base", e.since(m))
		})
		t.Run(fault.kind+"/destroy", func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			dir := writeStack(t, docs(dsGroup("pdr", "detach-on-delete"), dsIdentity("id2", "pdr")))
			e.mustApply(t, dir)
			e.setFault(dsFault(id2, fault.kind))
			m := e.mark()
			out, errOut, code := e.azk(t, append([]string{"destroy", "--auto-approve", dir}, retry...)...)
			if code != 1 || !strings.Contains(errOut, fault.code) || strings.Contains(out, "already gone") || strings.Contains(out, "Nothing to delete") {
				t.Errorf("destroy: exit %d, want 1 naming %s, not already gone\n%s\n%s", code, fault.code, out, errOut)
			}
			noWritesIn(t, "destroy", e.since(m))
			e.setFault(nil)
			if getBody(t, e.run, id2, "2023-01-31") == nil {
				t.Error("the identity is gone")
			}
		})
	}
}

// pdNetworkStack: a group, a network and its subnet; removed, the network
// goes and the subnet names it by armId (the same ARM ID).
func pdNetworkStack(removed bool) string {
	if !removed {
		return docs(dsGroup("pdc", ""), dsNetwork("net", "pdc", "10.0.0.0/16"), dsSubnet("s1", "net", "10.0.1.0/24"))
	}
	return docs(dsGroup("pdc", ""), "apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: s1\nspec:\n  owner: {armId: "+dsSub+"/resourceGroups/pdc/providers/Microsoft.Network/virtualNetworks/net}\n  addressPrefix: 10.0.1.0/24\n")
}

// 3: removing a parent whose child the head keeps (owner by armId) is a
// cascade "still in the manifests": refused, both stay.
func TestDeletionPromiseKeptChildIsACascade(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo, dir := e.appliedRepo(t, pdNetworkStack(false))
	repo.write("manifests/stack.yaml", pdNetworkStack(true))
	repo.commit()
	net := dsSub + "/resourceGroups/pdc/providers/Microsoft.Network/virtualNetworks/net"
	subnet := net + "/subnets/s1"
	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	if r := byName["VirtualNetwork/net"]; r == nil || r.Action != planner.ActionDelete {
		t.Errorf("the network: %+v, want delete", r)
	}
	if by, c := cascadeOn(t, out, subnet); by == nil || c.Reason != "still in the manifests" {
		t.Errorf("cascade on %s: %+v by %+v, want \"still in the manifests\"", subnet, c, by)
	}
	mustContain(t, "plan stderr", errOut, "--allow-cascade")
	announced := announcedDeletes(t, out)
	m := e.mark()
	out, errOut, code = e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
	noUnannouncedDelete(t, e.since(m), announced)
	noDelete(t, "apply --base", e.since(m))
	if code != 1 || !strings.Contains(errOut, "--allow-cascade") {
		t.Errorf("apply --base: exit %d, want 1 asking for --allow-cascade\n%s\n%s", code, out, errOut)
	}
	for _, id := range []string{net, subnet} {
		if getBody(t, e.run, id, "2020-11-01") == nil {
			t.Errorf("%s is gone", id)
		}
	}
}

// 4: -replace of a resource kept in Azure by its policy is blocked with
// the reason, and sends no DELETE.
func TestDeletionPromiseReplaceKeptByPolicyIsBlocked(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"detach-on-delete", "skip"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			id := strings.Replace(dsIdentity("pid", "pdp"), "  name: pid\n", "  name: pid\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: "+policy+"\n", 1)
			dir := writeStack(t, docs(dsGroup("pdp", ""), dsIdentity("pid", "pdp")))
			e.mustApply(t, dir)
			dir = writeStack(t, docs(dsGroup("pdp", ""), id))
			out, errOut, code := e.azk(t, "plan", "-replace=UserAssignedIdentity/pid", "-o", "json", dir)
			want := "under reconcile-policy " + policy + " azk never deletes it in Azure, so it cannot replace it"
			if !strings.HasPrefix(strings.TrimSpace(out), "{") {
				t.Fatalf("plan -replace: exit %d, no JSON plan\n%s\n%s", code, out, errOut)
			}
			_, byName, _ := decodePlan(t, out)
			if r := byName["UserAssignedIdentity/pid"]; r == nil || r.Action != planner.ActionBlocked || !strings.Contains(strings.Join(r.Reasons, "\n"), want) {
				t.Errorf("the identity: %+v, want blocked: %s", r, want)
			}
			m := e.mark()
			out, errOut, code = e.azk(t, "apply", "--auto-approve", "-replace=UserAssignedIdentity/pid", dir)
			noDelete(t, "apply -replace", e.since(m))
			if code != 1 || !strings.Contains(out+errOut, want) {
				t.Errorf("apply -replace: exit %d, want 1 with %q\n%s\n%s", code, want, out, errOut)
			}
		})
	}
}

// vanish deletes id through the emulator itself (not through the proxy)
// the first time azk sends it a DELETE: gone behind azk's back. With
// answer412 the proxy then answers that DELETE 412, as a provider does to
// an If-Match naming what no longer exists; else the emulator answers it
// (404 for a group).
func (e *dsEnv) vanish(t *testing.T, id, apiVersion string, answer412 bool) {
	client := emulatorClient(t, e.run)
	var once sync.Once
	e.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodDelete || !strings.EqualFold(r.URL.Path, id) {
			return false
		}
		first := false
		once.Do(func() {
			first = true
			ctx := context.Background()
			op, err := client.Delete(ctx, id, apiVersion)
			if err == nil {
				_, err = op.Wait(ctx)
			}
			if err != nil {
				t.Errorf("deleting %s behind azk's back: %v", id, err)
			}
		})
		if !first || !answer412 {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPreconditionFailed)
		_, _ = w.Write([]byte(`{"error":{"code":"PreconditionFailed","message":"The resource's ETag does not match the If-Match header."}}`))
		return true
	})
}

// gone checks the DELETE of id carried If-Match (and, after a 412, was
// followed by a GET: the applier's check that it means gone), and out says
// "Already gone" for address, never that azk deleted it.
func (e *dsEnv) gone(t *testing.T, log []string, id, apiVersion, address, out string, after412 bool) {
	t.Helper()
	if hs := e.headers(http.MethodDelete, id); len(hs) == 0 || hs[0].Get("If-Match") == "" {
		t.Errorf("the DELETE of %s carried no If-Match: %v", id, hs)
	}
	del := slices.IndexFunc(log, func(l string) bool { return strings.EqualFold(l, "DELETE "+id) })
	if del < 0 || after412 && !slices.ContainsFunc(log[del:], func(l string) bool { return strings.EqualFold(l, "GET "+id) }) {
		t.Errorf("no DELETE of %s followed by a GET:\n%s", id, strings.Join(log, "\n"))
	}
	mustContain(t, "output", out, address+": Already gone")
	if strings.Contains(out, address+": Deletion complete") {
		t.Errorf("%s is reported deleted, though it was gone:\n%s", address, out)
	}
	if getBody(t, e.run, id, apiVersion) != nil {
		t.Errorf("%s is still in Azure", id)
	}
}

// 5: what vanished between plan and DELETE (its If-Match answered 412,
// then a GET 404) is already gone: no failure.
func TestDeletionPromiseVanishedIsAlreadyGone(t *testing.T) {
	t.Parallel()
	rg := dsSub + "/resourceGroups/pdv"
	group := "resources.azure.com/ResourceGroup/default/pdv"
	stack := docs(dsGroup("pdv", ""), dsIdentity("id1", "pdv"))
	for _, answer := range []string{"404", "412"} {
		t.Run("destroy/"+answer, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			dir := writeStack(t, stack)
			e.mustApply(t, dir)
			e.vanish(t, rg, "2020-06-01", answer == "412")
			m := e.mark()
			out, errOut, code := e.azk(t, "destroy", "--auto-approve", dir)
			if code != 0 {
				t.Errorf("destroy: exit %d\n%s\n%s", code, out, errOut)
			}
			e.gone(t, e.since(m), rg, "2020-06-01", group, out, answer == "412")
			mustContain(t, "destroy", out, "managedidentity.azure.com/UserAssignedIdentity/default/id1: Already gone", "Destroy complete! Resources: 0 deleted, 0 deleted by cascade, 0 detached, 0 failed.")
		})
	}
	// savedDestroyPlan applies stack and saves its destroy plan.
	savedDestroyPlan := func(t *testing.T, stack string) (*dsEnv, string) {
		t.Helper()
		e := newDSEnv(t)
		dir := writeStack(t, stack)
		e.mustApply(t, dir)
		planFile := filepath.Join(t.TempDir(), "destroy.azk")
		if out, errOut, code := e.azk(t, "plan", "--destroy", "--out", planFile, dir); code != 0 {
			t.Fatalf("plan --destroy --out: exit %d\n%s\n%s", code, out, errOut)
		}
		return e, planFile
	}
	t.Run("saved destroy plan/412", func(t *testing.T) {
		t.Parallel()
		e, planFile := savedDestroyPlan(t, stack)
		e.vanish(t, rg, "2020-06-01", true)
		m := e.mark()
		out, errOut, code := e.azk(t, "destroy", planFile)
		if code != 0 {
			t.Errorf("destroy PLANFILE: exit %d\n%s\n%s", code, out, errOut)
		}
		e.gone(t, e.since(m), rg, "2020-06-01", group, out, true)
	})
	// Gone before destroy PLANFILE re-plans: what the plan deletes is gone,
	// which is what deleting it was for: reported already gone, not stale.
	t.Run("saved destroy plan, gone before", func(t *testing.T) {
		t.Parallel()
		e, planFile := savedDestroyPlan(t, stack)
		ctx := testkit.Context(t)
		op, err := emulatorClient(t, e.run).Delete(ctx, rg, "2020-06-01")
		if err == nil {
			_, err = op.Wait(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		m := e.mark()
		out, errOut, code := e.azk(t, "destroy", planFile)
		noDelete(t, "destroy PLANFILE", e.since(m))
		if code != 0 || strings.Contains(errOut, "stale") || !strings.Contains(out, "already gone") {
			t.Errorf("destroy PLANFILE: exit %d, want 0 with the group already gone\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("apply --base/412", func(t *testing.T) {
		t.Parallel()
		e := newDSEnv(t)
		repo, dir := e.appliedRepo(t, docs(dsGroup("pdv", ""), dsIdentity("id1", "pdv"), dsIdentity("id2", "pdv")))
		repo.write("manifests/stack.yaml", stack)
		repo.commit()
		id2 := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id2"
		e.vanish(t, id2, "2023-01-31", true)
		m := e.mark()
		out, errOut, code := e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
		if code != 0 {
			t.Errorf("apply --base: exit %d\n%s\n%s", code, out, errOut)
		}
		e.gone(t, e.since(m), id2, "2023-01-31", "managedidentity.azure.com/UserAssignedIdentity/default/id2", out, true)
	})
}

// pdLocked answers DELETE of id 409 ScopeLocked, as ARM does under a
// delete lock: an error neither azk nor the operator retries.
func pdLocked(id string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodDelete || !strings.EqualFold(r.URL.Path, id) {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"error":{"code":"ScopeLocked","message":"The scope '` + id + `' cannot perform delete operation because following scope(s) are locked."}}`))
		return true
	}
}

// 6: a parent whose DELETE fails takes none of its children: they are not
// attempted, waiting for it, and the summary counts one failure.
func TestDeletionPromiseFailedParentLeavesChildrenNotAttempted(t *testing.T) {
	t.Parallel()
	rg := dsSub + "/resourceGroups/pdf"
	net := rg + "/providers/Microsoft.Network/virtualNetworks/net"
	t.Run("destroy", func(t *testing.T) {
		t.Parallel()
		e := newDSEnv(t)
		dir := writeStack(t, docs(dsGroup("pdf", ""), dsIdentity("id1", "pdf"), dsNetwork("net", "pdf", "10.0.0.0/16")))
		e.mustApply(t, dir)
		e.setFault(pdLocked(rg))
		out, errOut, code := e.azk(t, "destroy", "--auto-approve", dir)
		if code != 1 {
			t.Errorf("destroy: exit %d, want 1\n%s\n%s", code, out, errOut)
		}
		group := "resources.azure.com/ResourceGroup/default/pdf"
		mustContain(t, "destroy", out, "Failed:\n  "+group+": ScopeLocked",
			"managedidentity.azure.com/UserAssignedIdentity/default/id1 (waits for "+group+")",
			"network.azure.com/VirtualNetwork/default/net (waits for "+group+")",
			"Destroy failed! Resources: 0 deleted, 0 deleted by cascade, 0 detached, 1 failed, 2 not attempted.")
		for _, bad := range []string{"Deleted with " + group, "id1: Deletion complete", "net: Deletion complete"} {
			if strings.Contains(out, bad) {
				t.Errorf("destroy reports %q though the group stayed:\n%s", bad, out)
			}
		}
	})
	t.Run("apply --base", func(t *testing.T) {
		t.Parallel()
		e := newDSEnv(t)
		repo, dir := e.appliedRepo(t, docs(dsGroup("pdf", ""), dsNetwork("net", "pdf", "10.0.0.0/16"), dsSubnet("s1", "net", "10.0.1.0/24"), dsSubnet("s2", "net", "10.0.2.0/24")))
		repo.write("manifests/stack.yaml", docs(dsGroup("pdf", "")))
		repo.commit()
		e.setFault(pdLocked(net))
		out, errOut, code := e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir)
		if code != 1 {
			t.Errorf("apply --base: exit %d, want 1\n%s\n%s", code, out, errOut)
		}
		network := "network.azure.com/VirtualNetwork/default/net"
		mustContain(t, "apply --base", out, "Failed:\n  "+network+": ScopeLocked",
			"network.azure.com/VirtualNetworksSubnet/default/s1 (waits for "+network+")",
			"network.azure.com/VirtualNetworksSubnet/default/s2 (waits for "+network+")",
			"Apply failed! Resources: 0 created, 0 updated, 1 failed, 2 not attempted.")
		if strings.Contains(out, "Deleted with "+network) {
			t.Errorf("apply reports subnets deleted with the network that stayed:\n%s", out)
		}
	})
}

// 7: a deployment stack that drops a resource group holding a
// detach-on-delete resource detaches the group: the resource stays.
// Not parallel: its writes would reach the write checks of parallel applies.
func TestDeletionPromiseStackDetachesGroupOfDetachOnDelete(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	kept := strings.Replace(dsIdentity("keep", "pds2"), "  name: keep\n", "  name: keep\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n", 1)
	dir := writeStack(t, docs(dsGroup("pds1", ""), dsGroup("pds2", ""), kept))
	if out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "pds", dir)...); code != 0 {
		t.Fatalf("apply --stack: exit %d\n%s\n%s", code, out, errOut)
	}
	// The group leaves the manifests; the identity stays, its owner by armId.
	byID := strings.Replace(kept, "owner: {name: pds2}", "owner: {armId: "+dsSub+"/resourceGroups/pds2}", 1)
	dir = writeStack(t, docs(dsGroup("pds1", ""), byID))
	out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "pds", dir)...)
	if code != 0 {
		t.Fatalf("apply --stack without the group: exit %d\n%s\n%s", code, out, errOut)
	}
	group := dsSub + "/resourceGroups/pds2"
	mustContain(t, "apply --stack", out, "resource groups detach", "Detached by stack pds (no longer in the manifests, left in Azure): "+group)
	if strings.Contains(out, "Deleted by stack") {
		t.Errorf("the stack deleted something:\n%s", out)
	}
	if getBody(t, run, group, "2020-06-01") == nil || getBody(t, run, group+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/keep", "2023-01-31") == nil {
		t.Error("the group or its detach-on-delete identity is gone")
	}
}

// A property the change adds, which Azure lacks, is this change's: plan
// --base shows it (not as one ARM withholds) and apply --base sends it.
func TestPromiseChangeAddsWhatAzureLacks(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	repo, dir := e.appliedRepo(t, docs(dsGroup("pda", ""), dsNetwork("net", "pda", "10.0.0.0/16")))
	withDNS := strings.Replace(dsNetwork("net", "pda", "10.0.0.0/16"), "spec:\n", "spec:\n  dhcpOptions: {dnsServers: [10.0.0.4]}\n", 1)
	repo.write("manifests/stack.yaml", docs(dsGroup("pda", ""), withDNS))
	repo.commit()
	out, errOut, code := e.azk(t, "plan", "--base", "HEAD~1", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan --base: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	if r := byName["VirtualNetwork/net"]; r == nil || r.Action != planner.ActionUpdate {
		t.Errorf("the network: %+v, want update", r)
	} else if c := changeAt(r, "properties.dhcpOptions"); c == nil || c.Origin != planner.OriginChange || c.Before != nil {
		t.Errorf("properties.dhcpOptions: %+v, want added by this change; changes %+v", c, r.Changes)
	}
	if out, errOut, code := e.azk(t, "apply", "--auto-approve", "--base", "HEAD~1", dir); code != 0 {
		t.Fatalf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	body := getBody(t, e.run, dsSub+"/resourceGroups/pda/providers/Microsoft.Network/virtualNetworks/net", "2020-11-01")
	if dns := testkit.At[[]any](t, body, "properties", "dhcpOptions", "dnsServers"); !reflect.DeepEqual(dns, []any{"10.0.0.4"}) {
		t.Errorf("DNS servers in Azure %v, want [10.0.0.4]", dns)
	}
}

// newDSEnvWith is newDSEnv over an emulator started with opts.
func newDSEnvWith(t *testing.T, opts emulator.Options) *dsEnv {
	t.Helper()
	run, _ := startEmulator(t, opts)
	e := &dsEnv{run: run, heads: map[string][]http.Header{}}
	front := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/_emulator/") {
			return false
		}
		e.mu.Lock()
		e.log = append(e.log, r.Method+" "+r.URL.Path)
		e.mu.Unlock()
		return false
	})
	e.flags = endpointFlags(watchWrites(t, front))
	return e
}

// destroy sends each DELETE only once what depends on the resource is
// gone: the network whose subnet uses a security group before the group.
// The network's DELETE lasts a while, so a group DELETE sent early meets it.
func TestPromiseDestroyDeletesDependentsFirst(t *testing.T) {
	t.Parallel()
	e := newDSEnvWith(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.Network/virtualNetworks", Delete: 300 * time.Millisecond}}})
	nsg := "apiVersion: network.azure.com/v1api20201101\nkind: NetworkSecurityGroup\nmetadata:\n  name: nsg\nspec:\n  location: westus2\n  owner: {name: pdo}\n"
	subnet := dsSubnet("s1", "net", "10.0.1.0/24") + "  networkSecurityGroup:\n    reference: {group: network.azure.com, kind: NetworkSecurityGroup, name: nsg}\n"
	dir := writeStack(t, docs(dsGroup("pdo", "detach-on-delete"), nsg, dsNetwork("net", "pdo", "10.0.0.0/16"), subnet))
	e.mustApply(t, dir)
	m := e.mark()
	out, errOut, code := e.azk(t, "destroy", "--auto-approve", dir)
	if code != 0 {
		t.Fatalf("destroy: exit %d\n%s\n%s", code, out, errOut)
	}
	log := e.since(m)
	rg := dsSub + "/resourceGroups/pdo/providers/Microsoft.Network/"
	del := func(id string) int { return slices.Index(log, "DELETE "+rg+id) }
	// The network is gone once a GET of it answers 404 after its DELETE;
	// the group's DELETE must come after that.
	netGone := -1
	for i := del("virtualNetworks/net") + 1; i < len(log); i++ {
		if strings.Contains(log[i], "/operation") || strings.EqualFold(log[i], "GET "+rg+"virtualNetworks/net") {
			netGone = i
		}
		if i == del("networkSecurityGroups/nsg") {
			break
		}
	}
	if n, g := del("virtualNetworks/net"), del("networkSecurityGroups/nsg"); n < 0 || g < 0 || g < n || netGone < 0 || g < netGone {
		t.Errorf("DELETE order: network at %d (followed to %d), security group at %d; want the group after the network is gone:\n%s", n, netGone, g, strings.Join(log, "\n"))
	}
	noWritesIn(t, "nothing else", slices.DeleteFunc(writesIn(log), func(l string) bool { return strings.HasPrefix(l, "DELETE "+rg) }))
}

// A tag whose value changed only in case is a change, and an emptied list
// is shown reset by the PUT: apply sends both, the next plan is quiet.
func TestPromiseEmptiedListAndTagCaseAreChanges(t *testing.T) {
	t.Parallel()
	e := newDSEnv(t)
	net := func(tag, dns string) string {
		return strings.Replace(dsNetwork("net", "pdl", "10.0.0.0/16"), "spec:\n", "spec:\n  tags: {env: "+tag+"}\n  dhcpOptions: {dnsServers: ["+dns+"]}\n", 1)
	}
	dir := writeStack(t, docs(dsGroup("pdl", ""), net("Prod", "10.0.0.4")))
	e.mustApply(t, dir)
	dir = writeStack(t, docs(dsGroup("pdl", ""), net("prod", "")))
	out, errOut, code := e.azk(t, "plan", "-o", "json", dir)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	_, byName, _ := decodePlan(t, out)
	r := byName["VirtualNetwork/net"]
	if r == nil || r.Action != planner.ActionUpdate {
		t.Fatalf("the network: %+v, want update", r)
	}
	if c := changeAt(r, "tags.env"); c == nil || c.Before != "Prod" || c.After != "prod" {
		t.Errorf("tags.env: %+v, want Prod -> prod", c)
	}
	// An empty list converts to none, as the operator's omitempty does: the
	// PUT resets what Azure holds there, and the plan says so.
	if got := valueAt(r.AzureOnly, "properties.dhcpOptions.dnsServers"); !reflect.DeepEqual(got, []any{"10.0.0.4"}) {
		t.Errorf("dnsServers: %v among what the PUT resets, want [10.0.0.4]; azureOnly %+v", got, r.AzureOnly)
	}
	if out, errOut, code := e.azk(t, "apply", "--auto-approve", dir); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	body := getBody(t, e.run, dsSub+"/resourceGroups/pdl/providers/Microsoft.Network/virtualNetworks/net", "2020-11-01")
	if tags, _ := body["tags"].(map[string]any); tags["env"] != "prod" {
		t.Errorf("tags in Azure %v, want env: prod", tags)
	}
	props, _ := body["properties"].(map[string]any)
	if dhcp, _ := props["dhcpOptions"].(map[string]any); dhcp["dnsServers"] != nil {
		t.Errorf("DNS servers in Azure %v, want none", dhcp["dnsServers"])
	}
	if out, errOut, code := e.azk(t, "plan", "--detailed-exitcode", dir); code != 0 {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

const pdPassword = "pd-Secret-value-1"

// pdServer: a group and a MySQL server whose password comes from the
// Secret pd-admin (in the input unless fromEnv), under drift policy reflect
// when reflect.
func pdServer(fromEnv, reflect bool) string {
	annotations := ""
	if reflect {
		annotations = "  annotations:\n    azk.azkcli.io/drift: reflect\n"
	}
	d := []string{dsGroup("pds", ""),
		"apiVersion: dbformysql.azure.com/v1api20231230\nkind: FlexibleServer\nmetadata:\n  name: db1\n" + annotations + "spec:\n  location: westus2\n  owner: {name: pds}\n  administratorLogin: admin\n  administratorLoginPassword: {name: pd-admin, key: password}\n"}
	if !fromEnv {
		d = append(d, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pd-admin\nstringData:\n  password: "+pdPassword+"\n")
	}
	return docs(d...)
}

const pdServerID = dsSub + "/resourceGroups/pds/providers/Microsoft.DBforMySQL/flexibleServers/db1"

// addingToServerReads is a proxy to target that answers each GET of the
// server with the emulator's body plus add (properties and tags merged),
// as a provider that returns (masked or not) what ARM should not.
func addingToServerReads(t *testing.T, target string, add map[string]any) string {
	return proxyTo(t, target, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.EqualFold(r.URL.Path, pdServerID) {
			return false
		}
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, target+r.URL.RequestURI(), nil)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return true
		}
		defer resp.Body.Close()
		var body map[string]any
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil {
			t.Errorf("reading the server through the proxy: %s", resp.Status)
			w.WriteHeader(http.StatusBadGateway)
			return true
		}
		for key, part := range add {
			into, _ := body[key].(map[string]any)
			if into == nil {
				into = map[string]any{}
				body[key] = into
			}
			for k, v := range part.(map[string]any) {
				into[k] = v
			}
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(body)
		return true
	})
}

// A value Azure returns masked is not a change: the plan after apply is
// quiet with the login and the password masked. (A secret Azure does not
// return at all: TestSendSecrets.)
func TestPromiseMaskedValueIsNoChange(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := writeStack(t, pdServer(false, false))
	if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", dir}, flags...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	masking := endpointFlags(addingToServerReads(t, run.URL, map[string]any{"properties": map[string]any{"administratorLogin": "********", "administratorLoginPassword": "********"}}))
	out, errOut, code := azk(t, "", append([]string{"plan", "--detailed-exitcode", dir}, masking...)...)
	if code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("plan with the login and password masked: exit %d, want 0 and no changes\n%s\n%s", code, out, errOut)
	}
}

// azk refresh --write never writes a secret Azure returns into a manifest:
// a password the manifest no longer sets, which a provider echoes (the plan
// keeps it out), and a value Azure masks (refresh keeps it out).
func TestPromiseRefreshNeverWritesASecret(t *testing.T) {
	const leaked = "Leaked-Secret-value-9"
	run, flags := emulatorAt(t)
	dir := writeStack(t, pdServer(false, true))
	if out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", dir}, flags...)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	manifest := filepath.Join(dir, "stack.yaml")
	without := strings.Replace(pdServer(true, true), "  administratorLoginPassword: {name: pd-admin, key: password}\n", "", 1)
	if err := os.WriteFile(manifest, []byte(without), 0o644); err != nil {
		t.Fatal(err)
	}
	echoing := endpointFlags(addingToServerReads(t, run.URL, map[string]any{
		"properties": map[string]any{"administratorLoginPassword": leaked},
		"tags":       map[string]any{"apikey": "********"},
	}))
	out, errOut, code := azk(t, "", append([]string{"plan", "-o", "json", dir}, echoing...)...)
	if code != 0 || strings.Contains(out+errOut, leaked) || strings.Contains(out, "administratorLoginPassword") {
		t.Errorf("plan: exit %d, or it holds the echoed password\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = azk(t, "", append([]string{"refresh", "--write", dir}, echoing...)...)
	if code != 0 {
		t.Errorf("refresh --write: exit %d\n%s\n%s", code, out, errOut)
	}
	after, _ := os.ReadFile(manifest)
	for _, secret := range []string{leaked, "********", "administratorLoginPassword", "apikey"} {
		if strings.Contains(string(after), secret) {
			t.Errorf("refresh wrote %q into the manifest:\n%s", secret, after)
		}
	}
	if strings.Contains(out+errOut, leaked) {
		t.Errorf("refresh printed the secret:\n%s\n%s", out, errOut)
	}
	mustContain(t, "refresh", out, "azk never writes a secret into a manifest")
}

// A saved plan is refused once a Secret it sends rotated, though the
// manifests did not change (the Secret comes from the environment).
func TestPromiseSavedPlanRefusedAfterSecretRotation(t *testing.T) {
	run, flags := emulatorAt(t)
	t.Setenv("AZK_SECRET_PD_ADMIN_PASSWORD", pdPassword)
	dir := writeStack(t, pdServer(true, false))
	planFile := filepath.Join(t.TempDir(), "plan.azk")
	if out, errOut, code := azk(t, "", append([]string{"plan", "--out", planFile, dir}, flags...)...); code != 0 {
		t.Fatalf("plan --out: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("AZK_SECRET_PD_ADMIN_PASSWORD", "rotated-Secret-value-2")
	out, errOut, code := azk(t, "", append([]string{"apply", planFile}, flags...)...)
	if code != 1 || strings.Contains(out, "Creating...") {
		t.Fatalf("apply of a plan whose Secret rotated: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "refusal", errOut, "the saved plan is stale", "dbformysql.azure.com/FlexibleServer/default/db1: the body to send changed (a secret")
	if strings.Contains(errOut, "the manifests changed") {
		t.Errorf("refused for the manifests, which did not change:\n%s", errOut)
	}
	if getBody(t, run, pdServerID, "2023-12-30") != nil {
		t.Error("the server was created")
	}
}
