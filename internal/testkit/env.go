package testkit

import (
	"os"
	"path/filepath"
)

// EnvPath reads a folder from the environment variable name (AZK_CORPUS,
// AZK_RECORDINGS). A relative path is taken from the module root, the
// folder holding go.mod, where the README's commands are run: go test runs
// each package's tests in that package's folder, from which
// "../shared/aso/recordings" would name nothing. ok is false when the
// variable is unset or empty.
func EnvPath(name string) (path string, ok bool) {
	path = os.Getenv(name)
	if path == "" {
		return "", false
	}
	if filepath.IsAbs(path) {
		return path, true
	}
	root, err := ModuleRoot()
	if err != nil {
		return path, true // outside the module: as given, from the working directory
	}
	return filepath.Join(root, path), true
}

// ModuleRoot is the folder holding go.mod, found upwards from the working
// directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
