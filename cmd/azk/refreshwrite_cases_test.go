package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/emulator"
	"github.com/azkcli/azk/internal/testkit"
)

// copyDir copies the files of testdata/refreshwrite/name into a new folder.
func copyDir(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", "refreshwrite", name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type drift struct{ id, patch string }

func groupID(name string) string {
	return "/subscriptions/" + emulatorSubscription + "/resourceGroups/" + name
}

func netID(group, name string) string {
	return groupID(group) + "/providers/Microsoft.Network/virtualNetworks/" + name
}

// applyAndDrift applies the stack of dir, then changes Azure as drifts say.
func applyAndDrift(t *testing.T, run *emulator.Running, with func(...string) []string, dir string, drifts []drift) {
	t.Helper()
	if out, errOut, code := azk(t, "", with("apply", "--auto-approve", dir)...); code != 0 {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, d := range drifts {
		if err := run.Server.Drift(d.id, []byte(d.patch)); err != nil {
			t.Fatal(err)
		}
	}
}

// azk refresh --write, against drift in the emulator, changes only the
// lines whose values Azure changed, in files of every shape users keep:
// the line diff of each file is exactly those lines, and the file is a
// golden one.
func TestRefreshWriteChangesOnlyTheDriftedLines(t *testing.T) {
	run, flags := emulatorAt(t)
	with := func(args ...string) []string { return append(args, flags...) }
	for _, c := range []struct {
		name, file string
		drifts     []drift
		diff       []string
	}{
		{
			// A leading "---", a document of comments only, comments on
			// list items that stay and on one that changes.
			name: "comment-multidoc", file: "stack.yaml",
			drifts: []drift{{netID("rw-comment", "rw-comment-net"), `{"properties":{"addressSpace":{"addressPrefixes":["10.20.0.0/16","10.31.0.0/16"]},"dhcpOptions":{"dnsServers":["10.20.0.4"]}}}`}},
			diff: []string{
				"-      - 10.30.0.0/16   # data team\n", "+      - 10.31.0.0/16   # data team\n",
				"+  dhcpOptions:\n", "+    dnsServers:\n", "+      - 10.20.0.4\n",
				"+  enableDdosProtection: false\n", // the emulator's default, which reflect also keeps
			},
		},
		{
			name: "bom-crlf", file: "stack.yaml",
			drifts: []drift{{groupID("rw-bom"), `{"tags":{"team":"data","env":"prod"}}`}},
			diff:   []string{"-        team: web    # owners\r\n", "+        team: data    # owners\r\n"},
		},
		{
			name: "list", file: "stack.yaml",
			drifts: []drift{{groupID("rw-list"), `{"tags":{"team":"web","env":"prod"}}`}},
			diff:   []string{"-    tags: {team: web, env: dev}\n", "+    tags: {team: web, env: prod}\n"},
		},
		{
			name: "scalars", file: "stack.yaml",
			drifts: []drift{{groupID("rw-scalars"), `{"tags":{"notes":"kept as written","runbook":"1. rotate\n2. verify","owner":"bob"}}`}},
			diff:   []string{"-    owner: alice\n", "+    owner: bob\n"},
		},
		{
			name: "json", file: "net.json",
			drifts: []drift{{netID("rw-json", "rw-json-net"), `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16","10.9.0.0/16"]},"dhcpOptions":{"dnsServers":["10.0.0.4"]}}}`}},
			diff: []string{
				"-                \"10.0.0.0/16\"\n", "+                \"10.0.0.0/16\",\n", "+                \"10.9.0.0/16\"\n",
				"-        }\n", "+        },\n", "+        \"dhcpOptions\": {\n", "+            \"dnsServers\": [\n", "+                \"10.0.0.4\"\n", "+            ]\n", "+        },\n",
				"+        \"enableDdosProtection\": false\n",
			},
		},
		{
			name: "flow", file: "stack.yaml",
			drifts: []drift{{netID("rw-flow", "rw-flow-net"), `{"properties":{"addressSpace":{"addressPrefixes":["10.0.0.0/16","10.2.0.0/16"]}},"tags":{"team":"a","env":"prod"}}`}},
			diff: []string{
				"-  addressSpace: {addressPrefixes: [10.0.0.0/16, 10.1.0.0/16]}   # both ranges\n", "-  tags: {team: a, env: dev}\n",
				"+  addressSpace: {addressPrefixes: [10.0.0.0/16, 10.2.0.0/16]}   # both ranges\n", "+  tags: {team: a, env: prod}\n",
				"+  enableDdosProtection: false\n",
			},
		},
		{
			name: "quoted", file: "stack.yaml",
			drifts: []drift{{groupID("rw-quoted"), `{"tags":{"team":"data","owner":"bob's","cost":"43"}}`}},
			diff: []string{
				"-    team: \"web\"\n", "-    owner: 'alice'\n", "-    cost: \"42\"\n",
				"+    team: \"data\"\n", "+    owner: 'bob''s'\n", "+    cost: \"43\"\n",
			},
		},
		{
			name: "plain", file: "stack.yaml",
			drifts: []drift{{groupID("rw-plain-other"), `{"tags":{"team":"platform"}}`}},
			diff:   []string{"-    team: data\n", "+    team: platform\n"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, c.name)
			applyAndDrift(t, run, with, dir, c.drifts)
			path := filepath.Join(dir, c.file)
			before, _ := os.ReadFile(path)
			if out, errOut, code := azk(t, "", with("refresh", "--write", "--drift-policy", "reflect", dir)...); code != 0 {
				t.Fatalf("refresh --write: exit %d\n%s\n%s", code, out, errOut)
			}
			after, _ := os.ReadFile(path)
			golden(t, filepath.Join("refreshwrite", c.name+".golden"+filepath.Ext(c.file)), string(after))
			if filepath.Ext(c.file) == ".json" && !json.Valid(after) {
				t.Errorf("the JSON manifest is no longer JSON:\n%s", after)
			}
			if got := testkit.LineDiff(before, after); !slices.Equal(got, c.diff) {
				t.Errorf("line diff:\n%q\nwant:\n%q", got, c.diff)
			}
			if out, _, _ := azk(t, "", with("refresh", "--drift-policy", "reflect", dir)...); !strings.Contains(out, "Nothing to refresh") {
				t.Errorf("refresh after refresh --write:\n%s", out)
			}
		})
	}
}
