package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
)

// fastRetryFlags keep a 500 from being retried for half a minute.
var fastRetryFlags = []string{"--retry-max-attempts", "2", "--retry-max-delay", "10ms"}

// TestPreflightCheckThatCannotRunIsOneError answers 500 to each pre-flight
// API in turn, through a proxy in front of the emulator: the check that
// asks it reports exactly one CheckFailed error, naming the request and
// ARM's answer, and nothing else (the permissions check no "permission
// missing"); the other checks still pass, and the plan exits 1.
func TestPreflightCheckThatCannotRunIsOneError(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	c := clientFor(t, run, emulatorSubscription)
	for _, rg := range []string{rgApp, rgLocked} {
		putAndWait(t, c, rg, "2021-04-01", map[string]any{"location": "westus2"})
	}
	dir := t.TempDir()
	preflightStack(t, dir, "203.0.113.7")

	p, errOut, code := preflightOf(t, append(endpointFlags(run.URL), fastRetryFlags...), dir)
	if code != 0 || p.Preflight.Errors() != 0 {
		t.Fatalf("without faults plan --preflight exited %d with %v\n%s", code, p.Preflight.Findings, errOut)
	}

	for _, tc := range []struct {
		check string
		// api matches the lower-cased path of the requests the check sends.
		api func(path string) bool
		// named is what the finding says of the request.
		named string
	}{
		{"validate", func(p string) bool { return strings.HasSuffix(p, "/validate") }, "/validate"},
		{"names", func(p string) bool { return strings.HasSuffix(p, "/checknameavailability") }, "checkNameAvailability"},
		{"providers", func(p string) bool { return p == "/subscriptions/"+emulatorSubscription+"/providers" }, "GET /subscriptions/" + emulatorSubscription + "/providers"},
		{"permissions", func(p string) bool { return strings.HasSuffix(p, "/providers/microsoft.authorization/permissions") }, "Microsoft.Authorization/permissions"},
		{"policy", func(p string) bool { return strings.HasSuffix(p, "/checkpolicyrestrictions") }, "checkPolicyRestrictions"},
		{"quota", func(p string) bool {
			return strings.HasSuffix(p, "/usages") || strings.HasSuffix(p, "/providers/microsoft.compute/skus")
		}, "Microsoft.Compute/"},
	} {
		t.Run(tc.check, func(t *testing.T) {
			var failedRequests atomic.Int64
			front := proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
				if !tc.api(strings.ToLower(r.URL.Path)) {
					return false
				}
				failedRequests.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"error":{"code":"InternalServerError","message":"Encountered internal server error."}}`))
				return true
			})
			p, errOut, code := preflightOf(t, append(endpointFlags(front), fastRetryFlags...), dir)
			if failedRequests.Load() == 0 {
				t.Fatalf("the check sent no request the proxy fails: the test proves nothing")
			}
			if code != 1 {
				t.Errorf("plan --preflight exited %d, want 1\n%s", code, errOut)
			}
			var mine, others []planner.Finding
			for _, f := range p.Preflight.Findings {
				switch {
				case f.Check == tc.check:
					mine = append(mine, f)
				case f.Severity == planner.SeverityError || f.Code == "CheckFailed":
					others = append(others, f)
				}
			}
			if len(mine) != 1 || mine[0].Code != "CheckFailed" || mine[0].Severity != planner.SeverityError {
				t.Fatalf("%s: findings %+v, want one CheckFailed error", tc.check, mine)
			}
			for _, want := range []string{tc.named, "500", "InternalServerError"} {
				if !strings.Contains(mine[0].Message, want) {
					t.Errorf("the CheckFailed message %q does not say %q", mine[0].Message, want)
				}
			}
			if len(others) > 0 {
				t.Errorf("other checks found %+v, want nothing", others)
			}
		})
	}
}

// TestPersistentThrottleEndsThePlan: a proxy answers 429 to every read,
// forever. The plan ends within its bound (3 tries here; 30 tries or 5
// minutes by default) and says which requests are throttled; a pre-flight
// POST throttled forever makes its check's CheckFailed.
func TestPersistentThrottleEndsThePlan(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, rgApp, "2021-04-01", map[string]any{"location": "westus2"})
	dir := t.TempDir()
	doc := `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata: {name: pf-id}
spec:
  location: westus2
  owner: {armId: ` + rgApp + `}
`
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	throttle := func(match func(*http.Request) bool, n *atomic.Int64) string {
		return proxyTo(t, run.URL, func(w http.ResponseWriter, r *http.Request) bool {
			if !match(r) {
				return false
			}
			n.Add(1)
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"code":"SubscriptionRequestsThrottled","message":"Number of read requests for subscription exceeded the limit of '12000' for time interval '01:00:00'."}}`))
			return true
		})
	}
	bound := []string{"--throttle-max-tries", "3", "--throttle-max-wait", "20s"}

	var reads atomic.Int64
	front := throttle(func(r *http.Request) bool { return r.Method == http.MethodGet }, &reads)
	started := time.Now()
	_, errOut, code := azk(t, "", append(append([]string{"plan", dir}, endpointFlags(front)...), bound...)...)
	took := time.Since(started)
	if code == 0 {
		t.Fatalf("plan with every read throttled exited 0\n%s", errOut)
	}
	mustContain(t, "the throttled plan's error", errOut, "reads of subscription "+emulatorSubscription+" are throttled: ", " answers of 429 over ", "SubscriptionRequestsThrottled", "ARM's limit")
	if took > 20*time.Second {
		t.Errorf("the plan took %s, past its bound of 20s", took)
	}
	t.Logf("every read throttled: the plan ended after %s and %d answers of 429:\n%s", took.Round(time.Millisecond), reads.Load(), errOut)

	var posts atomic.Int64
	front = throttle(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/validate") }, &posts)
	p, errOut, code := preflightOf(t, append(endpointFlags(front), bound...), dir)
	if code != 1 {
		t.Errorf("plan --preflight with validate throttled exited %d, want 1\n%s", code, errOut)
	}
	var validate []planner.Finding
	for _, f := range p.Preflight.Findings {
		if f.Check == "validate" {
			validate = append(validate, f)
		}
	}
	if len(validate) != 1 || validate[0].Code != "CheckFailed" || !strings.Contains(validate[0].Message, "POST requests of subscription "+emulatorSubscription+" are throttled: ") {
		t.Errorf("validate's findings %+v, want one CheckFailed naming the throttled POSTs", validate)
	}
}

