package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// removeDocument drops from file the YAML document holding marker.
func removeDocument(t *testing.T, file, marker string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	kept := slices.DeleteFunc(docs, func(d string) bool { return strings.Contains(d, marker) })
	if len(kept) == len(docs) {
		t.Fatalf("%s holds no document with %q", file, marker)
	}
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The agreement test for the deployment engine: a deployment stack deletes
// exactly what azk announced it would ("the stack will delete ...") and what
// ARM deletes with those, nothing else, though its deletions happen inside
// ARM where no proxy sees them (the emulator's state before and after is
// compared); and the deployment engine, which deletes only through a stack,
// refuses a plan that deletes or replaces, writing nothing.
func TestStackDeletesExactlyWhatItAnnounced(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "quickstart")
	// The stack's own requests are not the plan's writes: what it deletes
	// is checked against the emulator's state instead (runAzk, not azk).
	if out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "qs", dir)...); code != 0 {
		t.Fatalf("apply --stack: exit %d\n%s\n%s", code, out, errOut)
	}
	removeDocument(t, filepath.Join(dir, "storage.yaml"), "kind: StorageAccountsBlobServicesContainer")
	removeDocument(t, filepath.Join(dir, "network.yaml"), "name: data\n")
	before := run.Server.ResourceIDs()
	out, errOut, code := runAzk("", with("apply", "--auto-approve", "--engine", "deployment", "--stack", "qs", dir)...)
	if code != 0 {
		t.Fatalf("apply --stack without the container and a subnet: exit %d\n%s\n%s", code, out, errOut)
	}
	var announced []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "the stack will delete "); ok {
			announced = append(announced, strings.ToLower(strings.TrimSuffix(strings.Fields(rest)[0], ",")))
		}
	}
	if len(announced) != 2 {
		t.Fatalf("announced %q, want the container and the subnet\n%s", announced, out)
	}
	after := map[string]bool{}
	for _, id := range run.Server.ResourceIDs() {
		after[strings.ToLower(id)] = true
	}
	for _, id := range before {
		l := strings.ToLower(id)
		if after[l] {
			continue
		}
		if !slices.ContainsFunc(announced, func(a string) bool { return l == a || strings.HasPrefix(l, a+"/") }) {
			t.Errorf("the stack deleted %s, which azk did not announce", id)
		}
	}
	for _, a := range announced {
		if after[a] {
			t.Errorf("azk announced the stack would delete %s, which is still there", a)
		}
	}

	// A removal (a --base directory holding the security rule the head
	// drops) and a replacement: the deployment engine refuses both.
	t.Chdir(filepath.Dir(dir))
	if err := os.CopyFS(filepath.Join("base", "quickstart"), os.DirFS("quickstart")); err != nil {
		t.Fatal(err)
	}
	removeDocument(t, filepath.Join("quickstart", "network.yaml"), "kind: NetworkSecurityGroupsSecurityRule")
	for _, args := range [][]string{
		{"apply", "--auto-approve", "--engine", "deployment", "-replace=VirtualNetwork/quickstart-vnet", "quickstart"},
		{"apply", "--auto-approve", "--engine", "deployment", "--base", "base", "quickstart"},
	} {
		// The helper fails the test on any write an apply that planned nothing sends.
		if out, errOut, code := azk(t, "", with(args...)...); code != 1 || !strings.Contains(errOut, "which a deployment template does not do") {
			t.Errorf("%s: exit %d, want 1 refusing it\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}
