package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphChangesIsThePlansPicture: azk graph --changes -o mermaid draws
// what the plan changes (an updated subnet, a new one, and the network they
// depend on as context), and azk plan -o markdown carries the same picture
// (issue 25, item 5).
func TestGraphChangesIsThePlansPicture(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "quickstart")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	network := filepath.Join(dir, "network.yaml")
	data, err := os.ReadFile(network)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "addressPrefix: 10.10.2.0/24", "addressPrefix: 10.10.3.0/24", 1) + `---
apiVersion: network.azure.com/v1api20201101
kind: VirtualNetworksSubnet
metadata:
  name: cache
spec:
  owner:
    name: quickstart-vnet
  addressPrefix: 10.10.4.0/24
`
	if err := os.WriteFile(network, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	picture, errOut, code := azk(t, "", with("graph", "--changes", "-o", "mermaid", dir)...)
	if code != 0 {
		t.Fatalf("graph --changes: exit %d\n%s", code, errOut)
	}
	golden(t, "graph-changes.mermaid", picture)
	md, errOut, code := azk(t, "", with("plan", "-o", "markdown", dir)...)
	if code != 0 || !strings.Contains(md, "```mermaid\n"+picture+"```\n") {
		t.Errorf("plan -o markdown: exit %d, without graph --changes' picture:\n%s\n%s", code, md, errOut)
	}
	if _, errOut, code := azk(t, "", with("graph", "--changes", dir)...); code != 1 || !strings.Contains(errOut, "--changes draws the plan as -o mermaid only, not -o text") {
		t.Errorf("graph --changes -o text: exit %d, %q", code, errOut)
	}
}
