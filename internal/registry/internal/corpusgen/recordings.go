package corpusgen

import (
	"encoding/json"
	"github.com/azkcli/azk/internal/corpus"
	"path/filepath"
	"sort"
	"strings"

	"github.com/azkcli/azk/internal/registry"
)

// markNullCollections sets Kind.NullCollections on every kind of a group whose
// recorded PUT bodies carry explicit nulls: the operator's explicit-collections
// payload mode is configured per group, and only its requests show it. In those
// groups it also records, per kind, the collections the operator sent empty
// rather than null (Kind.EmptyCollections).
func markNullCollections(recs []recording, kinds []*registry.Kind) {
	groupsOf := map[string][]string{} // lower-case ARM type + "@" + api-version -> groups
	for _, k := range kinds {
		key := strings.ToLower(k.ARMType) + "@" + k.APIVersion
		groupsOf[key] = append(groupsOf[key], k.Group)
	}
	marked := map[string]bool{}
	empty := map[string]map[string]bool{} // lower-case ARM type + "@" + api-version -> paths
	for _, rec := range recs {
		for _, put := range recordedPUTs(rec) {
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

// recording is one HTTP recording of the corpus, with its file name.
type recording struct {
	name string
	*corpus.Recording
}

// readRecordings reads every recording under dir once, for all that the
// generator learns from them.
func readRecordings(dir string) ([]recording, error) {
	files, err := filepath.Glob(filepath.Join(dir, "recordings", "*.yaml"))
	if err != nil {
		return nil, err
	}
	recs := make([]recording, 0, len(files))
	for _, file := range files {
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			return nil, err
		}
		recs = append(recs, recording{name: filepath.Base(file), Recording: rec})
	}
	return recs, nil
}

type recordedPUT struct {
	armType, apiVersion string
	body                any
}

func recordedPUTs(rec recording) []recordedPUT {
	var puts []recordedPUT
	for i := range rec.Interactions {
		in := &rec.Interactions[i]
		if in.Request.Method != "PUT" {
			continue
		}
		var body any
		if json.Unmarshal([]byte(in.Request.Body), &body) != nil {
			continue
		}
		puts = append(puts, recordedPUT{armType: armTypeOfPath(in.Path()), apiVersion: corpus.APIVersion(in.Request.URL), body: body})
	}
	return puts
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

// joinARM appends key to an ARM body path.
func joinARM(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
