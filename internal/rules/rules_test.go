package rules

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/testkit"
)

// writePolicies writes files (name → Rego) into a new folder and returns it.
func writePolicies(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// twoAccounts is a plan creating sa and sa2 (an address that holds sa's).
func twoAccounts() *planner.Plan {
	return &planner.Plan{FormatVersion: planner.FormatVersion, Resources: []*planner.Resource{
		{Address: "storage.azure.com/StorageAccount/default/sa", Kind: "StorageAccount", Source: "stack.yaml:3", ARMID: "/subscriptions/s/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/sa",
			ARMType: "Microsoft.Storage/storageAccounts", Action: planner.ActionCreate, Desired: map[string]any{"location": "westeurope"}},
		{Address: "storage.azure.com/StorageAccount/default/sa2", Kind: "StorageAccount", Source: "stack.yaml:20",
			ARMType: "Microsoft.Storage/storageAccounts", Action: planner.ActionNoChange, Desired: map[string]any{"location": "eastus", "tags": map[string]any{"cost-centre": "cc-1"}}},
	}}
}

// TestConftestConventions: in the namespace evaluated, deny, violation and
// warn rules and their _suffixed kin, returning messages, objects with msg,
// or true; deny and violation are errors; results are placed beside the
// resource their address field or their message names.
func TestConftestConventions(t *testing.T) {
	dir := writePolicies(t, map[string]string{
		"plan.rego": `package main

deny contains msg if {
	some r in input.resources
	not r.desired.tags["cost-centre"]
	msg := sprintf("%s: no cost-centre tag", [r.address])
}

violation_location contains {"msg": "outside the allowed regions", "address": r.address, "allowed": ["westeurope"]} if {
	some r in input.resources
	r.desired.location != "westeurope"
}

warn_count contains msg if {
	count(input.resources) > 1
	msg := "more than one storage account (storage.azure.com/StorageAccount/default/sa and storage.azure.com/StorageAccount/default/sa2)"
}

deny_never if false

not_a_finding contains "ignored: not a rule conftest evaluates" if true
`,
		"other/other.rego": `package other

deny contains "another package: not evaluated" if true
`,
		"plan_test.rego": `package main

test_left_out if true
`,
	})
	ctx := testkit.Context(t)
	pol, err := Load(ctx, []string{dir}, []string{DefaultNamespace}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(pol.Files); got != 2 {
		t.Errorf("files %v, want the two policies, not the test", pol.Files)
	}
	p := twoAccounts()
	got, err := pol.Evaluate(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []planner.RuleFinding{
		{Rule: "main.warn_count", Severity: planner.SeverityWarning, Message: "more than one storage account (storage.azure.com/StorageAccount/default/sa and storage.azure.com/StorageAccount/default/sa2)"},
		{Rule: "main.deny", Severity: planner.SeverityError, Message: "storage.azure.com/StorageAccount/default/sa: no cost-centre tag",
			Address: "storage.azure.com/StorageAccount/default/sa", Source: "stack.yaml:3", ARMID: p.Resources[0].ARMID},
		{Rule: "main.violation_location", Severity: planner.SeverityError, Message: "outside the allowed regions",
			Address: "storage.azure.com/StorageAccount/default/sa2", Source: "stack.yaml:20", Details: map[string]any{"allowed": []any{"westeurope"}}},
	}
	if !reflect.DeepEqual(got.Findings, want) {
		g, _ := json.MarshalIndent(got.Findings, "", "  ")
		t.Errorf("findings:\n%s", g)
	}
	if got.Denials() != 2 {
		t.Errorf("denials %d, want 2", got.Denials())
	}
}

// TestManifestNamespaceSeesTheObject: a package named for manifests is
// evaluated over each resource's manifest alone, as conftest evaluates a
// Kubernetes object, and is refused as a plan namespace too.
func TestManifestNamespaceSeesTheObject(t *testing.T) {
	dir := writePolicies(t, map[string]string{"k8s.rego": `package kubernetes

deny contains msg if {
	not input.metadata.labels.team
	msg := sprintf("%s %s has no team label", [input.kind, input.metadata.name])
}
`})
	ctx := testkit.Context(t)
	if _, err := Load(ctx, []string{dir}, []string{"kubernetes"}, []string{"kubernetes"}); err == nil {
		t.Error("a namespace for both inputs was accepted")
	}
	if _, err := Load(ctx, []string{dir}, []string{"main"}, nil); err == nil || !strings.Contains(err.Error(), "no policy declares package main") {
		t.Errorf("an undeclared namespace: %v", err)
	}
	pol, err := Load(ctx, []string{dir}, nil, []string{"kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	// A plan read from a file has no manifests: nothing to evaluate, nothing found.
	got, err := pol.Evaluate(ctx, twoAccounts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != 0 {
		t.Errorf("findings without manifests: %v", got.Findings)
	}
}

// TestPolicyErrorsNameTheFile: a policy that does not parse or compile is an
// error naming its file and line; a path without Rego is an error.
func TestPolicyErrorsNameTheFile(t *testing.T) {
	ctx := testkit.Context(t)
	dir := writePolicies(t, map[string]string{"broken.rego": "package main\n\ndeny contains msg if {\n\tmsg := undefined_function(1)\n}\n"})
	_, err := Load(ctx, []string{dir}, []string{DefaultNamespace}, nil)
	if err == nil || !strings.Contains(err.Error(), "broken.rego:4") {
		t.Errorf("a policy that does not compile: %v", err)
	}
	empty := writePolicies(t, map[string]string{"data.json": "{}"})
	if _, err := Load(ctx, []string{empty}, []string{DefaultNamespace}, nil); err == nil || !strings.Contains(err.Error(), "no Rego policy") {
		t.Errorf("a folder without policies: %v", err)
	}
	bad := writePolicies(t, map[string]string{"bad.rego": "package main\n\ndeny contains 42 if true\n"})
	pol, err := Load(ctx, []string{bad}, []string{DefaultNamespace}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pol.Evaluate(ctx, twoAccounts(), nil); err == nil || !strings.Contains(err.Error(), "main.deny returned 42") {
		t.Errorf("a result that is no message: %v", err)
	}
}

// TestPoliciesCannotReachTheNetwork: a rule that would send the input
// somewhere (http.send) or look a host up does not compile, and nothing is
// sent: the listener a policy names hears no request.
func TestPoliciesCannotReachTheNetwork(t *testing.T) {
	ctx := testkit.Context(t)
	heard := make(chan string, 1)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { heard <- r.URL.Path }))
	defer server.Close()
	for name, call := range map[string]string{
		"send.rego":   `http.send({"method": "POST", "url": "` + server.URL + `/leak", "body": input})`,
		"lookup.rego": `net.lookup_ip_addr("localhost")`,
	} {
		dir := writePolicies(t, map[string]string{name: "package main\n\ndeny contains msg if {\n\tresp := " + call + "\n\tmsg := sprintf(\"%v\", [resp])\n}\n"})
		_, err := Load(ctx, []string{dir}, []string{DefaultNamespace}, nil)
		if err == nil || !strings.Contains(err.Error(), name+":4") || !strings.Contains(err.Error(), "undefined function") {
			t.Errorf("%s: a policy calling a network builtin: %v", name, err)
		}
	}
	select {
	case path := <-heard:
		t.Errorf("a policy sent a request to %s", path)
	default:
	}
}

// TestInputIsThePlanJSONWithoutSecrets: the input is the plan's JSON form;
// a secret value of the run is in no string of it, nor in a message.
func TestInputIsThePlanJSONWithoutSecrets(t *testing.T) {
	const canary = "canary-Zq93-secret-value"
	secrets := &redact.Set{}
	secrets.Add(canary)
	p := twoAccounts()
	p.Resources[0].Desired["tags"] = map[string]any{"note": "holds " + canary}
	doc, err := Input(p, secrets)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	if strings.Contains(string(b), canary) {
		t.Fatalf("the input holds the secret: %s", b)
	}
	if got := testkit.At[string](t, doc, "resources", 0, "desired", "tags", "note"); got != redact.Text {
		t.Errorf("tags.note = %q, want %q", got, redact.Text)
	}
	if got := testkit.At[string](t, doc, "resources", 1, "action"); got != "no-change" {
		t.Errorf("action = %q", got)
	}
	dir := writePolicies(t, map[string]string{"echo.rego": "package main\n\nwarn contains sprintf(\"saw %v\", [input.resources[0].desired.tags]) if true\n"})
	ctx := testkit.Context(t)
	pol, err := Load(ctx, []string{dir}, []string{DefaultNamespace}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pol.Evaluate(ctx, p, secrets)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != 1 || strings.Contains(got.Findings[0].Message, canary) {
		t.Errorf("findings %v", got.Findings)
	}
}

// TestRequire: each requirement names what breaks it; no-drift needs the
// base to tell drift from the change.
func TestRequire(t *testing.T) {
	p := twoAccounts()
	p.Resources = append(p.Resources,
		&planner.Resource{Address: "a/Kind/default/gone", Action: planner.ActionDelete},
		&planner.Resource{Address: "a/Kind/default/again", Action: planner.ActionRecreate},
		&planner.Resource{Address: "a/Kind/default/moved", Action: planner.ActionReplace})
	names, err := ParseRequirements("no-delete, no-replace")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Require(p, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []planner.Requirement{
		{Name: "no-delete", Resources: []string{"a/Kind/default/gone"}},
		{Name: "no-replace", Resources: []string{"a/Kind/default/again", "a/Kind/default/moved"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requirements %+v, want %+v", got, want)
	}
	if got, _ := Require(twoAccounts(), names); !got[0].Met || !got[1].Met {
		t.Errorf("a plan of creates: %+v", got)
	}
	if _, err := Require(p, []string{"no-drift"}); err == nil {
		t.Error("no-drift on a two-way plan was accepted")
	}
	if _, err := ParseRequirements("no-deletes"); err == nil || !strings.Contains(err.Error(), "no-delete, no-replace, no-drift") {
		t.Errorf("an unknown requirement: %v", err)
	}
}
