package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/testkit"
	"github.com/azkcli/azk/internal/views"
)

// putLog records the body of each PUT that reaches an emulator, by path.
type putLog struct {
	mu     sync.Mutex
	bodies map[string][]byte
}

// emulatorWithBodies is emulatorAt with the body of every PUT recorded
// too: azk checks every apply's writes against its plan (writes_test.go),
// and the drift tests check each body against the plan's desired body.
func emulatorWithBodies(t *testing.T) (*emulator.Running, []string, *putLog) {
	t.Helper()
	run, _ := startEmulator(t, emulator.Options{})
	log := &putLog{bodies: map[string][]byte{}}
	behind := proxyTo(t, run.URL, func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPut {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			log.mu.Lock()
			log.bodies[strings.ToLower(r.URL.Path)] = body
			log.mu.Unlock()
		}
		return false
	})
	return run, endpointFlags(watchWrites(t, behind)), log
}

func (l *putLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bodies = map[string][]byte{}
}

// sentAsPlanned checks that each PUT sent carries exactly the desired body
// of its resource in p (the plan as -o json or azk show print it).
func (l *putLog) sentAsPlanned(t *testing.T, p *planner.Plan) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bodies) == 0 {
		t.Errorf("apply sent no PUT")
	}
	for path, body := range l.bodies {
		var r *planner.Resource
		for _, c := range p.Resources {
			if strings.EqualFold(c.ARMID, path) {
				r = c
			}
		}
		if r == nil {
			t.Errorf("PUT %s: not in the plan", path)
			continue
		}
		var sent, planned any
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatal(err)
		}
		planned = roundTripJSON(t, r.Desired)
		if !reflect.DeepEqual(sent, planned) {
			t.Errorf("PUT %s sent\n%s\nthe plan's desired body is\n%s", path, body, mustJSON(t, planned))
		}
	}
}

func roundTripJSON(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(mustJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// driftStack is a resource group and a virtual network with the address
// prefix given; annotations go on the network.
func driftStack(prefix, annotations string) string {
	return `# The resource group of the app.
apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata:
  name: drift
spec:
  location: westus2
---
# The network the app runs in.
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetwork
metadata:
  name: net
` + annotations + `spec:
  location: westus2
  owner:
    name: drift # the group above
  # One range for the whole app.
  addressSpace:
    addressPrefixes:
      - ` + prefix + `
`
}

const (
	driftVNet = "/subscriptions/" + emulatorSubscription + "/resourceGroups/drift/providers/Microsoft.Network/virtualNetworks/net"
	dnsDrift  = `{"properties":{"dhcpOptions":{"dnsServers":["10.0.0.4","10.0.0.5"]}}}`
)

// dnsServers are the DNS servers Azure holds on the network.
func dnsServers(t *testing.T, run *emulator.Running) []any {
	t.Helper()
	return testkit.At[[]any](t, getBody(t, run, driftVNet, "2020-11-01"), "properties", "dhcpOptions", "dnsServers")
}

func prefixes(t *testing.T, run *emulator.Running) []any {
	t.Helper()
	return testkit.At[[]any](t, getBody(t, run, driftVNet, "2020-11-01"), "properties", "addressSpace", "addressPrefixes")
}

// driftedStack applies the network at 10.0.0.0/16, sets DNS servers on it
// behind azk's back, and changes the manifests' prefix to 10.1.0.0/16.
func driftedStack(t *testing.T, annotations string) (*emulator.Running, func(...string) []string, *putLog, string) {
	t.Helper()
	run, flags, puts := emulatorWithBodies(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, driftStack("10.0.0.0/16", annotations))
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift(driftVNet, []byte(dnsDrift)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(driftStack("10.1.0.0/16", annotations)), 0o644); err != nil {
		t.Fatal(err)
	}
	puts.reset()
	return run, with, puts, dir
}

// planJSON plans and decodes the plan; the network's decision is returned.
func planJSON(t *testing.T, args []string) (*planner.Plan, *planner.Resource) {
	t.Helper()
	out, errOut, code := azk(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	p, byName, _ := decodePlan(t, out)
	net := byName["VirtualNetwork/net"]
	if net == nil {
		t.Fatalf("no network in the plan:\n%s", out)
	}
	return p, net
}

func changedPaths(r *planner.Resource) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Path)
	}
	return out
}

