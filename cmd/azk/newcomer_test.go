package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests of this file are what a new user tripped on (issue 25, item 3).

// TestMisspeltFlagSuggestsTheNearest: a flag the command does not have gets
// the nearest one it has, in both the GNU and Terraform's single-dash forms,
// and where to see them all.
func TestMisspeltFlagSuggestsTheNearest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--emulater", quickstart}, "unknown flag: --emulater (did you mean --emulator?): see azk plan --help for its flags"},
		{[]string{"plan", "--emulater=true", quickstart}, "unknown flag: --emulater (did you mean --emulator?)"},
		{[]string{"apply", "-auto-aprove", quickstart}, "unknown flag: -auto-aprove (did you mean --auto-approve?): see azk apply --help"},
		{[]string{"validate", "--outptu", "json", quickstart}, "(did you mean --output?)"},
		{[]string{"validate", "--frobnicate", quickstart}, "unknown flag: --frobnicate: see azk validate --help for its flags"},
	} {
		out, errOut, code := azk(t, "", c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestKubectlDryRunPointsToPlan: kubectl's diff and --dry-run (in every
// form) point to azk plan, which does their job.
func TestKubectlDryRunPointsToPlan(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "-f", quickstart}, "azk has no diff: azk plan PATH... shows what applying would change"},
		{[]string{"apply", "--dry-run", quickstart}, "unknown flag: --dry-run (azk plan is apply's dry run: it shows what apply would do and writes nothing)"},
		{[]string{"apply", "--dry-run=server", quickstart}, "(azk plan is apply's dry run"},
		{[]string{"apply", "-dry-run", quickstart}, "unknown flag: -dry-run (azk plan is apply's dry run"},
		{[]string{"plan", "--dry-run=client", quickstart}, "unknown flag: --dry-run (azk plan never writes: it is the dry run already)"},
		{[]string{"destroy", "--dry-run", quickstart}, "(azk plan --destroy is destroy's dry run"},
	} {
		out, errOut, code := azk(t, "", c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
	if out, _, _ := azk(t, "", "--help"); strings.Contains(out, "diff") {
		t.Errorf("azk --help lists the diff pointer:\n%s", out)
	}
}

// TestOutputNames: azk output -o name lists the address of each exported
// object (as the README says it does), which output takes back as an argument.
func TestOutputNames(t *testing.T) {
	_, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	dir := copyExample(t, "storage-key-to-app")
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	const secret = "v1/Secret/default/azkkeysdata-secrets"
	out, errOut, code := azk(t, "", with("output", dir, "-o", "name")...)
	if code != 0 || out != secret+"\n" {
		t.Fatalf("output -o name: exit %d, %q\n%s", code, out, errOut)
	}
	if out, errOut, code := azk(t, "", with("output", dir, secret, "-o", "name")...); code != 0 || out != secret+"\n" {
		t.Errorf("output DIR %s -o name: exit %d, %q\n%s", secret, code, out, errOut)
	}
}

// TestShowSaysWhatIsNotAPlan: show of manifests or a folder says it is not
// a saved plan, without a JSON decoder's error.
func TestShowSaysWhatIsNotAPlan(t *testing.T) {
	manifest := filepath.Join(quickstart, "network.yaml")
	jsonFile := filepath.Join(t.TempDir(), "list.json")
	if err := os.WriteFile(jsonFile, []byte(`{"kind": "List", "items": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		manifest:   manifest + " is not a plan saved by azk plan --out: azk show prints saved plans (to see what applying manifests would do: azk plan " + manifest + ")",
		jsonFile:   jsonFile + " is not a plan saved by azk plan --out",
		quickstart: quickstart + " is a folder, not a plan saved by azk plan --out",
	} {
		out, errOut, code := azk(t, "", "show", path)
		if code != 1 || out != "" || !strings.Contains(errOut, want) || strings.Contains(errOut, "invalid character") || strings.Contains(errOut, "JSON") {
			t.Errorf("show %s: exit %d, %q, %q", path, code, out, errOut)
		}
	}
}

// TestSameInputTwiceIsReadOnce: a folder named twice (azk plan DIR -f DIR,
// ./DIR and DIR, DIR/, a symbolic link to it, a file or folder inside it) is
// read once, not reported as every resource duplicated.
func TestSameInputTwiceIsReadOnce(t *testing.T) {
	dir := copyExample(t, "quickstart")
	if err := os.MkdirAll(filepath.Join(dir, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "storage.yaml"), filepath.Join(dir, "more", "storage.yaml")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	t.Chdir(filepath.Dir(dir))
	name := filepath.Base(dir)
	for _, args := range [][]string{
		{name, "-f", name},
		{"./" + name, name + "/"},
		{name, link},
		{filepath.Join(name, "network.yaml"), name},
		{name, filepath.Join(name, "more")},
		{"-f", name, "-f", dir},
	} {
		out, errOut, code := azk(t, "", append([]string{"validate", "--subscription", emulatorSubscription}, args...)...)
		if code != 0 || out != "9 resources valid\n" || strings.Contains(errOut, "duplicate") {
			t.Errorf("validate %v: exit %d, %q, %q", args, code, out, errOut)
		}
	}
	// A file the folder's walk does not read (another extension) is still read.
	extra := filepath.Join(name, "extra.txt")
	if err := os.WriteFile(extra, []byte("apiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: extra\nspec:\n  location: westus2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := azk(t, "", "validate", "--subscription", emulatorSubscription, name, extra); code != 0 || out != "10 resources valid\n" {
		t.Errorf("validate DIR DIR/extra.txt: exit %d, %q, %q", code, out, errOut)
	}
}

// TestTargetCompletionWhateverTheOrder: --target completes the addresses of
// the inputs whether the paths come before the flag, are given with -f, or
// are not given yet (the current folder's, as shells pass only the words
// before the cursor), in Terraform's -target form too; each address in the
// shortest form that begins with the word typed.
func TestTargetCompletionWhateverTheOrder(t *testing.T) {
	abs, err := filepath.Abs(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	complete := func(args ...string) []string {
		t.Helper()
		out, errOut, code := azk(t, "", append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1] // the last line is cobra's directive
	}
	subnets := []string{"VirtualNetworksSubnet/web", "VirtualNetworksSubnet/data"}
	for _, args := range [][]string{
		{"plan", abs, "--target", "VirtualNetworksSub"},
		{"plan", "--target", "ResourceGroup/azk-quickstart", abs, "--target", "VirtualNetworksSub"},
		{"apply", "-f", abs, "--target", "VirtualNetworksSub"},
		{"destroy", abs, "-target", "VirtualNetworksSub"},
		{"plan", "-target", "ResourceGroup/azk-quickstart", "-f", abs, "-target", "VirtualNetworksSub"},
		{"plan", abs, "--send-secrets", "VirtualNetworksSub"},
	} {
		if got := complete(args...); !slices.Equal(got, subnets) {
			t.Errorf("%v: %q, want %q", args, got, subnets)
		}
	}
	if got := complete("plan", abs, "--target", "VirtualNetworksSubnet/d"); !slices.Equal(got, []string{"VirtualNetworksSubnet/default/web", "VirtualNetworksSubnet/data"}) {
		t.Errorf("Kind/namespace/name form: %q", got)
	}
	if got := complete("plan", abs, "--target", "network.azure.com/VirtualNetworksSubnet/"); len(got) != 2 || got[0] != "network.azure.com/VirtualNetworksSubnet/default/web" {
		t.Errorf("group/Kind/namespace/name form: %q", got)
	}
	t.Chdir(abs)
	if got := complete("plan", "--target", ""); len(got) != 9 || !slices.Contains(got, "ResourceGroup/azk-quickstart") {
		t.Errorf("no path yet, in the manifests' folder: %q", got)
	}
}

// TestReadmeInvalidExample: the README's azk validate of the shipped
// examples/invalid/broken.yaml prints what the README shows (issue 25,
// item 4: it named a file that was not shipped).
func TestReadmeInvalidExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const command = "    $ azk validate examples/invalid/broken.yaml\n"
	_, block, ok := strings.Cut(string(readme), command)
	if !ok {
		t.Fatalf("the README does not show %q", command)
	}
	var want []string
	for _, line := range strings.Split(block, "\n") {
		if line != "" && !strings.HasPrefix(line, "    ") {
			break
		}
		if line = strings.TrimPrefix(line, "    "); line != "" {
			want = append(want, line)
		}
	}
	t.Chdir(filepath.Join("..", ".."))
	out, errOut, code := azk(t, "", "validate", "examples/invalid/broken.yaml")
	var got []string
	for _, line := range strings.Split(errOut+out, "\n") {
		if strings.HasPrefix(line, "Error: ") || line != "" && !strings.HasPrefix(line, "Warning: ") {
			got = append(got, line)
		}
	}
	if code != 1 || !slices.Equal(got, want) {
		t.Errorf("validate examples/invalid/broken.yaml: exit %d\n%s\nthe README shows:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
