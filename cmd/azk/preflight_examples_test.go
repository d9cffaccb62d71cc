package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightPassesEveryExample: on a fresh emulator, apply --preflight
// applies each shipped example: no check refuses a stack apply itself
// deploys (values known only after apply, such as the principal of an
// identity the same run creates or a key another resource exports, are not
// a validation error), and every check runs.
func TestPreflightPassesEveryExample(t *testing.T) {
	for _, dir := range exampleDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			_, flags := emulatorAt(t)
			out, errOut, code := azk(t, "", append([]string{"apply", "--preflight", "--auto-approve", dir}, flags...)...)
			if code != 0 {
				t.Fatalf("apply --preflight: exit %d\n%s\n%s", code, out, errOut)
			}
			mustContain(t, "apply --preflight", out, "Apply complete! Resources: ")
			if strings.Contains(out, "CheckFailed]") {
				t.Errorf("a check could not run:\n%s", out)
			}
		})
	}
}
