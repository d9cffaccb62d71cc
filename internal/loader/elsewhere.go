package loader

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// Elsewhere lists the manifest files (.yaml, .yml, .json) of the working
// tree of the git repository holding inputs that are outside them: where
// a resource the inputs no longer declare may have moved to. Hidden
// folders and files, vendor and node_modules, symbolic links and files
// over MaxFileBytes are skipped. root is the repository's top folder.
func Elsewhere(inputs []string) (root string, files []string, err error) {
	top, err := git(gitDir(inputs), "rev-parse", "--show-toplevel")
	if err != nil {
		return "", nil, err
	}
	if root, err = filepath.EvalSymlinks(strings.TrimSpace(string(top))); err != nil {
		return "", nil, err
	}
	skip := map[string]bool{}
	for _, in := range inputs {
		if abs, err := filepath.Abs(in); err == nil {
			skip[abs] = true
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				skip[real] = true
			}
		}
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || skip[path] {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || !d.Type().IsRegular() || !isManifestFile(name) {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= MaxFileBytes {
			files = append(files, path)
		}
		return nil
	})
	return root, files, err
}
