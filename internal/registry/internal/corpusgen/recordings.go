package corpusgen

import (
	"github.com/azkcli/azk/internal/corpus"
	"path/filepath"
	"strings"
)

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
