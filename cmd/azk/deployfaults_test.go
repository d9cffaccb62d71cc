package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/deployment"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/registry"
)

// The fault matrix of --engine deployment: each configuration of faults the
// direct engine is tested under (throttling, ARM's rate limits, transient
// errors, replication lag, long operations, conflicts, all of them at once,
// injected failures, an interrupt, an emulator killed mid-run) applied to the
// examples. In every cell the first run converges, or, where the faults make
// it fail or stop, reports exactly: each resource's outcome is checked
// against the deployment operations ARM recorded (created or updated only if
// its operation succeeded; failed only if it did not; still running only
// while ARM still ran the deployment). The re-run then converges and the
// re-plan exits 0.
//
// By default each configuration runs on one example, the examples rotating
// so that each is covered; AZK_FAULT_MATRIX=full runs every configuration on
// every example (some minutes).

// faultExamples are the examples the matrix applies.
var faultExamples = []string{"quickstart", "aks-workload-identity", "postgres-app", "redis-app", "cosmos-workload-identity", "storage-keyvault-webapp"}

// faultConfig is one row of the matrix.
type faultConfig struct {
	name string
	// opts start the emulator; their faults hold for the whole cell unless
	// failures is set.
	opts emulator.Options
	// failures injects a failure into one type of the example's first run,
	// then clears it: the first run fails by design.
	failures bool
	// stop interrupts azk (interrupt) or kills the emulator (kill) once the
	// first run has resources done and others in flight.
	stop string
}

func faultConfigs() []faultConfig {
	// Operations last as the recordings show, 100 times faster: the faults
	// meet polls of long-running operations as well as writes.
	timed := func(seed int64, f emulator.Faults) emulator.Options {
		return emulator.Options{Seed: seed, RecordedTiming: true, TimeCompression: 100, Faults: f}
	}
	inFlight := []emulator.LRORule{{Type: "*", Write: 800 * time.Millisecond}}
	return []faultConfig{
		{name: "throttling", opts: timed(1, emulator.Faults{ThrottleRate: 0.2})},
		{name: "rate-limits", opts: timed(2, emulator.Faults{
			ReadLimit: emulator.RateLimit{Burst: 20, PerSecond: 20}, WriteLimit: emulator.RateLimit{Burst: 4, PerSecond: 4}})},
		{name: "transient", opts: timed(3, emulator.Faults{TransientRate: 0.2})},
		// Every write into a new group fails for a second.
		{name: "replication-lag", opts: timed(4, emulator.Faults{ReplicationLag: time.Second})},
		{name: "long-operations", opts: timed(5, emulator.Faults{})},
		{name: "conflicts", opts: emulator.Options{Seed: 6, LRO: []emulator.LRORule{{Type: "Microsoft.Network/*", Write: 300 * time.Millisecond}},
			Faults: emulator.Faults{ConflictTypes: []string{"Microsoft.Network/virtualNetworks/subnets"}}}},
		{name: "all-at-once", opts: timed(7, emulator.Faults{ThrottleRate: 0.1, TransientRate: 0.1, ReplicationLag: time.Second, ReplicationLagRate: 0.5,
			ConflictTypes: []string{"Microsoft.Network/virtualNetworks/subnets"}})},
		{name: "injected-failure", opts: emulator.Options{Seed: 8}, failures: true},
		{name: "interrupt", opts: emulator.Options{LRO: inFlight}, stop: "interrupt"},
		{name: "emulator-kill", opts: emulator.Options{LRO: inFlight}, stop: "kill"},
	}
}

// faultRow is one cell's result, for the matrix the test logs.
type faultRow struct {
	config, example, first, rerun, replan string
	took                                  time.Duration
}