func hasDifference(r *planner.Resource, code planner.OperatorDifferenceCode) bool {
	for _, d := range r.OperatorDiffers {
		if d.Code == code {
			return true
		}
	}
	return false
}

var wantDNS = []any{"10.0.0.4", "10.0.0.5"}

// Drift policy merge (A): the plan shows only the prefix the manifests
// changed, the DNS servers set behind azk's back are kept (and listed as
// kept), the saved plan carries the merged body and goes stale when Azure's
// merged-in state moves, and apply sends exactly the plan's body.
func TestDriftPolicyMergeKeepsWhatTheManifestsDoNotSet(t *testing.T) {
	run, with, puts, dir := driftedStack(t, "")
	p, net := planJSON(t, with("plan", "-o", "json", "--drift-policy", "merge", dir))
	if net.Action != planner.ActionUpdate || !reflect.DeepEqual(changedPaths(net), []string{"properties.addressSpace.addressPrefixes"}) {
		t.Errorf("network: %s with changes %v, want an update of the prefix only", net.Action, changedPaths(net))
	}
	if net.DriftPolicy == nil || *net.DriftPolicy != (planner.Policy{Value: "merge", Source: planner.DriftSourceFlag}) {
		t.Errorf("driftPolicy %+v, want merge from the flag", net.DriftPolicy)
	}
	// The emulator's network holds privateEndpointVNetPolicies, which
	// api-version 2020-11-01 does not know: merge cannot keep it and names
	// it, with the reason. Nothing else is reset.
	if len(net.AzureOnly) != 1 || net.AzureOnly[0].Reason != bodydiff.ReasonUnknownToAPI ||
		!reflect.DeepEqual(valueAt(net.Kept, "properties.dhcpOptions"), map[string]any{"dnsServers": wantDNS}) {
		t.Errorf("azureOnly %+v, kept %+v: want the DNS servers kept, nothing reset but what no PUT of the kind can carry", net.AzureOnly, net.Kept)
	}
	if !hasDifference(net, planner.OperatorEnforces) {
		t.Errorf("operatorDiffers %+v lacks operator_enforces", net.OperatorDiffers)
	}
	if rg := p.Resources[0]; rg.Action != planner.ActionNoChange {
		t.Errorf("resource group: %s, want no-change", rg.Action)
	}
	text, _, _ := azk(t, "", with("plan", "--drift-policy", "merge", dir)...)
	mustContain(t, "text plan", text, "drift:  merge (flag --drift-policy); the operator always enforces",
		`~ properties.addressSpace.addressPrefixes = ["10.0.0.0/16"] -> ["10.1.0.0/16"]`,
		"kept: Azure holds these and the manifests do not set them; under drift policy merge the PUT carries Azure's values, so they stay:",
		`= properties.dhcpOptions = {"dnsServers":["10.0.0.4","10.0.0.5"]}`,
		`! properties.privateEndpointVNetPolicies = "Disabled" (`+bodydiff.ReasonUnknownToAPI+")",
		"operator differs: the operator does not read azk.azkcli.io/drift: it always enforces")
	if strings.Contains(text, "dnsServers\"] ->") || strings.Contains(text, "resets these") {
		t.Errorf("the merge plan shows the DNS servers as a change or a reset:\n%s", text)
	}

	// A saved plan carries the merged body; Azure's merged-in state moving
	// since makes it stale.
	saved := filepath.Join(t.TempDir(), "plan.azk")
	if out, errOut, code := azk(t, "", with("plan", "--drift-policy", "merge", "--out", saved, dir)...); code != 0 {
		t.Fatalf("plan --out: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift(driftVNet, []byte(`{"properties":{"dhcpOptions":{"dnsServers":["10.0.0.4","10.0.0.5","10.0.0.6"]}}}`)); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("apply", saved)...); code != 1 || !strings.Contains(errOut, "stale") {
		t.Errorf("apply of a plan whose merged-in state moved: exit %d, want 1 and stale\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift(driftVNet, []byte(dnsDrift)); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", with("plan", "--drift-policy", "merge", "--out", saved, dir)...); code != 0 {
		t.Fatalf("plan --out: exit %d\n%s\n%s", code, out, errOut)
	}
	shown, _, _ := azk(t, "", "show", "-o", "json", saved)
	savedPlan, _, _ := decodePlan(t, shown)
	puts.reset()
	if out, errOut, code := azk(t, "", with("apply", saved)...); code != 0 {
		t.Fatalf("apply of the saved merge plan: exit %d\n%s\n%s", code, out, errOut)
	}
	puts.sentAsPlanned(t, savedPlan)
	if got := dnsServers(t, run); !reflect.DeepEqual(got, wantDNS) {
		t.Errorf("DNS servers after apply %v, want %v kept", got, wantDNS)
	}
	if got := prefixes(t, run); !reflect.DeepEqual(got, []any{"10.1.0.0/16"}) {
		t.Errorf("prefixes after apply %v", got)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", "--drift-policy", "merge", dir)...); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Drift policy enforce (B), the default and the operator's behaviour: the
// plan lists the DNS servers as reset by the PUT, and apply removes them.
func TestDriftPolicyEnforceResetsWhatTheManifestsDoNotSet(t *testing.T) {
	run, with, puts, dir := driftedStack(t, "")
	p, net := planJSON(t, with("plan", "-o", "json", dir))
	if net.Action != planner.ActionUpdate || !reflect.DeepEqual(changedPaths(net), []string{"properties.addressSpace.addressPrefixes"}) {
		t.Errorf("network: %s with changes %v, want an update of the prefix", net.Action, changedPaths(net))
	}
	if net.DriftPolicy == nil || net.DriftPolicy.Value != "enforce" || net.DriftPolicy.Source != "default" {
		t.Errorf("driftPolicy %+v, want enforce by default", net.DriftPolicy)
	}
	if !reflect.DeepEqual(valueAt(net.AzureOnly, "properties.dhcpOptions"), map[string]any{"dnsServers": wantDNS}) || len(net.Kept) != 0 || hasDifference(net, planner.OperatorEnforces) {
		t.Errorf("azureOnly %+v, kept %+v, operatorDiffers %+v: want the DNS servers listed as reset", net.AzureOnly, net.Kept, net.OperatorDiffers)
	}
	text, _, _ := azk(t, "", with("plan", dir)...)
	mustContain(t, "text plan", text, "azure-only: the PUT resets these (drift policy enforce:", `! properties.dhcpOptions = {"dnsServers":["10.0.0.4","10.0.0.5"]}`)
	md, _, _ := azk(t, "", with("plan", "-o", "markdown", dir)...)
	mustContain(t, "markdown plan", md, "The PUT resets these (drift policy enforce:")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	puts.sentAsPlanned(t, p)
	if got := getBody(t, run, driftVNet, "2020-11-01")["properties"].(map[string]any)["dhcpOptions"]; got != nil && len(got.(map[string]any)["dnsServers"].([]any)) > 0 {
		t.Errorf("DNS servers after apply %v, want them reset", got)
	}
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("re-plan: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Drift policy reflect (C), set on the network: in a pull request (--base)
// the prefix this change sets is applied and the DNS servers Azure has are
// "Azure changed, the manifests will follow"; apply keeps them; azk refresh
// --write brings them into the YAML, comments kept; the next plan is quiet.
func TestDriftPolicyReflectBringsAzuresValuesIntoTheManifests(t *testing.T) {
	run, flags, puts := emulatorWithBodies(t)
	with := func(args ...string) []string { return append(args, flags...) }
	annotation := "  annotations:\n    azk.azkcli.io/drift: reflect # the portal team sets DNS\n"
	repo, commit := gitRepo(t, driftStack("10.0.0.0/16", annotation))
	manifests := filepath.Join(repo, "manifests")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", manifests)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift(driftVNet, []byte(dnsDrift)); err != nil {
		t.Fatal(err)
	}
	commit(driftStack("10.1.0.0/16", annotation))

	p, net := planJSON(t, with("plan", "-o", "json", "--base", "HEAD~1", manifests))
	if net.Action != planner.ActionUpdate || !reflect.DeepEqual(changedPaths(net), []string{"properties.addressSpace.addressPrefixes"}) || net.Changes[0].Origin != planner.OriginChange {
		t.Errorf("network: %s with changes %+v, want an update of the prefix, of origin change", net.Action, net.Changes)
	}
	if net.DriftPolicy == nil || *net.DriftPolicy != (planner.Policy{Value: "reflect", Source: planner.DriftSourceAnnotation}) {
		t.Errorf("driftPolicy %+v, want reflect from the annotation", net.DriftPolicy)
	}
	if dns := changeIn(net.Reflected, "properties.dhcpOptions"); dns == nil || dns.After != nil ||
		!reflect.DeepEqual(dns.Before, map[string]any{"dnsServers": wantDNS}) || len(net.AzureOnly) != 0 {
		t.Errorf("reflected %+v, azureOnly %+v: want the DNS servers reflected", net.Reflected, net.AzureOnly)
	}
	text, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", manifests)...)
	mustContain(t, "text plan", text, "drift:  reflect (annotation azk.azkcli.io/drift); the operator always enforces",
		"reflect: Azure changed, the manifests will follow (azk refresh --write writes Azure's values into them; the PUT keeps Azure's values):",
		`< properties.dhcpOptions = {"dnsServers":["10.0.0.4","10.0.0.5"]} (Azure's; the manifests do not set it)`,
		"1 to reflect into the manifests (azk refresh)")
	md, _, _ := azk(t, "", with("plan", "--base", "HEAD~1", "-o", "markdown", manifests)...)
	mustContain(t, "markdown plan", md, "Azure changed, the manifests will follow", "| to reflect | 1 |")

	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "--base", "HEAD~1", manifests)...); code != 0 {
		t.Fatalf("apply --base: exit %d\n%s\n%s", code, out, errOut)
	}
	puts.sentAsPlanned(t, p)
	if got := dnsServers(t, run); !reflect.DeepEqual(got, wantDNS) {
		t.Errorf("DNS servers after apply %v, want %v kept", got, wantDNS)
	}
	if got := prefixes(t, run); !reflect.DeepEqual(got, []any{"10.1.0.0/16"}) {
		t.Errorf("prefixes after apply %v", got)
	}

	// Now only the DNS servers differ: a plan sends nothing and says so.
	out, _, code := azk(t, "", with("plan", "--detailed-exitcode", manifests)...)
	if code != 0 || !strings.Contains(out, "No changes to Azure. The manifests are to follow Azure at ") {
		t.Errorf("plan before refresh: exit %d\n%s", code, out)
	}
	// Refresh shows first; without a terminal it writes only with --write.
	manifest := filepath.Join(manifests, "stack.yaml")
	before, _ := os.ReadFile(manifest)
	out, errOut, code := azk(t, "", with("refresh", manifests)...)
	if code != 1 || !strings.Contains(errOut, "no terminal to confirm on") {
		t.Errorf("refresh without --write or a terminal: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "refresh", out, "< spec.dhcpOptions = {\"dnsServers\":[\"10.0.0.4\",\"10.0.0.5\"]} (reflect: properties.dhcpOptions)",
		"--- "+manifest+"\n", "+++ "+manifest+" (refreshed)\n", "values to write into 1 file.")
	if after, _ := os.ReadFile(manifest); !bytes.Equal(before, after) {
		t.Errorf("refresh without --write changed the manifest")
	}
	if out, errOut, code := azk(t, "", with("refresh", "--write", manifests)...); code != 0 {
		t.Fatalf("refresh --write: exit %d\n%s\n%s", code, out, errOut)
	}
	refreshed, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "refresh-reflect.yaml", string(refreshed))
	if out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", manifests)...); code != 0 || !strings.Contains(out, views.NoChangesLine) {
		t.Errorf("plan after refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, _, _ := azk(t, "", with("refresh", manifests)...); !strings.Contains(out, "Nothing to refresh") {
		t.Errorf("refresh after refresh:\n%s", out)
	}
}

// valueAt is the value at path among vs, nil when none is there.
func valueAt(vs []planner.PathValue, path string) any {
	for _, v := range vs {
		if v.Path == path {
			return v.Value
		}
	}
	return nil
}

func changeIn(cs []planner.Change, path string) *planner.Change {
	for i := range cs {
		if cs[i].Path == path {
			return &cs[i]
		}
	}
	return nil
}

// azk refresh serves ignore-changes paths too: the value Azure keeps there
// is written into the manifest, which then says what Azure holds.
func TestRefreshWritesIgnoredPaths(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: ign\n  annotations:\n    azk.azkcli.io/ignore-changes: tags.owner\n"+
		"spec:\n  location: westus2\n  tags:\n    owner: azk # who to ask\n    team: a\n")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := run.Server.Drift("/subscriptions/"+emulatorSubscription+"/resourceGroups/ign", []byte(`{"tags":{"owner":"portal","team":"a"}}`)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := azk(t, "", with("refresh", "--auto-approve", dir)...)
	if code != 0 {
		t.Fatalf("refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "refresh", out, `< spec.tags.owner = "portal" (ignore-changes: tags.owner)`, "-    owner: azk # who to ask", "+    owner: portal # who to ask")
	data, _ := os.ReadFile(filepath.Join(dir, "stack.yaml"))
	if !strings.Contains(string(data), "    owner: portal # who to ask\n    team: a\n") {
		t.Errorf("manifest after refresh:\n%s", data)
	}
	if out, _, code := azk(t, "", with("plan", "--detailed-exitcode", "--show-unchanged", dir)...); code != 0 || strings.Contains(out, "ignored") {
		t.Errorf("plan after refresh: exit %d, and no ignored difference left\n%s", code, out)
	}
}

// validate refuses an unknown drift policy with file, line, resource,
// field and the nearest policy.
func TestValidateRefusesUnknownDriftPolicy(t *testing.T) {
	dir := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\n  annotations:\n    azk.azkcli.io/drift: merg\nspec:\n  location: westus2\n")
	_, errOut, code := azk(t, "", "validate", dir)
	if code != 1 {
		t.Fatalf("validate: exit %d, want 1\n%s", code, errOut)
	}
	mustContain(t, "validate", errOut, filepath.Join(dir, "stack.yaml")+`:6: resources.azure.com/ResourceGroup/default/rg: metadata.annotations.azk.azkcli.io/drift: unknown drift policy "merg": use merge, enforce or reflect (did you mean "merge"?)`)
	valid := writeStack(t, "apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: rg\nspec:\n  location: westus2\n")
	_, flags := emulatorAt(t)
	if _, errOut, code := azk(t, "", append([]string{"plan", "--drift-policy", "refelct", valid}, flags...)...); code != 1 || !strings.Contains(errOut, `(did you mean "reflect"?)`) {
		t.Errorf("plan --drift-policy refelct: exit %d\n%s", code, errOut)
	}
}
