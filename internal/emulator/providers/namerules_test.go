package providers

import (
	"net/url"
	"path/filepath"
	"testing"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/corpus"
)

// TestNameRulesKeepEveryNameARMAccepted: every name real ARM created in the
// operator's recordings keeps the naming rule the emulator enforces for its
// type, so the table (taken from ARM's published rules) refuses no name ARM
// accepts.
func TestNameRulesKeepEveryNameARMAccepted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(t), "recordings", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Skipf("no recordings in the corpus (%v): skipping", err)
	}
	checked := 0
	for _, file := range files {
		rec, err := corpus.ReadRecording(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range rec.Interactions {
			if it.Request.Method != "PUT" || it.Response.Code < 200 || it.Response.Code > 299 {
				continue
			}
			path, err := url.PathUnescape(it.Path())
			if err != nil {
				continue
			}
			id, err := armid.Parse(path)
			if err != nil {
				continue // not a resource path (a subscription-level action)
			}
			rule, ok := nameRuleFor(id.Type())
			if !ok {
				continue
			}
			checked++
			if why := rule.breaks(id.Name()); why != "" {
				t.Errorf("%s: ARM created %s, but %s", filepath.Base(file), path, why)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no recorded create of a type with a naming rule: the test checks nothing")
	}
	t.Logf("%d recorded creates keep their type's naming rule", checked)
}