// TestDeploymentEngineRegistersOnlyAfterConfirmation: apply --engine
// deployment --register-providers without a terminal to confirm on
// refuses, and the provider it would register stays unregistered; with
// --auto-approve it is registered and the template applied.
func TestDeploymentEngineRegistersOnlyAfterConfirmation(t *testing.T) {
	run, _ := startEmulator(t, emulator.Options{})
	c := clientFor(t, run, emulatorSubscription)
	putAndWait(t, c, rgApp, "2021-04-01", map[string]any{"location": "westus2"})
	provider := "/subscriptions/" + emulatorSubscription + "/providers/Microsoft.ManagedIdentity"
	post(t, c, provider+"/unregister", "2021-04-01", nil)
	state := func() string {
		items, err := c.List(context.Background(), "/subscriptions/"+emulatorSubscription+"/providers", "2021-04-01")
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			var p struct {
				Namespace         string `json:"namespace"`
				RegistrationState string `json:"registrationState"`
			}
			if err := json.Unmarshal(it, &p); err != nil {
				t.Fatal(err)
			}
			if strings.EqualFold(p.Namespace, "Microsoft.ManagedIdentity") {
				return p.RegistrationState
			}
		}
		t.Fatal("the emulator lists no Microsoft.ManagedIdentity")
		return ""
	}
	if s := state(); s != "NotRegistered" && s != "Unregistered" {
		t.Fatalf("the provider is %q after unregister", s)
	}
	dir := t.TempDir()
	doc := `apiVersion: managedidentity.azure.com/v1api20230131
kind: UserAssignedIdentity
metadata: {name: pf-id}
spec:
  location: westus2
  owner: {armId: ` + rgApp + `}
`
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"apply", dir, "--engine", "deployment", "--register-providers"}, endpointFlags(run.URL)...)
	_, errOut, code := azk(t, "", args...)
	if code == 0 || !strings.Contains(errOut, "no terminal to confirm on") {
		t.Fatalf("apply without confirmation exited %d, want the refusal\n%s", code, errOut)
	}
	if strings.Contains(errOut, "Registered the resource provider") {
		t.Errorf("apply said it registered before the confirmation:\n%s", errOut)
	}
	if s := state(); s == "Registered" || s == "Registering" {
		t.Fatalf("the provider is %s after a refused apply", s)
	}

	// Answered "no" at the terminal: cancelled, and the provider still
	// unregistered.
	_, errOut, code = onTerminal(t, "no", args...)
	if code == 0 || !strings.Contains(errOut, "cancelled: nothing was changed") || !strings.Contains(errOut, "Only 'yes' will be accepted") {
		t.Fatalf("apply answered no exited %d, want cancelled\n%s", code, errOut)
	}
	if s := state(); s == "Registered" || s == "Registering" {
		t.Fatalf("the provider is %s after apply was answered no", s)
	}

	_, errOut, code = azk(t, "", append(args, "--auto-approve")...)
	if code != 0 || !strings.Contains(errOut, "Registered the resource provider Microsoft.ManagedIdentity") {
		t.Fatalf("apply --auto-approve exited %d\n%s", code, errOut)
	}
	if s := state(); s != "Registered" {
		t.Errorf("the provider is %s after the apply", s)
	}
}
