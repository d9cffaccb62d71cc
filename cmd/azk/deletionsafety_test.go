package main

// Acceptance matrix for safe deletion (issue 33), end to end against the
// emulator. Every request azk sends goes through a recording proxy (dsEnv),
// so each case can tell from the wire that no DELETE reached anything its
// plan did not announce.

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

const dsSub = "/subscriptions/" + emulatorSubscription

// dsEnv is an emulator behind a proxy that records every request and can
// answer some itself (fault). The proxy sits behind watchWrites, so azk's
// own apply-versus-plan check still runs on every apply and destroy.
type dsEnv struct {
	run   *emulator.Running
	flags []string

	mu    sync.Mutex
	log   []string                 // "METHOD /path", in order
	heads map[string][]http.Header // "METHOD /lower/path" -> headers of each request
	fault func(http.ResponseWriter, *http.Request) bool
}

func newDSEnv(t *testing.T) *dsEnv {
	t.Helper()
	run, _ := startEmulator(t, emulator.Options{})
	e := &dsEnv{run: run, heads: map[string][]http.Header{}}
	front := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/_emulator/") {
			return false
		}
		e.mu.Lock()
		e.log = append(e.log, r.Method+" "+r.URL.Path)
		key := r.Method + " " + strings.ToLower(r.URL.Path)
		e.heads[key] = append(e.heads[key], r.Header.Clone())
		fault := e.fault
		e.mu.Unlock()
		return fault != nil && fault(w, r)
	})
	e.flags = endpointFlags(watchWrites(t, front))
	return e
}

func (e *dsEnv) with(args ...string) []string { return append(args, e.flags...) }

// applyMu serializes applies and destroys: azk's check of each against
// its plan hooks a package variable (applying), which parallel runs would
// share. Plans, which do not touch it, run in parallel.
var applyMu sync.Mutex

// azk runs azk against e with args (then e's flags).
func (e *dsEnv) azk(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if args[0] == "apply" || args[0] == "destroy" {
		applyMu.Lock()
		defer applyMu.Unlock()
	}
	return azk(t, "", e.with(args...)...)
}

func (e *dsEnv) setFault(f func(http.ResponseWriter, *http.Request) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fault = f
}

// mark is where the log stands; since returns what came after it.
func (e *dsEnv) mark() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.log)
}

func (e *dsEnv) since(mark int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log[mark:]...)
}

func (e *dsEnv) headers(method, path string) []http.Header {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.heads[method+" "+strings.ToLower(path)]
}

// writesIn are the requests of log other than GET and HEAD.
func writesIn(log []string) []string {
	var out []string
	for _, l := range log {
		if !strings.HasPrefix(l, "GET ") && !strings.HasPrefix(l, "HEAD ") {
			out = append(out, l)
		}
	}
	return out
}

func deletesIn(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.HasPrefix(l, "DELETE ") {
			out = append(out, l)
		}
	}
	return out
}

// announcedDeletes are the lower-cased ARM IDs a plan JSON says apply
// sends a DELETE for: delete or replace without cascadedBy.
func announcedDeletes(t *testing.T, planJSON string) map[string]bool {
	t.Helper()
	p, _, _ := decodePlan(t, planJSON)
	out := map[string]bool{}
	for _, r := range p.Resources {
		if r.Deletes() {
			out[strings.ToLower(r.ARMID)] = true
		}
	}
	return out
}

// noUnannouncedDelete fails for any DELETE in log the plan did not announce.
func noUnannouncedDelete(t *testing.T, log []string, announced map[string]bool) {
	t.Helper()
	for _, d := range deletesIn(log) {
		if !announced[strings.ToLower(strings.TrimPrefix(d, "DELETE "))] {
			t.Errorf("sent %s, which the plan did not announce (announced: %v)", d, announced)
		}
	}
}

// noDelete fails for any DELETE in log.
func noDelete(t *testing.T, what string, log []string) {
	t.Helper()
	if d := deletesIn(log); len(d) > 0 {
		t.Errorf("%s sent DELETEs: %v", what, d)
	}
}

// dsRepo is a git repository whose files a test writes and commits.
type dsRepo struct {
	t   *testing.T
	dir string
}

func newDSRepo(t *testing.T) *dsRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: --base GITREF needs it")
	}
	r := &dsRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q")
	return r
}

