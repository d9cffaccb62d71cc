package planner

import (
	"bytes"
	"strings"
	"testing"
)

// TestMultiLineChangesShowAsLineDiffs: a script or serialized document that
// changes in one line shows that line, not two long JSON strings.
func TestMultiLineChangesShowAsLineDiffs(t *testing.T) {
	p := &Plan{Resources: []*Resource{{
		Kind: "VirtualMachineScaleSet", Namespace: "default", Name: "vmss", Action: ActionUpdate,
		Policy: Policy{Value: "manage", Source: "default"},
		Changes: []Change{{
			Path:   "properties.settings.script",
			Before: "#!/bin/sh\necho one\necho two\necho three\n",
			After:  "#!/bin/sh\necho one\necho 2\necho three\n",
		}},
	}}}
	var out bytes.Buffer
	if err := WriteText(&out, p, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~ properties.settings.script:\n", "--- Azure", "+++ manifests", "-echo two", "+echo 2", " echo one"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), `\n`) {
		t.Errorf("the strings are printed escaped instead of as lines:\n%s", out.String())
	}
}
