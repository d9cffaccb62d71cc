package armid_test

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/corpus"
)

// recordedPath matches the path of every request the operator sent to ARM in
// a corpus recording.
var recordedPath = regexp.MustCompile(`url: https://management\.azure\.com(/[^?\s"]*)`)

// isOperationURL: the URLs azcore polls long-running operations on are ARM's
// own (opaque tokens after operationresults and the like), never built by azk.
func isOperationURL(p string) bool {
	l := strings.ToLower(p)
	return strings.Contains(l, "/operationresults/") || strings.Contains(l, "/operationstatuses/") ||
		strings.Contains(l, "/asyncoperations/") || strings.Contains(l, "/operations/") || strings.Contains(l, "/azureasyncoperations/")
}

func recordedPaths(t testing.TB) []string {
	dir := filepath.Join(corpus.Dir(t), "recordings")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s: %v", dir, err)
	}
	seen := map[string]bool{}
	var paths []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range recordedPath.FindAllSubmatch(data, -1) {
			p, err := url.PathUnescape(string(m[1]))
			if err != nil || seen[p] || isOperationURL(p) {
				continue
			}
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

// TestCorpusRecordedPathsParse: every resource, collection and action path the
// operator requested from real ARM is one ParsePath accepts and rebuilds exactly.
func TestCorpusRecordedPathsParse(t *testing.T) {
	paths := recordedPaths(t)
	for _, p := range paths {
		id, tail, err := armid.ParsePath(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if got, _ := url.PathUnescape(id.PathWith(tail)); !strings.EqualFold(got, p) {
			t.Errorf("ParsePath(%q) rebuilds as %q", p, got)
		}
	}
	t.Logf("%d recorded paths", len(paths))
}
