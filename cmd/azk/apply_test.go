package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
)

// startEmulator starts an emulator with opts over plain HTTP for one test
// and returns it with the flags that point azk at it.
func startEmulator(t *testing.T, opts emulator.Options) (*emulator.Running, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	run, err := emulator.Start(ctx, opts, "127.0.0.1:0", false)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = run.Close() })
	return run, endpointFlags(run.URL)
}

// endpointFlags point azk at the plain-HTTP emulator at endpoint.
func endpointFlags(endpoint string) []string {
	return []string{"--endpoint", endpoint, "--insecure-http", "--subscription", emulatorSubscription}
}

// emulatorAt starts an emulator over plain HTTP for one test and returns the
// flags that point azk at it, through a proxy that logs the writes it is
// sent (see azk: every apply is checked against its plan).
func emulatorAt(t *testing.T) (*emulator.Running, []string) {
	t.Helper()
	run, _ := startEmulator(t, emulator.Options{})
	return run, endpointFlags(watchWrites(t, run.URL))
}

// azk runs the command line and returns stdout, stderr and the exit code.
// An apply against an emulator started by emulatorAt is checked against
// its plan: it sends no write the plan did not announce, and, when it
// succeeds, every write the plan announced.
func azk(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	log := writeLogFor(args)
	var applied *planner.Plan
	if log != nil {
		log.reset()
		applying = func(p *planner.Plan) { applied = p }
		defer func() { applying = func(*planner.Plan) {} }()
	}
	out, errOut, code := runAzkWithin(t, stdin, args...)
	if log != nil && (applied != nil || args[0] == "apply") {
		// Announced writes are read after the run: a resource named from
		// another's status has its ARM ID only then.
		log.check(t, announcedWrites(applied), announcedReads(applied), announcedOrder(applied), code == 0)
	}
	return out, errOut, code
}

func runAzk(stdin string, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := runAzkTo(&out, &errOut, stdin, args...)
	return out.String(), errOut.String(), code
}

// runAzkWithin is runAzk bounded well inside the package's timeout: a
// command that never ends fails its test, with what it printed so far,
// instead of every test of the package at Go's timeout.
func runAzkWithin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- runAzkTo(&out, &errOut, stdin, args...) }()
	began := time.Now()
	select {
	case code := <-done:
		return out.String(), errOut.String(), code
	case <-testkit.Context(t).Done():
		t.Fatalf("azk %s was still running after %s:\n%s\n%s", strings.Join(args, " "), time.Since(began).Round(time.Second), out.String(), errOut.String())
		return "", "", 0
	}
}

// runAzkTo runs the command line, writing to out and errOut, and returns the exit code.
func runAzkTo(out, errOut io.Writer, stdin string, args ...string) int {
	return runAzkFrom(strings.NewReader(stdin), out, errOut, args...)
}

// runAzkFrom runs azk with stdin as its standard input and returns its exit code.
func runAzkFrom(stdin io.Reader, out, errOut io.Writer, args ...string) int {
	cmd := newRootCommand(stdin, out, errOut)
	cmd.SetArgs(terraformArgs(cmd, args))
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprint(errOut, ee.err.Error())
		}
		return ee.code
	}
	fmt.Fprint(errOut, err.Error())
	return 1
}

