package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/azkcli/azk/internal/testkit"
)

// examplePolicies is the folder of the example policies (examples/policy).
const examplePolicies = "../../examples/policy"

// TestExamplePolicies runs the example policies' own Rego unit tests with
// OPA's test runner (opa test, as a library): every test passes, and every
// policy file has a test file whose tests ran.
func TestExamplePolicies(t *testing.T) {
	results, err := tester.Run(testkit.Context(t), examplePolicies)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, r := range results {
		if !r.Pass() {
			t.Errorf("%s", r)
			continue
		}
		ran[filepath.Base(r.Location.File)]++
	}
	policies, err := filepath.Glob(filepath.Join(examplePolicies, "*.rego"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range policies {
		if strings.HasSuffix(p, "_test.rego") {
			continue
		}
		checked++
		test := strings.TrimSuffix(filepath.Base(p), ".rego") + "_test.rego"
		if _, err := os.Stat(filepath.Join(examplePolicies, test)); err != nil {
			t.Errorf("%s has no test file %s", p, test)
		} else if ran[test] == 0 {
			t.Errorf("%s: no test ran", test)
		}
	}
	if checked < 4 {
		t.Errorf("%d example policies, want at least 4 (tags, locations, public access, stateful deletion)", checked)
	}
	t.Logf("%d Rego tests ran over %d policies", len(results), checked)
}
