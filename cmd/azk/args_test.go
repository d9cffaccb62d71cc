package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azkcli/azk/internal/emulator"
)

func TestTerraformArgs(t *testing.T) {
	root := newRootCommand(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range []struct{ in, want []string }{
		{[]string{"plan", "-no-color", "dir"}, []string{"plan", "--no-color", "dir"}},
		{[]string{"plan", "dir", "-out", "p.azk", "-detailed-exitcode"}, []string{"plan", "dir", "--out", "p.azk", "--detailed-exitcode"}},
		{[]string{"plan", "dir", "-out=p.azk", "-target=Kind/name", "-target", "K/n"}, []string{"plan", "dir", "--out=p.azk", "--target=Kind/name", "--target", "K/n"}},
		{[]string{"apply", "-auto-approve", "-input=false", "-json", "dir"}, []string{"apply", "--auto-approve", "--input=false", "--output=json", "dir"}},
		// kubectl's short flags and combined shorthands stay as they are.
		{[]string{"apply", "-f", "dir", "-R", "-ojson", "-n", "ns"}, []string{"apply", "-f", "dir", "-R", "-ojson", "-n", "ns"}},
		// A flag's value is never rewritten, nor anything after --.
		{[]string{"plan", "--namespace", "-out", "dir", "--", "-no-color"}, []string{"plan", "--namespace", "-out", "dir", "--", "-no-color"}},
		{[]string{"plan", "-n", "-target", "dir"}, []string{"plan", "-n", "-target", "dir"}},
		// A single-dash word that is no flag of the command is left for the parser to refuse.
		{[]string{"validate", "-target", "x"}, []string{"validate", "-target", "x"}},
	} {
		if got := terraformArgs(root, c.in); !slices.Equal(got, c.want) {
			t.Errorf("terraformArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTerraformFlagFormsWork runs the single-dash forms end to end: the
// namespace stays default under -no-color, -detailed-exitcode and -json
// and -out act, apply -auto-approve applies, -input=false refuses to ask.
func TestTerraformFlagFormsWork(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	out, errOut, code := azk(t, "", with("plan", "-no-color", "-detailed-exitcode", quickstart)...)
	if code != 2 {
		t.Fatalf("plan -no-color -detailed-exitcode: exit %d, want 2\n%s", code, errOut)
	}
	mustContain(t, "plan", out, "+ ResourceGroup default/azk-quickstart will be created")
	if strings.Contains(out, "\x1b[") {
		t.Error("-no-color output has colour codes")
	}
	out, _, _ = azk(t, "", with("plan", "-json", quickstart)...)
	mustContain(t, "plan -json", out, `"formatVersion"`)
	if _, errOut, code := azk(t, "", with("apply", "-input=false", quickstart)...); code != 1 || !strings.Contains(errOut, "--input=false: nothing is asked, so pass --auto-approve") {
		t.Errorf("apply -input=false without -auto-approve: exit %d, %q", code, errOut)
	}
	if out, errOut, code := azk(t, "", with("apply", "-auto-approve", "-input=false", "-f", quickstart, "-R")...); code != 0 || !strings.Contains(out, "Apply complete! Resources: 9 created") {
		t.Errorf("apply -auto-approve -f DIR -R: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestOutputFormats(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	out, errOut, code := azk(t, "", "validate", quickstart, "-o", "name")
	if code != 0 || !strings.HasPrefix(out, "resources.azure.com/ResourceGroup/default/azk-quickstart\n") || strings.Count(out, "\n") != 9 {
		t.Errorf("validate -o name: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = azk(t, "", "validate", quickstart, "-o", "yaml")
	if !strings.HasPrefix(out, "valid: true\nresources: 9\ndiagnostics:\n") {
		t.Errorf("validate -o yaml:\n%s", out)
	}
	out, _, _ = azk(t, "", with("plan", quickstart, "-o", "yaml")...)
	mustContain(t, "plan -o yaml", out, "formatVersion: ", "- address: resources.azure.com/ResourceGroup/default/azk-quickstart\n")
	out, _, _ = azk(t, "", with("plan", quickstart, "-o", "name")...)
	if strings.Count(out, "\n") != 9 || !strings.Contains(out, "create storage.azure.com/StorageAccount/default/azkquickstartsa\n") {
		t.Errorf("plan -o name:\n%s", out)
	}
	out, errOut, code = azk(t, "", with("apply", "--auto-approve", quickstart, "-o", "yaml")...)
	if code != 0 || !strings.HasPrefix(out, "---\ntype: plan\n") || !strings.Contains(out, "---\ntype: summary\n") {
		t.Errorf("apply -o yaml: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = azk(t, "", with("destroy", "--auto-approve", quickstart, "-o", "name")...)
	if code != 0 || out != "delete resources.azure.com/ResourceGroup/default/azk-quickstart\n" {
		t.Errorf("destroy -o name: exit %d, %q", code, out)
	}
	_, errOut, code = azk(t, "", "graph", quickstart, "-o", "markdown")
	if code != 1 || !strings.Contains(errOut, `unknown output format "markdown" for graph: use text, dot, mermaid, json, yaml or name`) {
		t.Errorf("graph -o markdown: exit %d, %q", code, errOut)
	}
}

// TestNoTerminalConfirmationAndHeartbeat: standard input from /dev/null is
// no terminal, so apply refuses to ask; with output to a pipe (no terminal
// either), a long operation still prints its heartbeat at a steady interval.
func TestNoTerminalConfirmationAndHeartbeat(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	_, flags := startEmulator(t, emulator.Options{LRO: []emulator.LRORule{{Type: "Microsoft.Resources/resourceGroups", Write: 1500 * time.Millisecond}}})
	var out, errOut bytes.Buffer
	cmd := newRootCommand(devNull, &out, &errOut)
	cmd.SetArgs(append([]string{"apply", quickstart}, flags...))
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no terminal to confirm on: pass --auto-approve") {
		t.Fatalf("apply with stdin from /dev/null: %v", err)
	}
	out.Reset()
	cmd = newRootCommand(devNull, &out, &errOut)
	cmd.SetArgs(append([]string{"apply", "--auto-approve", "--progress-interval", "400ms", quickstart}, flags...))
	if err := cmd.Execute(); err != nil {
		t.Fatalf("apply: %v\n%s", err, errOut.String())
	}
	// At least one a 400ms interval for 1.5s, however slow the machine.
	if beats := strings.Count(out.String(), "resources.azure.com/ResourceGroup/default/azk-quickstart: Still creating... ["); beats < 3 {
		t.Errorf("a 1.5s creation with a 400ms interval printed %d heartbeats, want at least 3:\n%s", beats, out.String())
	}
}
