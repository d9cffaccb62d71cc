package deployment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteReplacesOnlyWhatAzkWrote: an export removes the templates an
// earlier export's index names, and never a file azk did not write, even
// one named like a template; it refuses to replace such a file, or an
// index that is not azk's (issue 22, item 6: every NN-*.json was deleted).
func TestWriteReplacesOnlyWhatAzkWrote(t *testing.T) {
	set := func(files ...string) *Set {
		s := &Set{}
		for _, f := range files {
			s.Templates = append(s.Templates, &Template{File: f, Scope: Scope{Subscription: "00000000-0000-0000-0000-000000000000"}, Location: "westus2",
				doc: object{{Key: "resources", Value: []any{}}}})
		}
		return s
	}
	dir := t.TempDir()
	mine := map[string]string{"01-notes.json": "the user's", "99-budget.json": "the user's too", "other.txt": "kept"}
	for name, content := range mine {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if err := set("02-subscription.json", "03-rg.json").Write(dir, "azk-test"); err != nil {
		t.Fatal(err)
	}
	if err := set("02-subscription.json").Write(dir, "azk-test"); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want ...string) {
		t.Helper()
		if got := strings.Join(files(), " "); got != strings.Join(want, " ") {
			t.Errorf("%s: the folder holds %s, want %s", what, got, strings.Join(want, " "))
		}
	}
	check("after two exports", "01-notes.json", "02-subscription.json", "99-budget.json", "index.json", "other.txt")
	for name, content := range mine {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != content {
			t.Errorf("%s now holds %q", name, data)
		}
	}

	// A template named like a file azk did not write is refused.
	err := set("01-notes.json").Write(dir, "azk-test")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "01-notes.json")+": azk did not write it") {
		t.Errorf("replacing the user's file: %v", err)
	}
	check("after the refusal", "01-notes.json", "02-subscription.json", "99-budget.json", "index.json", "other.txt")

	// An index azk did not write is the user's.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "index.json"), []byte(`{"pages": ["01-a.json"]}`), 0o644)
	if err := set("01-a.json").Write(other, "azk-test"); err == nil || !strings.Contains(err.Error(), "is not the index of an azk export") {
		t.Errorf("an index azk did not write: %v", err)
	}
}
