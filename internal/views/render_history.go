package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/planner"
)

// Markdown blocks of the history's lines (see historyLines).
const (
	blockChangedOutside = "changed-outside"
	blockKeeps          = "keeps"
	blockDefaults       = "defaults"
)

// historyLines are what Azure's change history says of r
// (planner.History): what others changed since azk's last write, what
// Azure keeps where the manifests say otherwise, the values Azure set and
// nobody changed (with showDefaults), or once that the history does not
// reach back.
func historyLines(r *planner.Resource, showDefaults bool) []detailLine {
	h := r.History
	if h == nil {
		return nil
	}
	var out []detailLine
	title := func(block, text string) { out = append(out, detailLine{indent: "    ", block: block, text: text}) }
	if h.Unknown != "" && len(h.Findings) > 0 {
		out = append(out, detailLine{indent: "    ", text: "history: unknown (" + h.Unknown + "): the usual rules apply to what Azure holds beyond the manifests"})
	}
	if outside := h.ChangedOutside(); len(outside) > 0 {
		title(blockChangedOutside, "changed-outside: changed outside azk since "+h.Since+":")
		for _, f := range outside {
			out = append(out, detailLine{indent: "      ", symbol: "~", color: ansiYellow, block: blockChangedOutside, text: outsideText(f)})
		}
	}
	if len(h.Keeps) > 0 {
		title(blockKeeps, "keeps: Azure keeps these where the manifests say otherwise (its answer to azk's last write, unchanged since): not a change:")
		for _, c := range h.Keeps {
			out = append(out, detailLine{indent: "      ", symbol: "=", color: ansiCyan, block: blockKeeps, text: keepsText(c)})
		}
	}
	if len(h.Defaults) > 0 && showDefaults {
		title(blockDefaults, "defaults: Azure set these at creation or at azk's write, and nobody changed them since (never reset by a PUT of azk's):")
		for _, v := range h.Defaults {
			out = append(out, detailLine{indent: "      ", symbol: "=", color: ansiDim, block: blockDefaults, text: pathValueText(v)})
		}
	}
	return out
}

// outsideText is one value another principal changed, with who, when and
// through what.
func outsideText(f planner.HistoryFinding) string {
	return fmt.Sprintf("%s = %s (by %s through %s at %s, %s)", f.Path, bodydiff.Format(f.Value), orDash(f.ChangedBy), orDash(f.ClientType), stampOf(f.Timestamp), orDash(f.Operation))
}

// keepsText says what Azure keeps, and the manifests' value to write instead.
func keepsText(c planner.Change) string {
	azure := bodydiff.Format(c.Before)
	return fmt.Sprintf("Azure keeps %s = %s where the manifests say %s: write %s = %s into the manifests", c.Path, azure, bodydiff.Format(c.After), c.Path, azure)
}

// changedOutsideTable is the markdown table of what others changed in r
// since azk's last write: property, Azure's value, who, through what, when.
func changedOutsideTable(r *planner.Resource) string {
	outside := r.History.ChangedOutside()
	if len(outside) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nChanged outside azk since %s:\n\n", escapeHTML(r.History.Since))
	b.WriteString("| property | value in Azure | changed by | through | when | operation |\n|---|---|---|---|---|---|\n")
	for _, f := range outside {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |\n", codeCell(f.Path), codeCell(bodydiff.Format(f.Value)), cell(orDash(f.ChangedBy)), cell(orDash(f.ClientType)), stampOf(f.Timestamp), cell(orDash(f.Operation)))
	}
	return b.String()
}

// cell is text fit for a markdown table cell; codeCell, for one in a code
// span (where markdown decodes no HTML entity).
func cell(s string) string { return codeCell(escapeHTML(s)) }

func codeCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "`", "'").Replace(s)
}

func stampOf(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// keeps reports differences Azure keeps (planner.History.Keeps): the plan
// lists the resource for its hint, though it writes nothing.
func keeps(r *planner.Resource) bool { return r.History != nil && len(r.History.Keeps) > 0 }
