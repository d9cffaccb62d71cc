package loader

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadEarlierReadsAGitRevision: --base names a commit; the inputs are
// read as that commit held them, a file added since holds nothing, and a
// path outside the repository is refused.
func TestLoadEarlierReadsAGitRevision(t *testing.T) {
	repo := gitRepo(t)
	second := rgDoc + "---\napiVersion: resources.azure.com/v1api20200601\nkind: ResourceGroup\nmetadata:\n  name: added\n"
	if err := os.WriteFile(filepath.Join(repo, "manifests", "rg.yaml"), []byte(second), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "manifests", "new.yaml"), []byte(rgDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)

	res, err := LoadEarlier("HEAD", Options{Paths: []string{"manifests"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range res.Resources {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"rg"}) {
		t.Errorf("HEAD held %v, want [rg]", names)
	}
	if res, err := LoadEarlier("HEAD", Options{Paths: []string{"manifests/new.yaml"}}); err != nil || len(res.Resources) != 0 {
		t.Errorf("a file added since: %v resources, %v; want none and no error", res, err)
	}
	if _, err := LoadEarlier("HEAD", Options{Paths: []string{t.TempDir()}}); err == nil {
		t.Error("a path outside the repository was read")
	}
	if _, err := LoadEarlier("no-such-revision", Options{Paths: []string{"manifests"}}); err == nil {
		t.Error("an unknown revision was read")
	}
	// An object read from a revision names its file as git does, REV:PATH,
	// not the temporary copy it was read from.
	if got := res.Resources[0].Source.String(); got != "HEAD:manifests/rg.yaml:1" {
		t.Errorf("source %q, want HEAD:manifests/rg.yaml:1", got)
	}
	// A saved plan records the commit a revision names, which later
	// commits do not move; a directory as it is.
	commit, err := EarlierRevision("HEAD", []string{"manifests"})
	if err != nil || len(commit) != 40 {
		t.Errorf("EarlierRevision(HEAD) = %q, %v; want a commit ID", commit, err)
	}
	if got, err := EarlierRevision(repo, []string{"manifests"}); got != repo || err != nil {
		t.Errorf("EarlierRevision(directory) = %q, %v; want the directory", got, err)
	}
	if _, err := EarlierRevision("no-such-revision", []string{"manifests"}); err == nil {
		t.Error("an unknown revision resolved")
	}
}

// gitRepo is a repository holding manifests/rg.yaml in one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := writeFiles(t, map[string]string{"manifests/rg.yaml": rgDoc})
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=azk", "-c", "user.email=azk@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("add", ".")
	run("commit", "-q", "-m", "base")
	return repo
}

// TestBaseIsARevisionOrADirectory: --base is handed to git only as a
// revision: a value that git would read as an option (--output=FILE
// truncated FILE, --remote= reached another repository) is refused before
// git runs, and so is a file (issue 22, item 2).
func TestBaseIsARevisionOrADirectory(t *testing.T) {
	repo := gitRepo(t)
	t.Chdir(repo)
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"--output=" + victim, "-o" + victim, "--remote=" + repo, "--format=zip", "-"} {
		_, err := LoadEarlier(base, Options{Paths: []string{"manifests"}})
		if err == nil || !strings.Contains(err.Error(), "--base "+base+": not a directory, and a git revision does not start with \"-\"") {
			t.Errorf("--base %s: %v; want it refused as an option", base, err)
		}
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me" {
		t.Errorf("the victim file now holds %q (%v)", data, err)
	}
	file := filepath.Join("manifests", "rg.yaml")
	if _, err := LoadEarlier(file, Options{Paths: []string{"manifests"}}); err == nil || !strings.Contains(err.Error(), "--base "+file+": a file: give a directory or a git revision") {
		t.Errorf("--base FILE: %v", err)
	}
	// A directory, and a revision that names a tree, are still read.
	if res, err := LoadEarlier(repo, Options{Paths: []string{"manifests"}}); err != nil || len(res.Resources) != 1 {
		t.Errorf("--base DIR: %v", err)
	}
	if res, err := LoadEarlier("HEAD~0", Options{Paths: []string{"manifests"}}); err != nil || len(res.Resources) != 1 {
		t.Errorf("--base HEAD~0: %v", err)
	}
}
