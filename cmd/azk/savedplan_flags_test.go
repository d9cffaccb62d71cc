package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlanWithErrorsIsNotSaved: plan --out with a --send-secrets address
// that names no resource exits 1 and writes no file; before, it saved the
// plan and then failed (issue 22, item 6).
func TestPlanWithErrorsIsNotSaved(t *testing.T) {
	_, flags := emulatorAt(t)
	planFile := filepath.Join(t.TempDir(), "plan.azk")
	_, errOut, code := azk(t, "", append([]string{"plan", quickstart, "--out", planFile, "--send-secrets", "VirtualNetwork/no-such-vnet"}, flags...)...)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	mustContain(t, "plan", errOut, "--send-secrets VirtualNetwork/no-such-vnet: no resource of the plan has that address", "The plan was not saved to "+planFile+": it has the errors above")
	if _, err := os.Stat(planFile); err == nil {
		t.Error("the plan was saved")
	}
}
