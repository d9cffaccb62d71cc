package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditedSavedPlanIsRefused: a plan file whose armId was edited after
// azk plan wrote it is refused by show and by apply, and nothing is written
// (issue 12, item 8). Before, show printed the edited plan and apply applied
// something else.
func TestEditedSavedPlanIsRefused(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := copyExample(t, "quickstart")
	planFile := filepath.Join(t.TempDir(), "plan.azk")
	if out, errOut, code := azk(t, "", append([]string{"plan", dir, "--out", planFile}, flags...)...); code != 0 {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	const reviewed = "/virtualNetworks/quickstart-vnet\""
	if !bytes.Contains(data, []byte(reviewed)) {
		t.Fatalf("the plan has no %s", reviewed)
	}
	edited := bytes.Replace(data, []byte(reviewed), []byte("/virtualNetworks/victim-vnet\""), 1)
	if err := os.WriteFile(planFile, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", planFile}, append([]string{"apply", planFile}, flags...)} {
		out, errOut, code := azk(t, "", args...)
		if code != 1 || !strings.Contains(errOut, "the file was changed after azk wrote it") {
			t.Errorf("%s of an edited plan: exit %d\n%s\n%s", args[0], code, out, errOut)
		}
		if strings.Contains(out, "victim-vnet") || strings.Contains(out, "Creating...") {
			t.Errorf("%s acted on the edited plan:\n%s", args[0], out)
		}
	}
}
