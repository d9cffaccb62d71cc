package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/azkcli/azk/internal/registry"
)

// TestVersionFlag: azk --version and azk version print the same, naming the
// Go version and the ASO release of the registry; -o json and -o yaml are
// honoured.
func TestVersionFlag(t *testing.T) {
	out, _, code := azk(t, "", "--version")
	want, _, _ := azk(t, "", "version")
	if code != 0 || out != want || !strings.HasPrefix(out, "azk ") {
		t.Errorf("azk --version: exit %d, %q; azk version: %q", code, out, want)
	}
	mustContain(t, "azk version", out, "  go:       "+runtime.Version(), "  ASO:      "+registry.Source().ASOVersion+" ", "  module:   github.com/azkcli/azk\n")

	out, errOut, code := azk(t, "", "version", "-o", "json")
	var got buildInfo
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("version -o json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if got.GoVersion != runtime.Version() || got.ASOVersion == "" || got.ASOVersion != registry.Source().ASOVersion || got.Version == "" {
		t.Errorf("version -o json: %+v", got)
	}
	out, _, _ = azk(t, "", "version", "-o", "yaml")
	mustContain(t, "version -o yaml", out, "goVersion: "+runtime.Version()+"\n", "asoVersion: "+got.ASOVersion+"\n")
	if _, errOut, code := azk(t, "", "version", "-o", "dot"); code != 1 || !strings.Contains(errOut, "use text, json or yaml") {
		t.Errorf("version -o dot: exit %d, %q", code, errOut)
	}
}

// TestVersionReadsTheCommit: a binary built in a checkout (go build, go
// install) carries its commit, which version prints; go test builds carry
// none, so the stamped settings are given here as the toolchain writes them.
func TestVersionReadsTheCommit(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/azkcli/azk", Version: "v0.0.0-20261126151720-1da267154a92"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1da267154a920116e8602b4a40489b13c8f9cf74"},
		{Key: "vcs.time", Value: "2026-11-26T15:17:20Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	b := buildInfoFrom(info)
	if b.Version != "v0.0.0-20261126151720-1da267154a92" || b.Revision != "1da267154a920116e8602b4a40489b13c8f9cf74" || b.RevisionTime != "2026-11-26T15:17:20Z" || !b.Modified || b.Module != "github.com/azkcli/azk" {
		t.Errorf("buildInfoFrom: %+v", b)
	}
	var text strings.Builder
	if err := b.writeText(&text); err != nil {
		t.Fatal(err)
	}
	mustContain(t, "version text", text.String(), "  revision: 1da267154a920116e8602b4a40489b13c8f9cf74, committed 2026-11-26T15:17:20Z, with uncommitted changes\n")
	if b := buildInfoFrom(nil); b.Revision != "" || b.ASOVersion == "" {
		t.Errorf("buildInfoFrom(nil): %+v", b)
	}
}
