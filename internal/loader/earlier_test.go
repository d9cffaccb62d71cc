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

	res, err := loadEarlier("HEAD", Options{Paths: []string{"manifests"}})
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
	if res, err := loadEarlier("HEAD", Options{Paths: []string{"manifests/new.yaml"}}); err != nil || len(res.Resources) != 0 {
		t.Errorf("a file added since: %v resources, %v; want none and no error", res, err)
	}
	if _, err := loadEarlier("HEAD", Options{Paths: []string{t.TempDir()}}); err == nil {
		t.Error("a path outside the repository was read")
	}
	if _, err := loadEarlier("no-such-revision", Options{Paths: []string{"manifests"}}); err == nil {
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
		_, err := loadEarlier(base, Options{Paths: []string{"manifests"}})
		if err == nil || !strings.Contains(err.Error(), "--base "+base+": not a directory, and a git revision does not start with \"-\"") {
			t.Errorf("--base %s: %v; want it refused as an option", base, err)
		}
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me" {
		t.Errorf("the victim file now holds %q (%v)", data, err)
	}
	file := filepath.Join("manifests", "rg.yaml")
	if _, err := loadEarlier(file, Options{Paths: []string{"manifests"}}); err == nil || !strings.Contains(err.Error(), "--base "+file+": a file: give a directory or a git revision") {
		t.Errorf("--base FILE: %v", err)
	}
	// A directory, and a revision that names a tree, are still read.
	if res, err := loadEarlier(repo, Options{Paths: []string{"manifests"}}); err != nil || len(res.Resources) != 1 {
		t.Errorf("--base DIR: %v", err)
	}
	if res, err := loadEarlier("HEAD~0", Options{Paths: []string{"manifests"}}); err != nil || len(res.Resources) != 1 {
		t.Errorf("--base HEAD~0: %v", err)
	}
}

// commitTree makes a repository of files and symbolic links (path ->
// target as stored) in one commit.
func commitTree(t *testing.T, files, links map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := writeFiles(t, files)
	makeLinks(t, repo, links)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=azk", "-c", "user.email=azk@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

func makeLinks(t *testing.T, dir string, links map[string]string) {
	t.Helper()
	for name, target := range links {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Skipf("symbolic links: %v", err)
		}
	}
}

func names(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	return out
}

func rgNamed(name string) string {
	return strings.Replace(rgDoc, "name: rg", "name: "+name, 1)
}

