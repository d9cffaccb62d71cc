package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/testkit"
)

// TestImportRoundTrip imports everything the quick start and the AKS
// example created on the emulator, then plans the imported manifests:
// nothing to change. Standard output holds the same manifests as --out-dir.
func TestImportRoundTrip(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	for _, example := range []string{"quickstart", "aks-workload-identity"} {
		if out, errOut, code := azk(t, "", with("apply", "--auto-approve", "../../examples/"+example)...); code != 0 {
			t.Fatalf("apply %s: exit %d\n%s\n%s", example, code, out, errOut)
		}
	}
	rgs := []string{"/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart", "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-aks-wi"}
	dir := t.TempDir()
	_, errOut, code := azk(t, "", with(append([]string{"import", "--recursive", "--out-dir", dir}, rgs...)...)...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	mustContain(t, "import report", errOut, "Imported 21 resources into "+dir+".", "Left out by design: ", " built-in role definitions (-v lists them)")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	// 18 resources of the manifests, and the file, queue and table services
	// ARM created with the storage account.
	if len(files) != 21 {
		t.Errorf("%d files written, want 21", len(files))
	}
	out, errOut, code := azk(t, "", with("plan", "--detailed-exitcode", dir)...)
	if code != 0 {
		t.Fatalf("plan of the imported manifests: exit %d, want 0 (no changes)\n%s\n%s", code, out, errOut)
	}
	mustContain(t, "plan of the imported manifests", out, "No changes. Azure matches the manifests.", "Plan: 0 to create, 0 to update, 21 unchanged")
	if strings.Contains(errOut, "Warning") {
		t.Errorf("plan of the imported manifests warns:\n%s", errOut)
	}

	// Standard output: the same manifests, one stream.
	stream, _, code := azk(t, "", with(append([]string{"import", "--recursive"}, rgs...)...)...)
	if code != 0 {
		t.Fatal("import to standard output failed")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !strings.Contains(stream, string(data)) {
			t.Errorf("standard output lacks %s:\n%s", filepath.Base(f), data)
		}
	}
	if strings.Count(stream, "\n---\n") != 20 {
		t.Errorf("standard output: %d separators, want 20", strings.Count(stream, "\n---\n"))
	}
}

// TestImportOneResource: without --recursive only the resource named is
// imported, its owner by ARM ID; -o json is a v1 List; the policy chosen
// is written and a plan honours it.
func TestImportOneResource(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	if _, errOut, code := azk(t, "", with("apply", "--auto-approve", quickstart)...); code != 0 {
		t.Fatalf("apply: %s", errOut)
	}
	vnet := "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Network/virtualNetworks/quickstart-vnet"
	out, errOut, code := azk(t, "", with("import", vnet, "--policy", "skip", "-o", "json")...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	var list struct {
		Kind  string
		Items []struct {
			Kind     string
			Metadata struct{ Annotations map[string]string }
			Spec     map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || list.Kind != "List" || len(list.Items) != 1 {
		t.Fatalf("import -o json: %v\n%s", err, out)
	}
	item := list.Items[0]
	if item.Kind != "VirtualNetwork" || item.Metadata.Annotations["serviceoperator.azure.com/reconcile-policy"] != "skip" ||
		testkit.At[string](t, item.Spec, "owner", "armId") != "/subscriptions/"+emulatorSubscription+"/resourceGroups/azk-quickstart" {
		t.Errorf("imported %+v", item)
	}
	file := filepath.Join(t.TempDir(), "vnet.yaml")
	yamlOut, _, _ := azk(t, "", with("import", vnet, "--policy", "skip")...)
	os.WriteFile(file, []byte(yamlOut), 0o644)
	plan, errOut, code := azk(t, "", with("plan", file, "--show-unchanged")...)
	if code != 0 || !strings.Contains(plan, "0 to create, 0 to update, 0 unchanged, 1 skipped") {
		t.Errorf("plan of an imported skip resource: exit %d\n%s\n%s", code, plan, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "/subscriptions/" + emulatorSubscription + "/resourceGroups/azk-quickstart/providers/Microsoft.Fabrikam/widgets/w"}, "no ASO kind manages Microsoft.Fabrikam/widgets resources"},
		{[]string{"import", vnet + "x"}, "reading " + vnet + "x"},
		{[]string{"import", "not-an-id"}, `ARM ID "not-an-id"`},
		{[]string{"import", vnet, "--policy", "keep"}, `--policy "keep": use manage, detach-on-delete or skip`},
	} {
		if _, errOut, code := azk(t, "", with(c.args...)...); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if out, _, _ := azk(t, "", "__complete", "import", "--policy", ""); !strings.Contains(out, "detach-on-delete\n") {
		t.Errorf("--policy completion: %q", out)
	}
}
