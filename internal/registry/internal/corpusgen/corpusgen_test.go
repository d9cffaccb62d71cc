package corpusgen

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// corpusDir finds the ASO corpus: $AZK_CORPUS, else ../shared/aso next to the
// folder holding go.mod.
func corpusDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("AZK_CORPUS"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("ASO corpus not found: no go.mod above the test directory")
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "aso")
	if _, err := os.Stat(filepath.Join(corpus, "crds")); err != nil {
		t.Skipf("ASO corpus not found at %s (set AZK_CORPUS)", corpus)
	}
	return corpus
}

var (
	buildOnce   sync.Once
	buildResult *Result
	buildErr    error
)

func built(t *testing.T) *Result {
	t.Helper()
	dir := corpusDir(t)
	buildOnce.Do(func() { buildResult, buildErr = Build(dir) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildResult
}

func TestReferencesPairWithStringLeaves(t *testing.T) {
	res := built(t)
	for _, m := range res.RefLeafMismatches {
		t.Error(m)
	}
}

func TestPairingReport(t *testing.T) {
	res := built(t)
	t.Logf("%d spec fields without an ARM pairing", len(res.Unpaired))
	for _, u := range res.Unpaired {
		t.Log("  spec:", u)
	}
	t.Logf("%d status fields without an ARM pairing", len(res.UnpairedStatus))
	for _, u := range res.UnpairedStatus {
		t.Log("  status:", u)
	}
}
