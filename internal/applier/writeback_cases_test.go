package applier_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/loader"
	"github.com/azkcli/azk/internal/manifestedit"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// lineDiff is the lines a line diff of before and after shows, "-" or "+"
// and the line with its line break.
func lineDiff(before, after []byte) []string {
	a, b := difflib.SplitLines(string(before)), difflib.SplitLines(string(after))
	var out []string
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		for _, l := range a[op.I1:op.I2] {
			out = append(out, "-"+l)
		}
		for _, l := range b[op.J1:op.J2] {
			out = append(out, "+"+l)
		}
	}
	return out
}

// policyLine is a line the write-back may change: the annotation it
// writes, the one it takes out, the annotations key it adds, or a flow
// mapping of metadata or annotations holding them.
var policyLine = regexp.MustCompile(`^[-+]\s*"?(serviceoperator\.azure\.com/reconcile-policy(-if-exists)?"?:|annotations"?:\s*(\{.*reconcile-policy.*\}\s*,?)?\r?\n$)|^[-+]\s*metadata: \{.*\}\n$`)

// copyCase copies a case of testdata/writeback into a new folder.
func copyCase(t *testing.T, name string) (path string, before []byte) {
	t.Helper()
	before, err := os.ReadFile(filepath.Join("testdata", "writeback", name))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, before, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, before
}

func writePolicies(t *testing.T, path string) error {
	t.Helper()
	res, diags := loader.Load(loader.Options{Paths: []string{path}})
	if err := diags.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) == 0 {
		t.Fatalf("%s holds no resource", path)
	}
	for _, o := range res.Resources {
		if err := applier.WritePolicy(o, "manage"); err != nil {
			return err
		}
	}
	return nil
}

// Apply's write-back of the reconcile policy changes only the annotation
// lines, in files of every shape users keep; each result is a golden file.
func TestWritePolicyChangesOnlyTheAnnotationLines(t *testing.T) {
	for _, name := range []string{
		"comment-only.yaml", "bom.yaml", "list.yaml", "scalars.yaml", "manifest.json", "crlf-4space.yaml",
		"list-comments.yaml", "flow.yaml", "quoted.yaml", "multidoc-leading.yaml", "multidoc-plain.yaml",
	} {
		t.Run(name, func(t *testing.T) {
			path, before := copyCase(t, name)
			if err := writePolicies(t, path); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ext := filepath.Ext(name)
			golden := filepath.Join("testdata", "writeback", strings.TrimSuffix(name, ext)+".golden"+ext)
			if *update {
				if err := os.WriteFile(golden, after, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != string(want) {
				t.Errorf("written file differs from %s:\n%s", golden, after)
			}
			if ext == ".json" && !json.Valid(after) {
				t.Errorf("the JSON manifest is no longer JSON:\n%s", after)
			}
			diff := lineDiff(before, after)
			if len(diff) == 0 {
				t.Errorf("nothing changed")
			}
			for _, l := range diff {
				if !policyLine.MatchString(l) {
					t.Errorf("the diff shows a line that is not the policy's: %q", l)
				}
			}
			if err := writePolicies(t, path); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); string(again) != string(after) {
				t.Errorf("writing the same policy again changed the file:\n%s", again)
			}
		})
	}
}

// Through a symbolic link the target is written and the link stays a link.
func TestWritePolicyThroughASymlink(t *testing.T) {
	target, _ := copyCase(t, "multidoc-plain.yaml")
	link := filepath.Join(t.TempDir(), "linked.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writePolicies(t, link); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v", err)
	}
	got, _ := os.ReadFile(target)
	want, _ := os.ReadFile(filepath.Join("testdata", "writeback", "multidoc-plain.golden.yaml"))
	if string(got) != string(want) {
		t.Errorf("the link's target:\n%s", got)
	}
}

// A read-only manifest is refused, nothing written; so is a generated one,
// naming its source.
func TestWritePolicyRefusesReadOnlyAndGeneratedFiles(t *testing.T) {
	path, before := copyCase(t, "comment-only.yaml")
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	err := writePolicies(t, path)
	var nw *manifestedit.NotWrittenError
	if !errors.As(err, &nw) || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("read-only: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(before) {
		t.Errorf("a read-only file changed")
	}
	generated := filepath.Join(t.TempDir(), "rendered.yaml")
	content := "# Code generated by helm template from charts/identities. DO NOT EDIT.\n" + string(before)
	if err := os.WriteFile(generated, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writePolicies(t, generated); !errors.As(err, &nw) || !strings.Contains(err.Error(), "charts/identities") {
		t.Errorf("generated: %v", err)
	}
	if got, _ := os.ReadFile(generated); string(got) != content {
		t.Errorf("a generated file changed")
	}
}

// On a full disk (a tmpfs with no room for the new copy) the manifest is
// left whole and the error says nothing was written.
func TestWritePolicyOnAFullDisk(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; manifestedit's failing-writer test covers a full disk")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); manifestedit's failing-writer test covers a full disk", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount: %v: %s", err, out)
		}
	})
	_, identity := copyCase(t, "comment-only.yaml")
	before := append([]byte(strings.Repeat("# a long note kept at the top of the file\n", 1100)), identity...) // ~47 KiB
	path := filepath.Join(dir, "identities.yaml")
	if err := os.WriteFile(path, before, 0o644); err != nil {
		t.Fatal(err)
	}
	err := writePolicies(t, path)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "nothing was written, the file is as it was") {
		t.Errorf("error %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(before) {
		t.Errorf("the manifest changed on a full disk: %d bytes, was %d", len(got), len(before))
	}
}
