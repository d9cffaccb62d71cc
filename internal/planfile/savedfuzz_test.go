package planfile

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/redact"
	"github.com/azkcli/azk/internal/views"
)

// FuzzSavedPlan: whatever a plan file holds, reading it neither panics nor
// hands show or apply a plan azk could not have written: each bytes are read
// as they are, and again with the digest recomputed (as anyone can), so the
// fuzzer gets past the digest to the content. A plan that loads has ARM
// IDs that parse, no redacted identity, unmanaged entries that are ARM IDs
// in its resource groups, and renders in every format.
func FuzzSavedPlan(f *testing.F) {
	plan, err := os.ReadFile(savedByHand(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(plan)
	f.Add(plan[:len(plan)/2])
	f.Add([]byte(strings.Replace(string(plan), "/virtualNetworks/other", "/virtualNetworks/(redacted)", 1)))
	f.Add([]byte(strings.Replace(string(plan), "resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/other", "resourceGroups/victim", 1)))
	f.Add([]byte(`{"formatVersion": 1, "resources": [null]}`))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "ConfigMap"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(dir, "plan.azk")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if p, err := LoadIfSaved(file); err == nil && p != nil {
			mustBeWritable(t, p)
		}
		tree, err := decodeTree(data)
		if err != nil {
			return
		}
		tree[planDigestKey] = digestOf(tree)
		resigned, err := json.Marshal(tree)
		if err != nil {
			return
		}
		if p, err := decodeSaved(file, resigned); err == nil {
			mustBeWritable(t, p)
		}
	})
}

// mustBeWritable checks what a loaded plan promises, and renders it.
func mustBeWritable(t *testing.T, p *planner.Plan) {
	t.Helper()
	groups := map[string]bool{}
	for _, r := range p.Resources {
		if strings.Contains(r.Address+r.ARMID, redact.Text) {
			t.Fatalf("a redacted identity was loaded: %s %s", r.Address, r.ARMID)
		}
		if r.ARMID == "" {
			continue
		}
		id, err := armid.Parse(r.ARMID)
		if err != nil {
			t.Fatalf("an ARM ID that does not parse was loaded: %q: %v", r.ARMID, err)
		}
		if rg, ok := id.ResourceGroupID(); ok {
			groups[strings.ToLower(rg.String())] = true
		}
	}
	for _, u := range p.Unmanaged {
		id, err := armid.Parse(u)
		if err != nil {
			t.Fatalf("an unmanaged entry that is no ARM ID was loaded: %q", u)
		}
		rg, ok := id.ResourceGroupID()
		if !ok || !groups[strings.ToLower(rg.String())] {
			t.Fatalf("an unmanaged entry outside the plan's resource groups was loaded: %q", u)
		}
	}
	for _, write := range []func(io.Writer, *planner.Plan) error{
		func(w io.Writer, p *planner.Plan) error { return views.Text(w, p, views.Options{ShowUnchanged: true}) },
		views.JSON,
		func(w io.Writer, p *planner.Plan) error { return views.Markdown(w, p, views.Options{}) },
	} {
		_ = write(io.Discard, p)
	}
}