// copyExample copies an example folder so a test may change it.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", name, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("example %s: %v", name, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// TestDestroyRefusesToDefeatDetachOnDelete marks the quickstart's blob service
// detach-on-delete: deleting the resource group would remove it anyway, so
// destroy refuses until --allow-cascade.
func TestDestroyRefusesToDefeatDetachOnDelete(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }
	storage := filepath.Join(dir, "storage.yaml")
	data, err := os.ReadFile(storage)
	if err != nil {
		t.Fatal(err)
	}
	annotated := strings.Replace(string(data), "  name: azkquickstartsa-blob\n",
		"  name: azkquickstartsa-blob\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\n", 1)
	if err := os.WriteFile(storage, []byte(annotated), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code := azk(t, "", with("destroy", "--auto-approve", dir)...)
	if code != 1 {
		t.Fatalf("destroy without --allow-cascade: exit %d, want a refusal\n%s", code, out)
	}
	mustContain(t, "refusal", out+errOut, "! storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob", "--allow-cascade")
	out, errOut, code = azk(t, "", with("destroy", "--auto-approve", "--allow-cascade", dir)...)
	if code != 0 {
		t.Fatalf("destroy --allow-cascade: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "destroy output", out, "Destroy complete! Resources: 1 deleted, 8 deleted by cascade, 0 detached, 0 failed.")
}

func TestQuickstartAppliesPlansCleanAndDestroys(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	with := func(args ...string) []string { return append(args, flags...) }

	out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply output", out, "Apply complete! Resources: 9 created, 0 updated, 0 failed.",
		"resources.azure.com/ResourceGroup/default/azk-quickstart: Creation complete after ")

	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 {
		t.Fatalf("plan after apply: exit %d, want 0 (no changes)\n%s\n%s", code, out, errOut)
	}
	out, _, code = azk(t, "", with("apply", "--auto-approve", dir)...)
	if code != 0 || !strings.Contains(out, "No changes. Azure matches the manifests.") {
		t.Fatalf("second apply: exit %d\n%s", code, out)
	}

	out, errOut, code = azk(t, "", with("destroy", "--auto-approve", dir)...)
	if code != 0 {
		t.Fatalf("destroy: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "destroy output", out, "Destroy complete! Resources: 1 deleted, 8 deleted by cascade, 0 detached, 0 failed.")
	out, _, _ = azk(t, "", with("plan", dir)...)
	mustContain(t, "plan after destroy", out, "Plan: 9 to create")
	out, _, code = azk(t, "", with("destroy", "--auto-approve", dir)...)
	if code != 0 || !strings.Contains(out, "Nothing to delete.") {
		t.Errorf("destroying what is gone: exit %d\n%s", code, out)
	}
}

func TestApplyAsksAndRefusesWithoutTerminal(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	out, errOut, code := azk(t, "yes\n", append([]string{"apply", dir}, flags...)...)
	if code != 1 || !strings.Contains(errOut, "no terminal to confirm on: pass --auto-approve") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "Creating...") {
		t.Error("apply wrote without confirmation")
	}
}

func TestApplySavedPlanRefusesWhenStale(t *testing.T) {
	run, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	planFile := filepath.Join(t.TempDir(), "plan.azk")
	with := func(args ...string) []string { return append(args, flags...) }
	if out, errOut, code := azk(t, "", with("plan", dir, "--out", planFile)...); code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}

	// The manifests change after the plan was made.
	rg := filepath.Join(dir, "resourcegroup.yaml")
	original, _ := os.ReadFile(rg)
	if err := os.WriteFile(rg, bytes.Replace(original, []byte("project: azk-quickstart"), []byte("project: moved"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, "", with("apply", planFile)...)
	if code != 1 {
		t.Fatalf("stale plan applied: exit %d\n%s", code, out)
	}
	mustContain(t, "refusal", errOut, "the saved plan is stale", "the manifests changed since the plan was made")
	if strings.Contains(out, "Creating...") {
		t.Fatal("a stale plan was applied")
	}
	if err := os.WriteFile(rg, original, 0o644); err != nil {
		t.Fatal(err)
	}

	// Azure changes after the plan was made.
	if _, _, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatal("apply failed")
	}
	if _, _, code := azk(t, "", with("plan", dir, "--out", planFile)...); code != 0 {
		t.Fatal("plan failed")
	}
	id := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Network/virtualNetworks/quickstart-vnet"
	if err := run.Server.Drift(id, json.RawMessage(`{"tags":{"changed":"portal"}}`)); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = azk(t, "", with("apply", planFile)...)
	if code != 1 {
		t.Fatal("a plan made before Azure changed was applied")
	}
	mustContain(t, "refusal", errOut, "network.azure.com/VirtualNetwork/default/quickstart-vnet: changed in Azure since the plan was made")

	// A fresh saved plan applies without asking.
	if _, _, code := azk(t, "", with("plan", dir, "--out", planFile)...); code != 0 {
		t.Fatal("plan failed")
	}
	out, errOut, code = azk(t, "", with("apply", planFile)...)
	if code != 0 {
		t.Fatalf("fresh saved plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

// The seed's fault-tolerance case: a resource azk creates under
// reconcile-policy-if-exists skip must still be managed on the next run, so
// apply records reconcile-policy: manage in its manifest; one it finds is
// recorded with the if-exists policy. Inputs that cannot be written make
// apply refuse unless --allow-unrecorded-policy.
func TestApplyRecordsTheDecidedPolicy(t *testing.T) {
	run, flags := emulatorAt(t)
	client, err := arm.New(arm.Options{Subscription: emulatorSubscription, Endpoint: run.URL, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testkit.Context(t)
	portal := "/subscriptions/" + emulatorSubscription + "/resourceGroups/from-portal"
	op, err := client.Put(ctx, portal, "2020-06-01", map[string]any{"location": "westus2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	manifest := "# Made in the portal first.\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: from-portal # adopted\n  annotations:\n    serviceoperator.azure.com/reconcile-policy-if-exists: detach-on-delete\nspec:\n  location: westus2\n" +
		"---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: made-by-azk\n  annotations:\n    serviceoperator.azure.com/reconcile-policy-if-exists: skip # never created by hand\nspec:\n  location: westus2\n  tags: {v: \"1\"}\n"
	path := filepath.Join(t.TempDir(), "rg.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}

	// From standard input there is no file to record in: apply refuses, and
	// says so in the plan beforehand.
	out, errOut, code := azk(t, manifest, append([]string{"apply", "--auto-approve", "-"}, flags...)...)
	if code != 1 {
		t.Fatalf("stdin apply: exit %d, want a refusal\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "stdin plan", out, "cannot be written back to -:11 (not a plain file): apply refuses unless --allow-unrecorded-policy")
	mustContain(t, "stdin refusal", errOut, "resources.azure.com/ResourceGroup/default/made-by-azk (serviceoperator.azure.com/reconcile-policy: manage)", "--allow-unrecorded-policy")
	if _, err := client.Get(ctx, "/subscriptions/"+emulatorSubscription+"/resourceGroups/made-by-azk", "2020-06-01"); !arm.IsNotFound(err) {
		t.Fatalf("the refused apply created the group: %v", err)
	}

	out, errOut, code = azk(t, "", append([]string{"apply", "--auto-approve", path}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "apply output", out, "Apply complete! Resources: 1 created, 0 updated, 0 failed.",
		"recorded serviceoperator.azure.com/reconcile-policy: manage in "+path+":11",
		"recorded serviceoperator.azure.com/reconcile-policy: detach-on-delete in "+path+":2")
	got, _ := os.ReadFile(path)
	want := "# Made in the portal first.\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: from-portal # adopted\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: detach-on-delete\nspec:\n  location: westus2\n" +
		"---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: made-by-azk\n  annotations:\n    serviceoperator.azure.com/reconcile-policy: manage\nspec:\n  location: westus2\n  tags: {v: \"1\"}\n"
	if string(got) != want {
		t.Errorf("file after apply:\n%s\nwant:\n%s", got, want)
	}

	// The next run is quiet, and a change to the group azk created is
	// applied: it is managed, not skipped as a found one would be.
	if out, errOut, code := azk(t, "", append([]string{"plan", "--detailed-exitcode", path}, flags...)...); code != 0 {
		t.Fatalf("plan after apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(path, bytes.Replace(got, []byte(`{v: "1"}`), []byte(`{v: "2"}`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = azk(t, "", append([]string{"apply", "--auto-approve", path}, flags...)...)
	if code != 0 {
		t.Fatalf("second apply: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "second apply", out, "~ ResourceGroup default/made-by-azk will be updated in place", "Apply complete! Resources: 0 created, 1 updated, 0 failed.")

	if _, _, code := azk(t, "", append([]string{"destroy", "--auto-approve", path}, flags...)...); code != 0 {
		t.Fatal("destroy failed")
	}
	if _, err := client.Get(ctx, portal, "2020-06-01"); err != nil {
		t.Errorf("the recorded detach-on-delete policy was not honoured by destroy: %v", err)
	}
}

func TestApplyJSONEvents(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	out, errOut, code := azk(t, "", append([]string{"apply", "--auto-approve", "-o", "json", dir}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	types := map[string]int{}
	var last map[string]any
	for _, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not one JSON event per line: %q: %v", line, err)
		}
		types[testkit.At[string](t, ev, "type")]++
		last = ev
	}
	if types["plan"] != 1 || types["start"] != 9 || types["end"] != 9 || types["summary"] != 1 {
		t.Errorf("event counts %v", types)
	}
	if last["type"] != "summary" || last["complete"] != true || last["message"] != "Apply complete! Resources: 9 created, 0 updated, 0 failed." {
		t.Errorf("last event %v", last)
	}
}

// lockedBuffer is written by the command while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// interruptOn sends this process SIGINT, as Ctrl-C does, once out shows
// text, and reports when it did. Once the command has returned (stop), it
// gives up: a signal sent later would hit another test.
func interruptOn(out *lockedBuffer, text string) (sent <-chan time.Time, stop func()) {
	at := make(chan time.Time, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if strings.Contains(out.String(), text) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		at <- time.Now()
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	var once sync.Once
	return at, func() { once.Do(func() { close(done) }) }
}

func TestApplyFirstInterruptDrains(t *testing.T) {
	_, flags := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.Storage/storageAccounts", Write: time.Second}}})
	dir := copyExample(t, "quickstart")
	var out, errOut lockedBuffer
	cmd := newRootCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(append([]string{"apply", "--auto-approve", dir}, flags...))
	_, stop := interruptOn(&out, "storage.azure.com/StorageAccount/default/azkquickstartsa: Creating...")
	err := cmd.Execute()
	stop()
	if err == nil {
		t.Fatal("an interrupted apply exited 0")
	}
	mustContain(t, "stdout", out.String(),
		"storage.azure.com/StorageAccount/default/azkquickstartsa: Creation complete after 1s",
		"storage.azure.com/StorageAccountsBlobService/default/azkquickstartsa-blob (stopped by the interrupt)",
		"Apply interrupted! Resources: ")
	mustContain(t, "stderr", errOut.String(), "Interrupt: no new work will start; waiting up to 2m0s for ", "operations in flight. Press Ctrl-C again to stop at once.")
}

func TestSecondInterruptListsOperationsInFlight(t *testing.T) {
	f := &inFlight{started: map[string]applier.Event{}, at: map[string]time.Time{}}
	id := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa"
	f.note(applier.Event{Type: applier.EventStart, Address: "storage.azure.com/StorageAccount/default/sa", ARMID: id, Method: "PUT"})
	f.note(applier.Event{Type: applier.EventStart, Address: "done", ARMID: "/x", Method: "PUT"})
	f.note(applier.Event{Type: applier.EventEnd, Address: "done"})
	var b bytes.Buffer
	f.write(&b)
	mustContain(t, "in-flight list", b.String(), "PUT "+id+" (storage.azure.com/StorageAccount/default/sa, for 0s)", "check: az resource show --ids "+id)
	if strings.Contains(b.String(), "/x") {
		t.Errorf("an ended operation is listed:\n%s", b.String())
	}
}
