package main

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

	"github.com/azkcli/azk/internal/loader"
)

// baseAddresses reads the manifests as they were before the change under
// review (azk plan --base) and returns the addresses of their resources.
// base is a directory holding that version of the working tree, or a git
// revision of the repository holding the inputs. Each input path is looked
// up at the same place relative to the tree's root; a path that did not
// exist then holds nothing.
func baseAddresses(base string, paths, kustomize []string, namespace string) (map[string]bool, error) {
	for _, p := range paths {
		if p == "-" {
			return nil, errors.New("--base: standard input has no earlier version to compare with")
		}
	}
	root, tree, cleanup, err := baseTree(base, append(append([]string(nil), paths...), kustomize...))
	if err != nil {
		return nil, err
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
			if _, err := os.Stat(filepath.Join(tree, rel)); err == nil {
				out = append(out, filepath.Join(tree, rel))
			}
		}
		return out, nil
	}
	basePaths, err := rebase(paths)
	if err != nil {
		return nil, err
	}
	baseKustomize, err := rebase(kustomize)
	if err != nil {
		return nil, err
	}
	addresses := map[string]bool{}
	if len(basePaths)+len(baseKustomize) == 0 {
		return addresses, nil
	}
	res, diags := loader.Load(loader.Options{Paths: basePaths, Kustomize: baseKustomize, Namespace: namespace})
	if err := diags.Err(); err != nil {
		return nil, fmt.Errorf("--base %s: reading the earlier manifests: %w", base, err)
	}
	for _, o := range res.Resources {
		addresses[o.Address()] = true
	}
	return addresses, nil
}

// baseTree finds the tree the base is read from: for a directory, the
// current directory's counterpart is the directory itself; for a git
// revision, the revision of the repository holding the inputs, extracted to
// a temporary directory.
func baseTree(base string, inputs []string) (root, tree string, cleanup func(), err error) {
	if info, err := os.Stat(base); err == nil && info.IsDir() {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", nil, err
		}
		return wd, base, func() {}, nil
	}
	dir := "."
	if len(inputs) > 0 {
		dir = inputs[0]
		if info, err := os.Stat(dir); err == nil && !info.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", nil, fmt.Errorf("--base %s: not a directory, and no git repository holds the inputs: %w", base, err)
	}
	root = strings.TrimSpace(string(top))
	archive, err := git(root, "archive", "--format=tar", base)
	if err != nil {
		return "", "", nil, fmt.Errorf("--base %s: not a directory nor a git revision of %s: %w", base, root, err)
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

// untar writes the regular files and directories of a git archive under dir.
func untar(archive []byte, dir string) error {
	r := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := r.Next()
		if err == io.EOF {
			return nil
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
		}
	}
}
