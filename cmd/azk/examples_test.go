package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesApplyReplanAndDestroy: each example and real-world stack
// applies on the emulator (every write checked against its plan), a new
// plan is quiet, destroy removes everything, and a plan then creates it all
// again.
func TestExamplesApplyReplanAndDestroy(t *testing.T) {
	examples, err := filepath.Glob(filepath.Join("..", "..", "examples", "*"))
	if err != nil || len(examples) < 6 {
		t.Fatalf("examples: %v %v", examples, err)
	}
	for _, dir := range examples {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			_, flags := emulatorAt(t)
			with := func(args ...string) []string { return append(args, flags...) }
			out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...)
			if code != 0 {
				t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "apply", out, "Apply complete! Resources: ")
			if strings.Contains(errOut, "Error") {
				t.Errorf("apply: %s", errOut)
			}
			out, errOut, code = azk(t, "", with("plan", "--detailed-exitcode", dir)...)
			if code != 0 {
				t.Fatalf("plan after apply: exit %d, want 0 (no changes)\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "plan after apply", out, "No changes. Azure matches the manifests.")
			out, errOut, code = azk(t, "", with("destroy", "--auto-approve", dir)...)
			if code != 0 {
				t.Fatalf("destroy: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "destroy", out, "Destroy complete! Resources: 1 deleted, ")
			out, errOut, code = azk(t, "", with("plan", "-o", "json", dir)...)
			if code != 0 || strings.Contains(out, `"action": "no-change"`) || strings.Contains(out, `"exists": true`) {
				t.Errorf("plan after destroy: exit %d, something is left:\n%s\n%s", code, out, errOut)
			}
		})
	}
}