func TestDeploymentEngineUnderFaults(t *testing.T) {
	restore := followEvery
	t.Cleanup(func() { followEvery = restore })
	followEvery = 100 * time.Millisecond
	full := os.Getenv("AZK_FAULT_MATRIX") == "full"
	var (
		mu   sync.Mutex
		rows []faultRow
	)
	for i, fc := range faultConfigs() {
		examples := []string{faultExamples[i%len(faultExamples)]}
		if full {
			examples = faultExamples
		}
		for _, ex := range examples {
			t.Run(fc.name+"/"+ex, func(t *testing.T) {
				if fc.stop == "" {
					// An interrupt is a signal to the whole process, and a
					// kill restarts a port: those run alone.
					t.Parallel()
				}
				row := runFaultCell(t, fc, ex)
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
			})
		}
	}
	t.Cleanup(func() {
		sort.Slice(rows, func(i, j int) bool { return rows[i].config+rows[i].example < rows[j].config+rows[j].example })
		var b strings.Builder
		fmt.Fprintf(&b, "fault matrix, --engine deployment:\n| configuration | example | first run | re-run | re-plan | time |\n|---|---|---|---|---|---|\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1fs |\n", r.config, r.example, r.first, r.rerun, r.replan, r.took.Seconds())
		}
		t.Log(b.String())
	})
}

// faultCell is the emulator of one cell, in this process or (for a kill) in a child.
type faultCell struct {
	t      *testing.T
	flags  []string
	client *arm.Client
	admin  *emulator.AdminClient
	child  *emulatorChild
}

func runFaultCell(t *testing.T, fc faultConfig, example string) faultRow {
	started := time.Now()
	row := faultRow{config: fc.name, example: example}
	c := &faultCell{t: t}
	if fc.stop == "kill" {
		c.child = startEmulatorChild(t, fc.opts)
		c.flags = endpointFlags(c.child.url)
		c.client = clientAt(t, c.child.url)
		c.admin = &emulator.AdminClient{BaseURL: c.child.url, Token: c.child.token}
	} else {
		run, flags := startEmulator(t, fc.opts)
		c.flags, c.client, c.admin = flags, emulatorClient(t, run), run.AdminClient()
	}
	dir := copyExample(t, example)
	_, p := planOf(t, c.flags, dir)
	if fc.failures {
		rule := failureTarget(p)
		if err := c.admin.SetFaults(context.Background(), emulator.Faults{Failures: []emulator.FailureRule{{Type: rule, After: 20 * time.Millisecond, Code: "InjectedFailure", Message: "the fault matrix fails this type"}}}); err != nil {
			t.Fatal(err)
		}
	}
	first, stoppedAt, code := c.firstRun(fc, dir)
	submitted := c.deploymentIDs(p)
	rerun := func() {
		out, errOut, code := runAzk("", append([]string{"apply", "--auto-approve", "--engine", "deployment", dir}, c.flags...)...)
		switch {
		case code != 0:
			t.Errorf("re-run: exit %d\n%s\n%s", code, out, errOut)
			row.rerun = fmt.Sprintf("exit %d", code)
		case fc.stop == "interrupt" && !strings.Contains(errOut, "submitted by an earlier run, is still running in Azure: waiting for it to end"):
			// Right after the interrupt, the deployment still runs: the
			// re-run must read it, wait for it and plan from what it wrote.
			t.Errorf("the re-run after the interrupt did not wait for the deployment still running:\n%s", errOut)
			row.rerun = "converged, racing the earlier deployment"
		case fc.stop == "interrupt":
			row.rerun = "converged (after waiting for the earlier deployment)"
		default:
			row.rerun = "converged"
		}
	}
	if fc.stop == "interrupt" {
		rerun()
	}
	truth := c.operationTruth(submitted)
	row.first = checkReport(t, fc, p, first, truth, c.written(p), stoppedAt, code)
	if fc.failures {
		if err := c.admin.SetFaults(context.Background(), emulator.Faults{}); err != nil {
			t.Fatal(err)
		}
	}
	if fc.stop != "interrupt" {
		rerun()
	}
	if out, errOut, code := runAzk("", append([]string{"plan", "--detailed-exitcode", dir}, c.flags...)...); code != 0 {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
		row.replan = fmt.Sprintf("exit %d", code)
	} else {
		row.replan = "exit 0"
	}
	row.took = time.Since(started)
	return row
}

// failureTarget is the type the injected-failure cell fails: one with a
// child in the plan, so that the report also has resources not attempted.
func failureTarget(p *planner.Plan) string {
	var fallback string
	for _, r := range p.Resources {
		if !r.Writes() || strings.EqualFold(r.ARMType, "Microsoft.Resources/resourceGroups") {
			continue
		}
		if fallback == "" {
			fallback = r.ARMType
		}
		for _, o := range p.Resources {
			if strings.HasPrefix(strings.ToLower(o.ARMID), strings.ToLower(r.ARMID)+"/") {
				return r.ARMType
			}
		}
	}
	return fallback
}

