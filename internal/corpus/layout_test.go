package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
)

// TestSampleFoldersAtAnyDepth: version folders are found however deep they
// sit (samples/documentdb/mongodb/<version>), refs/ are not folders of their
// own, and each is named after the recording its harness test writes.
func TestSampleFoldersAtAnyDepth(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{
		"samples/network/v1api20201101/refs",
		"samples/network.frontdoor/v1api",
		"samples/documentdb/mongodb/v1api20210515/refs",
		"samples/documentdb/sqldatabase/v20231115",
		"samples/entra/v1",
		"samples/docs",
	} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	folders, err := corpus.SampleFolders(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range folders {
		got = append(got, f.Rel+" "+f.Recording)
	}
	want := []string{
		"documentdb/mongodb/v1api20210515 Test_Mongodb_v1api20210515_CreationAndDeletion.yaml",
		"documentdb/sqldatabase/v20231115 Test_Sqldatabase_v20231115_CreationAndDeletion.yaml",
		"entra/v1 Test_Entra_v1_CreationAndDeletion.yaml",
		"network.frontdoor/v1api Test_NetworkFrontdoor_v1api_CreationAndDeletion.yaml",
		"network/v1api20201101 Test_Network_v1api20201101_CreationAndDeletion.yaml",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f, ok := corpus.RecordingFolder(dir, "recordings/Test_Mongodb_v1api20210515_CreationAndDeletion.yaml"); !ok || f.Rel != "documentdb/mongodb/v1api20210515" {
		t.Errorf("recording folder: %+v %v", f, ok)
	}
}

// TestCorpusFromEnvironment: $AZK_CORPUS names the corpus wherever it is.
func TestCorpusFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZK_CORPUS", dir)
	if got := corpus.Dir(t); got != dir {
		t.Errorf("Dir = %s, want %s", got, dir)
	}
}

// TestBuiltInRoles: the built-in role table comes whole from the recorded
// role definition listings, not from a few names.
func TestBuiltInRoles(t *testing.T) {
	roles, err := corpus.BuiltInRoles(corpus.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(roles) < 400 {
		t.Errorf("only %d built-in roles", len(roles))
	}
	for name, id := range map[string]string{
		"reader":                   "acdd72a7-3385-48ef-bd42-f606fba81ae7",
		"contributor":              "b24988ac-6180-42a0-ab88-20f7382dd24c",
		"key vault secrets user":   "4633458b-17de-408a-b874-0445c86b69e6",
		"storage blob data reader": "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
	} {
		if roles[name] != id {
			t.Errorf("%s = %q, want %s", name, roles[name], id)
		}
	}
}
