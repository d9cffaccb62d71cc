package bodydiff

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/registry"
	"github.com/azkcli/azk/internal/testkit"
)

// TestRecordedLifecycleNoSpuriousDiffs measures the differ on any go-vcr
// recordings (the folder named by $AZK_RECORDINGS): each successful PUT's body,
// taken as the desired body, is diffed with the first successful GET of the
// same resource that follows it (before any later write of it). ARM just stored that body, so every change is
// spurious unless a specific, checkable reason explains it.
func TestRecordedLifecycleNoSpuriousDiffs(t *testing.T) {
	dir, ok := testkit.EnvPath("AZK_RECORDINGS")
	if !ok {
		t.Skip("AZK_RECORDINGS is not set (a folder of go-vcr recordings, e.g. ../shared/aso/recordings from the module root): skipping")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no recordings (*.yaml) in %s", dir)
	}
	kinds := kindsByARMType()
	m := newMeasurement()
	for _, file := range files {
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for i := range rec.Interactions {
			put := &rec.Interactions[i]
			if put.Request.Method != "PUT" || put.Response.Code < 200 || put.Response.Code >= 300 {
				continue
			}
			var desired map[string]any
			if json.Unmarshal([]byte(put.Request.Body), &desired) != nil {
				continue
			}
			path := put.Path()
			kind := kinds[armTypeKey(armTypeOf(path), corpus.APIVersion(put.Request.URL))]
			gets := getsAfter(rec, i, path, false)
			if kind == nil || len(gets) == 0 {
				continue
			}
			p := recordedPut{rec: rec, index: i, get: gets[0].index, path: path, armType: kind.ARMType}
			d := spuriousDiff{recording: filepath.Base(file), key: path + "?" + corpus.APIVersion(put.Request.URL)}
			m.compare(t, kind, desired, gets[0].body, d, p)
		}
	}
	m.log(t, "lifecycle spurious diffs")
}

// kindsByARMType maps ARM type and api-version to the registry kind sending
// them. Where several kinds share both (a kind served under two Kubernetes
// versions of one api-version), the first in registry order is taken: they
// share the ARM schema, so any is as good.
func kindsByARMType() map[string]*registry.Kind {
	reg := registry.Default()
	out := map[string]*registry.Kind{}
	for _, g := range reg.All() {
		k, _ := reg.Lookup(g.Group, g.Version, g.Kind)
		key := armTypeKey(k.ARMType, k.APIVersion)
		if k.IsARM() && out[key] == nil {
			out[key] = k
		}
	}
	return out
}

func armTypeKey(armType, apiVersion string) string {
	return strings.ToLower(armType) + "@" + apiVersion
}