// firstRun applies with -o json and returns each resource's reported
// outcome, when azk stopped (returned), and the exit code. An interrupt or
// a kill is made once a resource is done and another in flight.
func (c *faultCell) firstRun(fc faultConfig, dir string) (map[string]applier.Outcome, time.Time, int) {
	t := c.t
	var out, errOut lockedBuffer
	cmd := newRootCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(terraformArgs(cmd, append([]string{"apply", "--auto-approve", "--engine", "deployment", "-o", "json", dir}, c.flags...)))
	stopped := make(chan struct{})
	var wg sync.WaitGroup
	if fc.stop != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !midRun(out.String()) {
				select {
				case <-stopped:
					t.Errorf("the run ended before it had a resource done and another in flight: no %s was made", fc.stop)
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
			if fc.stop == "interrupt" {
				_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
				return
			}
			// A moment later, so that the writes in flight reached the
			// store: the restarted emulator must read them as written.
			time.Sleep(200 * time.Millisecond)
			c.child.kill()
			c.child = startEmulatorChildAt(t, c.child)
		}()
	}
	err := cmd.Execute()
	at := time.Now()
	close(stopped)
	wg.Wait()
	code := 0
	if err != nil {
		code = 1
	}
	if os.Getenv("AZK_FAULT_DEBUG") != "" {
		t.Logf("first run:\n%s\n%s", out.String(), errOut.String())
	}
	return parseOutcomes(t, out.String()), at, code
}