// TestBaseThroughALinkedInput: an input path that is a symbolic link in
// the base (envs/prod -> ../stacks/v1) is read through it, in a revision
// and in a directory, even after the head moved the link; a link that
// leads outside the tree, dangles or loops is refused, naming the input
// and the reason, never read as empty.
func TestBaseThroughALinkedInput(t *testing.T) {
	files := map[string]string{
		"stacks/v1/rg.yaml": rgNamed("rg-a") + "---\n" + rgNamed("rg-old"),
		"stacks/v2/rg.yaml": rgNamed("rg-a"),
		"envs/real/rg.yaml": rgNamed("rg-real"),
	}
	links := map[string]string{
		"envs/prod":     "../stacks/v1",
		"envs/alias":    "prod", // a link to a link
		"envs/out":      "../../outside",
		"envs/absolute": "/etc",
		"envs/gone":     "../stacks/v9",
		"envs/loop":     "loop2",
		"envs/loop2":    "loop",
	}
	repo := commitTree(t, files, links)
	dirBase := writeFiles(t, files)
	makeLinks(t, dirBase, links)
	// The head moves prod to the next stack, which dropped rg-old.
	if err := os.Remove(filepath.Join(repo, "envs", "prod")); err != nil {
		t.Fatal(err)
	}
	makeLinks(t, repo, map[string]string{"envs/prod": "../stacks/v2"})
	t.Chdir(repo)

	for _, base := range []string{"HEAD", dirBase} {
		for _, input := range []string{"envs/prod", "envs/alias", "envs/prod/rg.yaml"} {
			res, err := loadEarlier(base, Options{Paths: []string{input}})
			if err != nil {
				t.Fatalf("--base %s %s: %v", base, input, err)
			}
			check(t, "--base "+base+" "+input, names(res.Resources), []string{"rg-a", "rg-old"})
		}
		for input, reason := range map[string]string{
			"envs/out":          "symbolic link envs/out -> ../../outside leads outside the tree the base is read from",
			"envs/absolute":     "symbolic link envs/absolute -> /etc leads outside the tree the base is read from",
			"envs/gone":         "symbolic link envs/gone -> ../stacks/v9 dangles: stacks/v9 does not exist",
			"envs/loop":         "loops: more than 40 links followed",
			"envs/gone/rg.yaml": "symbolic link envs/gone -> ../stacks/v9 dangles",
		} {
			_, err := loadEarlier(base, Options{Paths: []string{input}})
			if want := "--base " + base + ": " + input + ": "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), reason) {
				t.Errorf("--base %s %s: %v; want %s%s", base, input, err, want, reason)
			}
		}
	}
	// A file the link's target did not hold then is one added since.
	if res, err := loadEarlier("HEAD", Options{Paths: []string{"envs/prod/new.yaml"}}); err != nil || len(res.Resources) != 0 {
		t.Errorf("a file added since under a link: %v, %v; want nothing and no error", res, err)
	}
	// Objects read through the link name the file git holds.
	res, err := loadEarlier("HEAD", Options{Paths: []string{"envs/prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Resources[1].Source.String(); got != "HEAD:stacks/v1/rg.yaml:6" {
		t.Errorf("source %q, want HEAD:stacks/v1/rg.yaml:6", got)
	}
}

// TestBaseReadsFolderLinksAsTheHeadDoes: links inside an input folder are
// followed in the base as in the head (to a file, to a folder; a dangling
// one under a manifest's name is an error, under another name skipped),
// and only inside the tree: one leading out of it is an error in the base,
// for what it led to then is not known.
func TestBaseReadsFolderLinksAsTheHeadDoes(t *testing.T) {
	outside := writeFiles(t, map[string]string{"rg.yaml": rgNamed("rg-outside")})
	repo := commitTree(t, map[string]string{
		"manifests/rg.yaml":    rgNamed("rg-plain"),
		"shared/one.yaml":      rgNamed("rg-one"),
		"shared/more/two.yaml": rgNamed("rg-two"),
		"dangling/rg.yaml":     rgNamed("rg-d"),
		"escaping/rg.yaml":     rgNamed("rg-e"),
	}, map[string]string{
		"manifests/linked.yaml": "../shared/one.yaml",
		"manifests/more":        "../shared/more",
		"manifests/notes":       "nowhere", // dangling, not a manifest's name
		"dangling/gone.yaml":    "nowhere.yaml",
		"escaping/out.yaml":     filepath.Join(outside, "rg.yaml"),
	})
	t.Chdir(repo)

	head, diags := Load(Options{Paths: []string{"manifests"}})
	check(t, "head diagnostics", render(diags), nil)
	base, err := loadEarlier("HEAD", Options{Paths: []string{"manifests"}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "head", names(head.Resources), []string{"rg-one", "rg-two", "rg-plain"})
	check(t, "base", names(base.Resources), names(head.Resources))

	_, diags = Load(Options{Paths: []string{"dangling"}})
	check(t, "head, a dangling link", render(diags), []string{"error: " + filepath.Join("dangling", "gone.yaml") + ": no such file or directory"})
	_, err = loadEarlier("HEAD", Options{Paths: []string{"dangling"}})
	if want := "HEAD:dangling/gone.yaml: symbolic link dangling/gone.yaml -> nowhere.yaml dangles: dangling/nowhere.yaml does not exist"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("base, a dangling link: %v; want %s", err, want)
	}

	head, diags = Load(Options{Paths: []string{"escaping"}})
	check(t, "head, a link out of the repository", names(head.Resources), []string{"rg-outside", "rg-e"})
	check(t, "head diagnostics", render(diags), nil)
	_, err = loadEarlier("HEAD", Options{Paths: []string{"escaping"}})
	if want := "HEAD:escaping/out.yaml: symbolic link escaping/out.yaml -> " + filepath.Join(outside, "rg.yaml") + " leads outside the tree the base is read from"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("base, a link out of the tree: %v; want %s", err, want)
	}
}

// loadEarlier is LoadEarlier with the errors of its diagnostics as its error.
func loadEarlier(base string, opts Options) (*Result, error) {
	res, diags, err := LoadEarlier(base, opts)
	if err != nil {
		return nil, err
	}
	return res, diags.Err()
}

// TestLoadEarlierReadsWhatItCan: a base file that does not parse is a
// diagnostic naming it as the base holds it, beside the objects of the
// files that do (a pull request that fixes a broken main gets a plan).
func TestLoadEarlierReadsWhatItCan(t *testing.T) {
	repo := commitTree(t, map[string]string{
		"manifests/rg.yaml":     rgNamed("rg-good"),
		"manifests/broken.yaml": "kind: [\n",
	}, nil)
	t.Chdir(repo)
	res, diags, err := LoadEarlier("HEAD", Options{Paths: []string{"manifests"}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "base", names(res.Resources), []string{"rg-good"})
	if e := diags.Err(); e == nil || !strings.Contains(e.Error(), "HEAD:manifests/broken.yaml:") {
		t.Errorf("diagnostics %v; want an error naming HEAD:manifests/broken.yaml", e)
	}
}
