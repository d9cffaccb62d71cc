package corpusgen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/azkcli/azk/internal/registry"
)

// markNullCollections sets Kind.NullCollections on every kind of a group whose
// recorded PUT bodies carry explicit nulls: the operator's explicit-collections
// payload mode is configured per group, and only its requests show it. In those
// groups it also records, per kind, the collections the operator sent empty
// rather than null (Kind.EmptyCollections).
func markNullCollections(dir string, kinds []*registry.Kind) error {
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		return err
	}
	groupsOf := map[string][]string{} // lower-case ARM type + "@" + api-version -> groups
	for _, k := range kinds {
		key := strings.ToLower(k.ARMType) + "@" + k.APIVersion
		groupsOf[key] = append(groupsOf[key], k.Group)
	}
	marked := map[string]bool{}
	empty := map[string]map[string]bool{} // lower-case ARM type + "@" + api-version -> paths
	for _, file := range files {
		puts, err := recordedPUTs(file)
		if err != nil {
			return err
		}
		for _, put := range puts {
			key := strings.ToLower(put.armType) + "@" + put.apiVersion
			emptyPaths("", put.body, func(path string) {
				if empty[key] == nil {
					empty[key] = map[string]bool{}
				}
				empty[key][path] = true
			})
			if !hasNull(put.body) {
				continue
			}
			for _, g := range groupsOf[key] {
				marked[g] = true
			}
		}
	}
	for _, k := range kinds {
		k.NullCollections = marked[k.Group]
		if !k.NullCollections {
			continue
		}
		for path := range empty[strings.ToLower(k.ARMType)+"@"+k.APIVersion] {
			k.EmptyCollections = append(k.EmptyCollections, path)
		}
		sort.Strings(k.EmptyCollections)
	}
	return nil
}

// emptyPaths calls found with the path of every empty list or map in v:
// object keys joined by ".", list items as "[]".
func emptyPaths(path string, v any, found func(string)) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && path != "" {
			found(path)
		}
		for k, e := range t {
			emptyPaths(joinARM(path, k), e, found)
		}
	case []any:
		if len(t) == 0 {
			found(path)
		}
		for _, e := range t {
			emptyPaths(path+"[]", e, found)
		}
	}
}

type recordedPUT struct {
	armType, apiVersion string
	body                any
}

func recordedPUTs(file string) ([]recordedPUT, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rec struct {
		Interactions []struct {
			Request struct {
				Method string `yaml:"method"`
				URL    string `yaml:"url"`
				Body   string `yaml:"body"`
			} `yaml:"request"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	var puts []recordedPUT
	for _, in := range rec.Interactions {
		if in.Request.Method != "PUT" {
			continue
		}
		path, query, _ := strings.Cut(in.Request.URL, "?")
		var body any
		if json.Unmarshal([]byte(in.Request.Body), &body) != nil {
			continue
		}
		apiVersion := ""
		for _, kv := range strings.Split(query, "&") {
			if v, ok := strings.CutPrefix(kv, "api-version="); ok {
				apiVersion = v
			}
		}
		puts = append(puts, recordedPUT{armType: armTypeOfPath(path), apiVersion: apiVersion, body: body})
	}
	return puts, nil
}

// armTypeOfPath is the resource type an ARM URL addresses: the namespace after
// the last /providers/ and every type segment after it.
func armTypeOfPath(path string) string {
	i := strings.LastIndex(strings.ToLower(path), "/providers/")
	if i < 0 {
		return ""
	}
	segs := strings.Split(path[i+len("/providers/"):], "/")
	types := segs[:1]
	for j := 1; j < len(segs); j += 2 {
		types = append(types, segs[j])
	}
	return strings.Join(types, "/")
}

func hasNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}