// midRun reports whether JSON progress shows a resource done and another started, not done.
func midRun(events string) bool {
	started, ended := map[string]bool{}, 0
	for _, line := range strings.Split(events, "\n") {
		var e struct {
			Type    applier.EventType `json:"type"`
			Address string            `json:"address"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e.Type {
		case applier.EventStart:
			started[e.Address] = true
		case applier.EventEnd:
			delete(started, e.Address)
			ended++
		}
	}
	return ended > 0 && len(started) > 0
}

// parseOutcomes reads each resource's outcome from -o json progress: the
// end events, then the summary's problems (not attempted, still running).
func parseOutcomes(t *testing.T, events string) map[string]applier.Outcome {
	out := map[string]applier.Outcome{}
	summary := false
	for _, line := range strings.Split(events, "\n") {
		var e struct {
			Type     applier.EventType `json:"type"`
			Address  string            `json:"address"`
			Outcome  applier.Outcome   `json:"outcome"`
			Problems []struct {
				Address string          `json:"address"`
				Outcome applier.Outcome `json:"outcome"`
			} `json:"problems"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e.Type {
		case applier.EventEnd:
			out[e.Address] = e.Outcome
		case applier.EventSummary:
			summary = true
			for _, p := range e.Problems {
				out[p.Address] = p.Outcome
			}
		}
	}
	if !summary {
		t.Errorf("the run wrote no summary:\n%s", events)
	}
	return out
}

// opTruth is what ARM recorded of a resource's write: its operation's state,
// and when the deployment holding it ended.
type opTruth struct {
	state           string
	deploymentEnded time.Time
}

// deploymentIDs lists the deployments at the plan's scopes.
func (c *faultCell) deploymentIDs(p *planner.Plan) []string {
	t := c.t
	ctx := context.Background()
	scopes := map[string]bool{"/subscriptions/" + emulatorSubscription: true}
	for _, r := range p.Resources {
		if id, err := armid.Parse(r.ARMID); err == nil && id.ResourceGroup != "" {
			scopes["/subscriptions/"+emulatorSubscription+"/resourceGroups/"+id.ResourceGroup] = true
		}
	}
	var out []string
	c.withoutFaults(func() {
		for s := range scopes {
			items, err := c.client.List(ctx, s+"/providers/Microsoft.Resources/deployments", deployment.APIVersion)
			if arm.IsNotFound(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, raw := range items {
				var d struct{ ID string }
				if err := json.Unmarshal(raw, &d); err != nil {
					t.Fatal(err)
				}
				out = append(out, d.ID)
			}
		}
	})
	return out
}

// written reads which of the plan's resources Azure holds, succeeded, by
// lower-cased ID.
func (c *faultCell) written(p *planner.Plan) map[string]bool {
	out := map[string]bool{}
	c.withoutFaults(func() {
		for _, r := range p.Resources {
			resp, err := c.client.Get(context.Background(), r.ARMID, r.APIVersion)
			if arm.IsNotFound(err) {
				continue
			}
			if err != nil {
				c.t.Fatal(err)
			}
			var body struct {
				Properties struct{ ProvisioningState string }
			}
			if json.Unmarshal(resp.Body, &body) == nil && (body.Properties.ProvisioningState == "" || body.Properties.ProvisioningState == "Succeeded") {
				out[strings.ToLower(r.ARMID)] = true
			}
		}
	})
	return out
}

// withoutFaults runs f, the test's own reads, with no faults in force.
func (c *faultCell) withoutFaults(f func()) {
	ctx := context.Background()
	kept, err := c.admin.Faults(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.admin.SetFaults(ctx, emulator.Faults{}); err != nil {
		c.t.Fatal(err)
	}
	defer func() {
		if err := c.admin.SetFaults(ctx, kept); err != nil {
			c.t.Fatal(err)
		}
	}()
	f()
}

// operationTruth waits for the deployments to end and reads each write's
// operation in them and their nested deployments, by lower-cased target ID.
func (c *faultCell) operationTruth(deployments []string) map[string]opTruth {
	out := map[string]opTruth{}
	c.withoutFaults(func() {
		visited := map[string]bool{}
		for _, id := range deployments {
			c.readTruth(id, out, visited)
		}
	})
	return out
}

func (c *faultCell) readTruth(id string, out map[string]opTruth, visited map[string]bool) {
	t := c.t
	ctx := context.Background()
	if visited[strings.ToLower(id)] {
		return
	}
	visited[strings.ToLower(id)] = true
	var d struct {
		Properties struct{ ProvisioningState, Timestamp string }
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := c.client.Get(ctx, id, deployment.APIVersion)
		if arm.IsNotFound(err) {
			return // a nested deployment ARM could not start
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(resp.Body, &d); err != nil {
			t.Fatal(err)
		}
		if st := d.Properties.ProvisioningState; st == "Succeeded" || st == "Failed" || st == "Canceled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still running 30s after the first run", id)
		}
	}
	ended, _ := time.Parse(time.RFC3339Nano, d.Properties.Timestamp)
	ops, err := c.client.List(ctx, id+"/operations", deployment.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range ops {
		var op struct {
			Properties struct {
				ProvisioningState string
				TargetResource    struct{ ID, ResourceType string }
			}
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatal(err)
		}
		pr := op.Properties
		if strings.EqualFold(pr.TargetResource.ResourceType, "Microsoft.Resources/deployments") {
			c.readTruth(pr.TargetResource.ID, out, visited)
			continue
		}
		out[strings.ToLower(pr.TargetResource.ID)] = opTruth{state: pr.ProvisioningState, deploymentEnded: ended}
	}
}

// checkReport checks the first run's report against ARM's record (the
// operations) and Azure's (written: the resources that exist, succeeded; a
// create reported failed must not be there), and says how the run went, for
// the matrix.
func checkReport(t *testing.T, fc faultConfig, p *planner.Plan, reported map[string]applier.Outcome, truth map[string]opTruth, written map[string]bool, stoppedAt time.Time, code int) string {
	counts := map[applier.Outcome]int{}
	wrong := 0
	mismatch := func(format string, args ...any) {
		t.Helper()
		wrong++
		t.Errorf(format, args...)
	}
	for _, r := range p.Resources {
		if !r.Writes() {
			continue
		}
		got := reported[r.Address]
		counts[got]++
		op, ok := truth[strings.ToLower(r.ARMID)]
		switch got {
		case applier.OutcomeCreated, applier.OutcomeUpdated:
			if op.state != "Succeeded" {
				mismatch("%s reported %s; ARM's operation: %+v", r.Address, got, op)
			}
		case applier.OutcomeFailed, applier.OutcomeNotAttempted:
			if op.state == "Succeeded" {
				mismatch("%s reported %s; ARM's operation succeeded", r.Address, got)
			}
			if r.Action == planner.ActionCreate && written[strings.ToLower(r.ARMID)] && !fixedName(r.ARMType) {
				mismatch("%s reported %s; Azure holds it, succeeded (ARM's operation: %+v)", r.Address, got, op)
			}
		case applier.OutcomeInProgress:
			if fc.stop != "interrupt" {
				mismatch("%s reported still running in Azure, though azk was not interrupted", r.Address)
			} else if ok && op.deploymentEnded.Before(stoppedAt) {
				mismatch("%s reported still running; ARM had ended its deployment %s before azk stopped", r.Address, stoppedAt.Sub(op.deploymentEnded))
			}
		default:
			mismatch("%s: no outcome reported (%q)", r.Address, got)
		}
	}
	converged := counts[applier.OutcomeFailed]+counts[applier.OutcomeNotAttempted]+counts[applier.OutcomeInProgress] == 0
	switch {
	case fc.failures || fc.stop != "":
		if converged || code == 0 {
			t.Errorf("the first run under %s converged (exit %d): the cell tests nothing", fc.name, code)
		}
	case !converged || code != 0:
		t.Errorf("the first run under %s did not converge: exit %d, %v", fc.name, code, counts)
	}
	if wrong > 0 {
		return fmt.Sprintf("report inexact (%d resources)", wrong)
	}
	if converged {
		return fmt.Sprintf("converged (%d written)", counts[applier.OutcomeCreated]+counts[applier.OutcomeUpdated])
	}
	var parts []string
	for _, o := range []applier.Outcome{applier.OutcomeCreated, applier.OutcomeFailed, applier.OutcomeNotAttempted, applier.OutcomeInProgress} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	return "reported exactly: " + strings.Join(parts, ", ")
}

// fixedName reports whether resources of the ARM type have a fixed name
// ("default" blob services): Azure holds one as soon as its parent exists,
// so that Azure holds it says nothing of who wrote it.
func fixedName(armType string) bool {
	reg := registry.Default()
	for _, gvk := range reg.KindsOfARMType(armType) {
		if k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind); ok && k.FixedName != "" {
			return true
		}
	}
	return false
}

func clientAt(t *testing.T, endpoint string) *arm.Client {
	t.Helper()
	client, err := arm.New(arm.Options{Subscription: emulatorSubscription, Endpoint: endpoint, AllowHTTP: true, Credential: arm.EmulatorCredential})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// An emulator in a child process, which a test can kill as a crash would:
// the test binary started again with childEnv set runs only the emulator
// (see TestMain).
const childEnv = "AZK_TEST_EMULATOR_CHILD"

type childSpec struct {
	Addr, StateDir, AdminToken string
	Options                    emulator.Options
}

type emulatorChild struct {
	spec       childSpec
	url, token string
	cmd        *exec.Cmd
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		runEmulatorChild(spec)
		return
	}
	code := m.Run()
	removeHostRelease()
	os.Exit(code)
}

// runEmulatorChild serves the emulator spec describes until the process is
// killed, saying "listening URL" on standard output once it serves.
func runEmulatorChild(spec string) {
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s.Options.StateDir, s.Options.AdminToken = s.StateDir, s.AdminToken
	run, err := emulator.Start(context.Background(), s.Options, s.Addr, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("listening %s\n", run.URL)
	select {}
}

func startEmulatorChild(t *testing.T, opts emulator.Options) *emulatorChild {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return startEmulatorChildAt(t, &emulatorChild{spec: childSpec{Addr: addr, StateDir: t.TempDir(), AdminToken: "fault-matrix-admin", Options: opts}})
}

// startEmulatorChildAt starts (again) the child c describes, on its address
// and state folder.
func startEmulatorChildAt(t *testing.T, c *emulatorChild) *emulatorChild {
	spec, err := json.Marshal(c.spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	next := &emulatorChild{spec: c.spec, token: c.spec.AdminToken, cmd: cmd}
	t.Cleanup(next.kill)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the emulator child did not start: %v", err)
	}
	next.url = strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return next
}

// kill ends the child at once (SIGKILL: nothing is flushed) and reaps it.
func (c *emulatorChild) kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}
