package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/azkcli/azk/internal/registry"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// versionString is the release version, else the module version the Go
// toolchain stamped (go install module@version, or a pseudo-version from the
// checkout's commit), else "dev".
func versionString() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	if info != nil && version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

// buildInfo is what azk version prints: which azk this is, what built it
// and which ASO release's CRDs it knows.
type buildInfo struct {
	Version string `json:"version"`
	Module  string `json:"module,omitempty"`
	// Revision, RevisionTime and Modified are the commit the binary was built
	// from, when the Go toolchain recorded it (go build and go install in a
	// checkout do; go run and go test do not).
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revisionTime,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	GoVersion    string `json:"goVersion"`
	Platform     string `json:"platform"`
	// ASOVersion is the Azure Service Operator release whose CRDs the
	// registry was generated from.
	ASOVersion string `json:"asoVersion"`
}

func readBuildInfo() buildInfo {
	info, _ := debug.ReadBuildInfo()
	return buildInfoFrom(info)
}

// buildInfoFrom is the build information in info (nil when the binary
// carries none).
func buildInfoFrom(info *debug.BuildInfo) buildInfo {
	b := buildInfo{
		Version:    versionOf(info),
		GoVersion:  runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
		ASOVersion: registry.Source().ASOVersion,
	}
	if info == nil {
		return b
	}
	b.Module = info.Main.Path
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.RevisionTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// writeText writes the build information for people; azk --version prints the same.
func (b buildInfo) writeText(w io.Writer) error {
	revision := "unknown (built without version control information, as go run and go test build)"
	if b.Revision != "" {
		revision = b.Revision
		if b.RevisionTime != "" {
			revision += ", committed " + b.RevisionTime
		}
		if b.Modified {
			revision += ", with uncommitted changes"
		}
	}
	var s strings.Builder
	fmt.Fprintf(&s, "azk %s\n", b.Version)
	if b.Module != "" {
		fmt.Fprintf(&s, "  module:   %s\n", b.Module)
	}
	fmt.Fprintf(&s, "  revision: %s\n", revision)
	fmt.Fprintf(&s, "  go:       %s %s\n", b.GoVersion, b.Platform)
	fmt.Fprintf(&s, "  ASO:      %s (the release whose CRDs azk knows)\n", b.ASOVersion)
	_, err := io.WriteString(w, s.String())
	return err
}

// versionText is azk --version's output.
func versionText() string {
	var s strings.Builder
	_ = readBuildInfo().writeText(&s)
	return s.String()
}

func init() { cobra.AddTemplateFunc("azkVersionText", versionText) }

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version [-o text|json|yaml]",
		Short: "Print azk's version, commit, Go version and the ASO release it knows (also azk --version)",
		Long: `Version prints which azk this is: its version (a release, the module version
go install recorded, or a pseudo-version from the commit it was built from),
the commit and its time when the build recorded them, the Go version and
platform that built it, and the Azure Service Operator release whose CRDs
azk's registry was generated from (the kinds, versions and fields it knows).

  -o text   for people (default; azk --version prints the same)
  -o json   {version, module, revision, revisionTime, modified, goVersion, platform, asoVersion}
  -o yaml   the same as YAML`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(cmd, g); err != nil {
				return err
			}
			b := readBuildInfo()
			switch g.output {
			case "json":
				return writeJSON(g.stdout, b)
			case "yaml":
				return writeYAML(g.stdout, b)
			}
			return b.writeText(g.stdout)
		},
	}
}
