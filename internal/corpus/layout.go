package corpus

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Folder is one samples folder, found as the operator's test harness finds
// them: any directory under samples/ named like a version (v1api20201101,
// v20250301, v1), at any depth (samples/documentdb/mongodb/v1api20210515).
type Folder struct {
	// Path is the folder's path; Rel is it relative to samples/.
	Path, Rel string
	// Recording is the name of the recording the harness's test for the
	// folder writes: Test_<Parent>_<version>_CreationAndDeletion.yaml, the
	// parent folder's name title-cased (network.frontdoor as NetworkFrontdoor).
	Recording string
}

// versionFolder is how the harness recognises a samples folder by its name.
var versionFolder = regexp.MustCompile(`^v[0-9][a-z0-9]*$`)

// SampleFolders lists every samples folder of the corpus at dir, sorted by Rel.
func SampleFolders(dir string) ([]Folder, error) {
	samples := filepath.Join(dir, "samples")
	var out []Folder
	err := filepath.WalkDir(samples, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || path == samples {
			return nil
		}
		if d.Name() == "refs" {
			return filepath.SkipDir
		}
		if !versionFolder.MatchString(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(samples, path)
		out = append(out, Folder{
			Path: path, Rel: filepath.ToSlash(rel),
			Recording: "Test_" + titled(filepath.Base(filepath.Dir(path))) + "_" + d.Name() + "_CreationAndDeletion.yaml",
		})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, err
}

// sampleFolders holds SampleFolders of each corpus directory once walked:
// RecordingFolder is asked once for every recording.
var sampleFolders sync.Map // dir -> []Folder

// RecordingFolder finds the samples folder a recording was made from.
func RecordingFolder(dir, recordingFile string) (Folder, bool) {
	folders, ok := sampleFolders.Load(dir)
	if !ok {
		walked, err := SampleFolders(dir)
		if err != nil {
			return Folder{}, false
		}
		folders, _ = sampleFolders.LoadOrStore(dir, walked)
	}
	for _, f := range folders.([]Folder) {
		if f.Recording == filepath.Base(recordingFile) {
			return f, true
		}
	}
	return Folder{}, false
}

// titled spells a folder name as the harness's test name does: each
// dot-separated part with a capital first letter, joined.
func titled(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, ".") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