// appliedRepo is a git repository whose first commit holds stack at
// manifests/stack.yaml, applied through e; it returns the repository and
// the manifests' folder.
func (e *dsEnv) appliedRepo(t *testing.T, stack string) (*dsRepo, string) {
	t.Helper()
	repo := newDSRepo(t)
	repo.write("manifests/stack.yaml", stack)
	repo.commit()
	dir := repo.path("manifests")
	e.mustApply(t, dir)
	return repo, dir
}

func (r *dsRepo) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=azk", "-c", "user.email=azk@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// write sets a file of the repository (relative path); "" removes it.
func (r *dsRepo) write(rel, content string) {
	r.t.Helper()
	path := filepath.Join(r.dir, rel)
	if content == "" {
		if err := os.Remove(path); err != nil {
			r.t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *dsRepo) commit() {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", "change")
}

// path is the absolute path of rel in the repository.
func (r *dsRepo) path(rel string) string { return filepath.Join(r.dir, rel) }

// docs joins YAML documents.
func docs(d ...string) string { return strings.Join(d, "---\n") }

func dsGroup(name, annotation string) string {
	s := "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: " + name + "\n"
	if annotation != "" {
		s += "  annotations:\n    serviceoperator.azure.com/reconcile-policy: " + annotation + "\n"
	}
	return s + "spec:\n  location: westus2\n"
}

func dsNetwork(name, owner, prefix string) string {
	return "apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetwork\nmetadata:\n  name: " + name + "\nspec:\n  location: westus2\n  owner: {name: " + owner + "}\n  addressSpace: {addressPrefixes: [" + prefix + "]}\n"
}

func dsSubnet(name, owner, prefix string) string {
	return "apiVersion: network.azure.com/v1api20201101\nkind: VirtualNetworksSubnet\nmetadata:\n  name: " + name + "\nspec:\n  owner: {name: " + owner + "}\n  addressPrefix: " + prefix + "\n"
}

// dsAccount is a StorageAccount; azureName, when set, is its Azure name.
func dsAccount(name, owner, azureName string) string {
	s := "apiVersion: storage.azure.com/v1api20230101\nkind: StorageAccount\nmetadata:\n  name: " + name + "\nspec:\n  location: westus2\n  kind: StorageV2\n  sku: {name: Standard_LRS}\n  owner: {name: " + owner + "}\n"
	if azureName != "" {
		s += "  azureName: " + azureName + "\n"
	}
	return s
}

func dsBlobService(name, owner string) string {
	return "apiVersion: storage.azure.com/v1api20230101\nkind: StorageAccountsBlobService\nmetadata:\n  name: " + name + "\nspec:\n  owner: {name: " + owner + "}\n"
}

func dsContainer(name, owner string) string {
	return "apiVersion: storage.azure.com/v1api20230101\nkind: StorageAccountsBlobServicesContainer\nmetadata:\n  name: " + name + "\nspec:\n  owner: {name: " + owner + "}\n"
}

func dsIdentity(name, owner string) string {
	return "apiVersion: managedidentity.azure.com/v1api20230131\nkind: UserAssignedIdentity\nmetadata:\n  name: " + name + "\nspec:\n  location: westus2\n  owner: {name: " + owner + "}\n"
}

// mustApply applies dir (extra flags first) and fails the test unless it succeeds.
func (e *dsEnv) mustApply(t *testing.T, extra ...string) {
	t.Helper()
	if out, errOut, code := e.azk(t, append([]string{"apply", "--auto-approve"}, extra...)...); code != 0 {
		t.Fatalf("setup apply: exit %d\n%s\n%s", code, out, errOut)
	}
}

// cascadeOn finds, in a plan JSON, the cascade whose armId is id (any case)
// and the resource carrying it.
func cascadeOn(t *testing.T, planJSON, id string) (*planner.Resource, *planner.Cascade) {
	t.Helper()
	p, _, _ := decodePlan(t, planJSON)
	for _, r := range p.Resources {
		for i := range r.Cascades {
			if strings.EqualFold(r.Cascades[i].ID, id) {
				return r, &r.Cascades[i]
			}
		}
	}
	return nil, nil
}

// dsFault answers a GET of path (the collection listed) with kind: 403,
// 500, a cut connection, or one held open a while and then cut (the
// client has no per-request timeout, so a true hang would never end).
func dsFault(path, kind string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.EqualFold(strings.TrimSuffix(r.URL.Path, "/"), path) {
			return false
		}
		switch kind {
		case "403":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":{"code":"AuthorizationFailed","message":"The client does not have authorization to perform action 'read' over scope '` + path + `'."}}`))
		case "500":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"code":"InternalServerError","message":"injected"}}`))
		case "cut", "hang":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err)
			}
			if kind == "hang" {
				time.Sleep(100 * time.Millisecond)
			}
			_ = conn.Close()
		}
		return true
	}
}

// A: listing the children of a resource to delete fails. The plan must
// say so as a cascade ("could not list", armId the collection), and apply
// and destroy must refuse without --allow-cascade and send no DELETE.
func TestDeletionSafetyListingFaults(t *testing.T) {
	t.Parallel()
	rg := dsSub + "/resourceGroups/dsa"
	levels := []struct {
		name, collection, kind, deleted, replace string
	}{
		{"group", rg + "/resources", "ResourceGroup", "dsa", "ResourceGroup/dsa"},
		{"network", rg + "/providers/Microsoft.Network/virtualNetworks/net/subnets", "VirtualNetwork", "net", "VirtualNetwork/net"},
		{"account", rg + "/providers/Microsoft.Storage/storageAccounts/dsaacct/blobServices/default/containers", "StorageAccount", "dsaacct", "StorageAccount/dsaacct"},
	}
	// stack holds every level; below the group level the group is
	// detach-on-delete so destroy deletes the network and account on their own.
	stack := func(level string, removed bool) string {
		policy := "detach-on-delete"
		if level == "group" {
			policy = ""
		}
		d := []string{dsGroup("dskeep", "")}
		if !(removed && level == "group") {
			d = append(d, dsGroup("dsa", policy))
			if !(removed && level == "network") {
				d = append(d, dsNetwork("net", "dsa", "10.0.0.0/16"), dsSubnet("s1", "net", "10.0.1.0/24"))
			}
			if !(removed && level == "account") {
				d = append(d, dsAccount("dsaacct", "dsa", ""), dsBlobService("dsaacct-blob", "dsaacct"), dsContainer("cont1", "dsaacct-blob"))
			}
		}
		return docs(d...)
	}
	for _, lv := range levels {
		for _, fault := range []string{"403", "500", "cut", "hang"} {
			for _, cmd := range []string{"removal", "replace", "destroy"} {
				t.Run(lv.name+"/"+fault+"/"+cmd, func(t *testing.T) {
					t.Parallel()
					e := newDSEnv(t)
					repo, dir := e.appliedRepo(t, stack(lv.name, false))
					if cmd == "removal" {
						repo.write("manifests/stack.yaml", stack(lv.name, true))
						repo.commit()
					}
					e.setFault(dsFault(lv.collection, fault))
					// Few, short retries: a 500 on every attempt must not take a minute.
					retry := []string{"--retry-max-attempts", "2", "--retry-max-delay", "10ms"}
					var planArgs, runArgs []string
					switch cmd {
					case "removal":
						planArgs = []string{"plan", "--base", "HEAD~1", dir}
						runArgs = []string{"apply", "--auto-approve", "--base", "HEAD~1", dir}
					case "replace":
						planArgs = []string{"plan", "-replace=" + lv.replace, dir}
						runArgs = []string{"apply", "--auto-approve", "-replace=" + lv.replace, dir}
					case "destroy":
						planArgs = []string{"plan", "--destroy", dir}
						runArgs = []string{"destroy", "--auto-approve", dir}
					}
					m := e.mark()
					out, errOut, code := e.azk(t, append(append(planArgs, "-o", "json"), retry...)...)
					if code != 0 {
						t.Fatalf("%v: exit %d, want 0\n%s\n%s", planArgs, code, out, errOut)
					}
					if !strings.Contains(strings.Join(e.since(m), "\n"), "GET "+lv.collection) {
						t.Fatalf("the plan never listed %s: the fault was not exercised", lv.collection)
					}
					announced := announcedDeletes(t, out)
					_, byName, _ := decodePlan(t, out)
					r := byName[lv.kind+"/"+lv.deleted]
					found := false
					if r != nil {
						for _, c := range r.Cascades {
							if strings.HasPrefix(c.Reason, "could not list") && strings.EqualFold(c.ID, lv.collection) {
								found = true
							}
						}
					}
					if !found {
						t.Errorf("%s/%s carries no cascade \"could not list\" with armId %s: %+v", lv.kind, lv.deleted, lv.collection, r)
					}
					mustContain(t, "plan stderr", errOut, "--allow-cascade")
					_, errOut, code = e.azk(t, append(append([]string{"plan", "--detailed-exitcode"}, planArgs[1:]...), retry...)...)
					if code != 1 {
						t.Errorf("plan --detailed-exitcode: exit %d, want 1 (the cascade guard refuses it)\n%s", code, errOut)
					}

					m = e.mark()
					out, errOut, code = e.azk(t, append(runArgs, retry...)...)
					log := e.since(m)
					noUnannouncedDelete(t, log, announced)
					want := "nothing was applied"
					if cmd == "destroy" {
						want = "--allow-cascade"
					}
					if code != 1 || !strings.Contains(errOut, want) {
						t.Errorf("%v without --allow-cascade: exit %d, want 1 with %q\n%s\n%s", runArgs, code, want, out, errOut)
					}
					noDelete(t, "the refused run", log)

					m = e.mark()
					out, errOut, code = e.azk(t, append(append(runArgs, "--allow-cascade"), retry...)...)
					log = e.since(m)
					noUnannouncedDelete(t, log, announced)
					if code != 0 {
						t.Errorf("%v --allow-cascade: exit %d, want 0\n%s\n%s", runArgs, code, out, errOut)
					}
				})
			}
		}
	}
}

// B: the four default services of a storage account hold data the
// manifests do not: a container, a share, a queue and a table made behind
// azk's back. Deleting the account takes them; the plan must say so.
func TestDeletionSafetyStorageDefaultServices(t *testing.T) {
	t.Parallel()
	acct := dsSub + "/resourceGroups/dsb/providers/Microsoft.Storage/storageAccounts/dsbacct"
	children := []string{
		acct + "/blobServices/default/containers/cont1",
		acct + "/fileServices/default/shares/share1",
		acct + "/queueServices/default/queues/queue1",
		acct + "/tableServices/default/tables/table1",
	}
	for _, cmd := range []string{"removal", "replace", "destroy"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			e := newDSEnv(t)
			repo, dir := e.appliedRepo(t, docs(dsGroup("dsb", ""), dsAccount("dsbacct", "dsb", "")))
			client := emulatorClient(t, e.run)
			for _, id := range children {
				putAndWait(t, client, id, "2023-01-01", map[string]any{"properties": map[string]any{}})
			}
			var planArgs, runArgs []string
			switch cmd {
			case "removal":
				repo.write("manifests/stack.yaml", dsGroup("dsb", ""))
				repo.commit()
				planArgs = []string{"plan", "--base", "HEAD~1", "-o", "json", dir}
				runArgs = []string{"apply", "--auto-approve", "--base", "HEAD~1", dir}
			case "replace":
				planArgs = []string{"plan", "-replace=StorageAccount/dsbacct", "-o", "json", dir}
				runArgs = []string{"apply", "--auto-approve", "-replace=StorageAccount/dsbacct", dir}
			case "destroy":
				planArgs = []string{"plan", "--destroy", "-o", "json", dir}
				runArgs = []string{"destroy", "--auto-approve", dir}
			}
			out, errOut, code := e.azk(t, planArgs...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s\n%s", planArgs, code, out, errOut)
			}
			announced := announcedDeletes(t, out)
			for _, id := range children {
				if _, c := cascadeOn(t, out, id); c == nil || c.Reason != planner.CascadeNotInInput {
					t.Errorf("no cascade %q for %s: %+v", planner.CascadeNotInInput, id, c)
				}
			}
			m := e.mark()
			out, errOut, code = e.azk(t, runArgs...)
			log := e.since(m)
			noUnannouncedDelete(t, log, announced)
			noDelete(t, "the run without --allow-cascade", log)
			if code != 1 {
				t.Errorf("%v without --allow-cascade: exit %d, want 1\n%s\n%s", runArgs, code, out, errOut)
			}
			for _, id := range children {
				if getBody(t, e.run, id, "2023-01-01") == nil {
					t.Errorf("%s was deleted", id)
				}
			}
		})
	}
}
