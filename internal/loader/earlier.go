package loader

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/azkcli/azk/internal/diag"
)

// LoadEarlier reads the inputs of opts as they were before the change under
// review (azk plan --base). base is a directory holding that version of the
// working tree, or a git revision of the repository holding the inputs.
// Each input path is looked up at the same place relative to the tree's
// root, through the symbolic links the tree holds, which must stay inside
// it; a path that did not exist then holds nothing, and an empty Result
// says none did. What cannot be read is in the diagnostics, naming the
// base's files, beside what could; the error is for a base that cannot be
// read at all.
func LoadEarlier(base string, opts Options) (*Result, diag.List, error) {
	for _, p := range opts.Paths {
		if p == "-" {
			return nil, nil, errors.New("--base: standard input has no earlier version to compare with")
		}
	}
	root, tree, cleanup, err := earlierTree(base, append(append([]string(nil), opts.Paths...), opts.Kustomize...))
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	rebase := func(in []string) ([]string, error) {
		var out []string
		for _, p := range in {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("--base: %s is outside %s, the tree the base is compared in", p, root)
			}
			// Read through the links the base holds, as it holds them.
			resolved, err := resolveIn(tree, filepath.Join(tree, rel))
			var le *linkError
			if errors.As(err, &le) {
				return nil, fmt.Errorf("--base %s: %s: %w", base, p, err)
			}
			if err == nil {
				out = append(out, resolved)
			}
		}
		return out, nil
	}
	if opts.Paths, err = rebase(opts.Paths); err != nil {
		return nil, nil, err
	}
	if opts.Kustomize, err = rebase(opts.Kustomize); err != nil {
		return nil, nil, err
	}
	if len(opts.Paths)+len(opts.Kustomize) == 0 {
		return &Result{}, nil, nil
	}
	res, diags := loadIn(opts, tree)
	for _, list := range [][]*Object{res.Resources, res.Secrets, res.ConfigMaps, res.Namespaces, res.Others} {
		for _, o := range list {
			if rel, err := filepath.Rel(tree, o.Source.File); err == nil && o.Source.File != "" && !strings.HasPrefix(rel, "..") {
				o.HeadFile = filepath.Join(root, rel)
			}
		}
	}
	if tree != base {
		// The tree is a temporary copy: name files as git does, REV:PATH.
		relabel := func(src *diag.Source) {
			if rel, err := filepath.Rel(tree, src.File); err == nil && src.File != "" && !strings.HasPrefix(rel, "..") {
				src.File = base + ":" + filepath.ToSlash(rel)
			}
		}
		for _, list := range [][]*Object{res.Resources, res.Secrets, res.ConfigMaps, res.Namespaces, res.Others} {
			for _, o := range list {
				relabel(&o.Source)
			}
		}
		for _, d := range diags {
			relabel(&d.Source)
		}
	}
	return res, diags, nil
}

// EarlierRevision is base as a saved plan records it, so that applying the
// plan later reads the same manifests: the commit a git revision names now
// (HEAD~1 names another one after the next commit), or base itself for a
// directory. inputs are the input paths, as for LoadEarlier.
func EarlierRevision(base string, inputs []string) (string, error) {
	if info, err := os.Stat(base); err == nil && info.IsDir() {
		return base, nil
	}
	if err := CheckBase(base); err != nil {
		return "", err
	}
	commit, err := git(gitDir(inputs), "rev-parse", "--verify", "--end-of-options", base+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("--base %s: not a directory nor a git revision: %w%s", base, err, shallowHint(base))
	}
	return strings.TrimSpace(string(commit)), nil
}

// CheckBase refuses a --base value that can be neither a directory nor a
// git revision before anything reads it: git would take a value starting
// with "-" as one of its options (--output=FILE, --remote=URL), and no
// revision is spelled so.
func CheckBase(base string) error {
	if base == "" || strings.HasPrefix(base, "-") {
		return fmt.Errorf("--base %s: not a directory, and a git revision does not start with \"-\"", base)
	}
	return nil
}

// NullRevision reports git's all-zero object name, which names no commit:
// GitHub's github.event.before on a branch's first push.
func NullRevision(base string) bool {
	return len(base) == 40 && strings.Trim(base, "0") == ""
}

// gitDir is where git is asked about the repository holding the inputs:
// the first input's nearest folder that is not a symbolic link, so that it
// is the repository holding the path as given, which may be a link leading
// elsewhere or nowhere, or not exist any more.
func gitDir(inputs []string) string {
	if len(inputs) == 0 {
		return "."
	}
	for dir := inputs[0]; ; dir = filepath.Dir(dir) {
		if info, err := os.Lstat(dir); (err == nil && info.IsDir()) || filepath.Dir(dir) == dir {
			return dir
		}
	}
}

// earlierTree finds the tree the base is read from: for a directory, the
// current directory's counterpart is the directory itself; for a git
// revision, the revision of the repository holding the inputs, extracted to
// a temporary directory.
func earlierTree(base string, inputs []string) (root, tree string, cleanup func(), err error) {
	if info, err := os.Stat(base); err == nil {
		if !info.IsDir() {
			return "", "", nil, fmt.Errorf("--base %s: a file: give a directory or a git revision", base)
		}
		wd, err := os.Getwd()
		if err != nil {
			return "", "", nil, err
		}
		return wd, base, func() {}, nil
	}
	if err := CheckBase(base); err != nil {
		return "", "", nil, err
	}
	top, err := git(gitDir(inputs), "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", nil, fmt.Errorf("--base %s: not a directory, and no git repository holds the inputs: %w", base, err)
	}
	root = strings.TrimSpace(string(top))
	// The revision is resolved to its tree's object name first, so that
	// archive is handed a hexadecimal name and nothing the user typed.
	object, err := git(root, "rev-parse", "--verify", "--quiet", base+"^{tree}")
	if err != nil {
		return "", "", nil, fmt.Errorf("--base %s: not a directory nor a git revision of %s%s", base, root, shallowHint(base))
	}
	archive, err := git(root, "archive", "--format=tar", strings.TrimSpace(string(object)))
	if err != nil {
		return "", "", nil, fmt.Errorf("--base %s: %w", base, err)
	}
	tree, err = os.MkdirTemp("", "azk-base-")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(tree) }
	if err := untar(archive, tree); err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("--base %s: %w", base, err)
	}
	return root, tree, cleanup, nil
}

// shallowHint is the likely fix when a revision is missing: a shallow
// checkout (CI's default) lacks the base.
func shallowHint(base string) string {
	fetch := "git fetch origin " + strings.TrimPrefix(base, "origin/")
	if strings.ContainsAny(base, "~^") {
		fetch = "git fetch --unshallow"
	}
	return fmt.Sprintf("\n(a shallow checkout, CI's default, lacks earlier commits: fetch the base with %s, or check out the whole history, fetch-depth: 0 in actions/checkout)", fetch)
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// untar writes the regular files, directories and symbolic links of a git
// archive under dir. Links are made last, so that no file is written
// through one; they are followed only inside dir (resolveIn).
func untar(archive []byte, dir string) error {
	r := tar.NewReader(bytes.NewReader(archive))
	var links []*tar.Header
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(filepath.Separator)) {
			continue // never write outside dir
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, data, 0o644); err != nil {
				return err
			}
		case tar.TypeSymlink:
			links = append(links, h)
		}
	}
	for _, h := range links {
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(h.Linkname, target); err != nil {
			return err
		}
	}
	return nil
}
