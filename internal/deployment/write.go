package deployment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/azkcli/azk/internal/loader"
)

// IndexFile lists an export's templates: the order to deploy them in, their
// scopes, parameters and resources, and the Azure CLI command for each.
const IndexFile = "index.json"

// templateFile matches the names of the files Write creates.
var templateFile = regexp.MustCompile(`^[0-9]{2}-[A-Za-z0-9._-]+\.json$`)

// Name is the deployment name of the template at index i of a set, for a
// run called prefix: ARM keeps one deployment per name and scope, and nested
// deployments add "-N" to it within ARM's 64 characters.
func Name(prefix string, i int) string {
	if len(prefix) > 56 {
		prefix = prefix[:56]
	}
	return fmt.Sprintf("%s-%02d", prefix, i+1)
}

// Command is the Azure CLI command that deploys t under name.
func (t *Template) Command(name string) string {
	switch {
	case t.Scope.ResourceGroup != "":
		return fmt.Sprintf("az deployment group create --subscription %s --resource-group %s --name %s --template-file %s", t.Scope.Subscription, t.Scope.ResourceGroup, name, t.File)
	case t.Scope.Subscription != "":
		return fmt.Sprintf("az deployment sub create --subscription %s --location %s --name %s --template-file %s", t.Scope.Subscription, t.Location, name, t.File)
	}
	return fmt.Sprintf("az deployment tenant create --location %s --name %s --template-file %s", t.Location, name, t.File)
}

// Write writes the set's templates and index into dir, replacing the
// templates an earlier export left there (those its index names) and
// nothing else: a file azk did not write is neither removed nor replaced.
// No file holds a secret: secrets are secureString parameters, asked for
// when the template is deployed.
func (s *Set) Write(dir, prefix string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	earlier, err := earlierExport(dir)
	if err != nil {
		return err
	}
	for _, t := range s.Templates {
		if _, err := os.Lstat(filepath.Join(dir, t.File)); err == nil && !earlier[t.File] {
			return fmt.Errorf("%s: azk did not write it (the export's %s does not name it): refusing to replace it; choose another --out-dir", filepath.Join(dir, t.File), IndexFile)
		}
	}
	for file := range earlier {
		if err := os.Remove(filepath.Join(dir, file)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	type parameter struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	type entry struct {
		File       string      `json:"file"`
		Scope      Scope       `json:"scope"`
		Location   string      `json:"location,omitempty"`
		Name       string      `json:"name"`
		After      []string    `json:"after,omitempty"`
		Parameters []parameter `json:"parameters,omitempty"`
		Resources  []string    `json:"resources"`
		Command    string      `json:"command"`
	}
	index := struct {
		FormatVersion int               `json:"formatVersion"`
		Templates     []entry           `json:"templates"`
		Held          map[string]string `json:"held,omitempty"`
	}{FormatVersion: 1, Templates: []entry{}, Held: s.Held}
	for i, t := range s.Templates {
		data, err := t.JSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, t.File), data, 0o644); err != nil {
			return err
		}
		e := entry{File: t.File, Scope: t.Scope, Location: t.Location, Name: Name(prefix, i), Command: t.Command(Name(prefix, i))}
		for _, a := range t.After {
			e.After = append(e.After, a.File)
		}
		for _, p := range t.ParameterNames() {
			e.Parameters = append(e.Parameters, parameter{Name: p[0], Description: p[1]})
		}
		for _, r := range t.Resources {
			e.Resources = append(e.Resources, r.Address)
		}
		index.Templates = append(index.Templates, e)
	}
	data, err := marshalIndent(index)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, IndexFile), data, 0o644)
}

// maxIndexBytes bounds the index read back from an earlier export.
const maxIndexBytes = 16 << 20

// earlierExport is the set of template files an earlier export wrote into
// dir, as its index names them; empty when dir holds no index. An index azk
// did not write is refused: what it names is not azk's to remove.
func earlierExport(dir string) (map[string]bool, error) {
	path := filepath.Join(dir, IndexFile)
	data, err := loader.ReadFile(path, maxIndexBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var index struct {
		FormatVersion int `json:"formatVersion"`
		Templates     []struct {
			File string `json:"file"`
		} `json:"templates"`
	}
	if json.Unmarshal(data, &index) != nil || index.FormatVersion != 1 || index.Templates == nil {
		return nil, fmt.Errorf("%s is not the index of an azk export: refusing to replace it; choose another --out-dir", path)
	}
	files := map[string]bool{}
	for _, t := range index.Templates {
		if templateFile.MatchString(t.File) { // a plain name within dir
			files[t.File] = true
		}
	}
	return files, nil
}
