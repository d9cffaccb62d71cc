package planner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pmezard/go-difflib/difflib"
	"io"
	"strings"

	"github.com/azkcli/azk/internal/convert"
)

// ANSI colours of the text form.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// look is how an action is shown: its symbol, colour and phrase.
type look struct {
	symbol, color, phrase string
}

func lookOf(r *Resource, drift bool) look {
	switch {
	case drift && !r.Exists:
		return look{"?", ansiDim, "does not exist in Azure"}
	case drift && len(r.Changes) > 0:
		return look{"~", ansiYellow, "has drifted"}
	case drift:
		return look{"=", ansiDim, "matches the manifests"}
	}
	switch r.Action {
	case ActionCreate:
		return look{"+", ansiGreen, "will be created"}
	case ActionAdopt:
		if len(r.Changes) > 0 {
			return look{">", ansiCyan, "will be adopted, with changes"}
		}
		return look{">", ansiCyan, "will be adopted, unchanged"}
	case ActionUpdate:
		return look{"~", ansiYellow, "will be updated in place"}
	case ActionNoChange:
		return look{"=", ansiDim, "is up to date"}
	case ActionSkip:
		if !r.Exists {
			return look{"#", ansiDim, "skip (missing): not created"}
		}
		return look{"#", ansiDim, "is skipped: read only"}
	case ActionBlocked:
		return look{"x", ansiRed, "is blocked"}
	case ActionReplace:
		return look{"!", ansiRed, "needs replacing: azk will not apply it"}
	}
	return look{"?", "", string(r.Action)}
}

// SummaryLine is the plan's one-line count, e.g. "Plan: 3 to create, 2 to
// adopt (1 with changes), 1 to update, 4 unchanged, 1 skipped, 0 blocked."
func (p *Plan) SummaryLine() string {
	s := p.Summary()
	if p.Drift {
		return fmt.Sprintf("Drift: %d of %d existing resources changed in Azure.", s.Drifted, s.Adopt+s.Update+s.NoChange+s.Skip+s.ReplaceRequired-p.skipMissing())
	}
	line := fmt.Sprintf("Plan: %d to create, %d to adopt (%d with changes), %d to update, %d unchanged, %d skipped, %d blocked",
		s.Create, s.Adopt, s.AdoptWithChanges, s.Update, s.NoChange, s.Skip, s.Blocked)
	if s.ReplaceRequired > 0 {
		line += fmt.Sprintf(", %d need replacing (error)", s.ReplaceRequired)
	}
	return line + "."
}

func (p *Plan) skipMissing() int {
	n := 0
	for _, r := range p.Resources {
		if r.SkipMissing() {
			n++
		}
	}
	return n
}

// WriteText writes the plan for people, in dependency order, with ANSI
// colours when color is set.
func WriteText(w io.Writer, p *Plan, color bool) error {
	bw := bufio.NewWriter(w)
	paint := func(c, s string) string {
		if !color || c == "" {
			return s
		}
		return c + s + ansiReset
	}
	if p.Drift {
		fmt.Fprintln(bw, "Drift report: Azure compared with the manifests; nothing is proposed.")
	}
	for _, r := range p.Resources {
		l := lookOf(r, p.Drift)
		fmt.Fprintf(bw, "\n%s %s %s\n", paint(l.color, l.symbol), paint(ansiBold, r.Kind+" "+r.Namespace+"/"+r.Name), l.phrase)
		fmt.Fprintf(bw, "    id:     %s\n", r.ARMID)
		fmt.Fprintf(bw, "    policy: %s (%s)\n", r.Policy.Value, r.Policy.Source)
		for _, reason := range r.Reasons {
			fmt.Fprintf(bw, "    %s %s\n", paint(ansiRed, "reason:"), reason)
		}
		for _, note := range r.Notes {
			fmt.Fprintf(bw, "    note:   %s\n", note)
		}
		for _, line := range changeLines(r.Changes, p.Drift) {
			fmt.Fprintf(bw, "      %s %s\n", paint(line.color, line.symbol), line.text)
		}
	}
	if len(p.Unmanaged) > 0 {
		fmt.Fprintf(bw, "\nunmanaged: %d (in the input's resource groups, not in the input)\n", len(p.Unmanaged))
		for _, id := range p.Unmanaged {
			fmt.Fprintf(bw, "    %s\n", id)
		}
	}
	fmt.Fprintf(bw, "\n%s\n", paint(ansiBold, p.SummaryLine()))
	return bw.Flush()
}

type changeLine struct {
	symbol, color, text string
}

// changeLines renders property changes: "+ path = after" for additions,
// "- path = before" for removals, "~ path = before -> after" for changes. In
// a drift report, before is Azure's value and after the manifests'.
func changeLines(changes []Change, drift bool) []changeLine {
	out := make([]changeLine, 0, len(changes))
	for _, c := range changes {
		after := formatValue(c.After)
		switch {
		case c.Sensitive:
			after = convert.SensitiveText
		case c.Unknown:
			after = convert.UnknownText
		}
		switch {
		case c.Before == nil && (c.After != nil || c.Sensitive || c.Unknown):
			if drift {
				out = append(out, changeLine{"~", ansiYellow, c.Path + ": absent in Azure, manifests set " + after})
				continue
			}
			out = append(out, changeLine{"+", ansiGreen, c.Path + " = " + after})
		case c.After == nil && !c.Sensitive && !c.Unknown:
			if drift {
				out = append(out, changeLine{"~", ansiYellow, c.Path + ": " + formatValue(c.Before) + " in Azure, absent from the manifests"})
				continue
			}
			out = append(out, changeLine{"-", ansiRed, c.Path + " = " + formatValue(c.Before)})
		case !c.Sensitive && !c.Unknown && isMultiLine(c.Before, c.After):
			out = append(out, changeLine{"~", ansiYellow, c.Path + ":\n" + lineDiff(c.Before.(string), c.After.(string))})
		case drift:
			out = append(out, changeLine{"~", ansiYellow, c.Path + ": " + formatValue(c.Before) + " in Azure, manifests set " + after})
		default:
			out = append(out, changeLine{"~", ansiYellow, c.Path + " = " + formatValue(c.Before) + " -> " + after})
		}
	}
	return out
}

// isMultiLine reports whether a change is between two strings of several
// lines (scripts, serialized JSON), which read best as a line diff.
func isMultiLine(before, after any) bool {
	b, ok1 := before.(string)
	a, ok2 := after.(string)
	return ok1 && ok2 && (strings.Contains(b, "\n") || strings.Contains(a, "\n"))
}

// lineDiff is a unified diff of two strings, Azure's before the manifests',
// indented to sit under its property.
func lineDiff(before, after string) string {
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(before), B: difflib.SplitLines(after),
		FromFile: "Azure", ToFile: "manifests", Context: 2,
	})
	if err != nil {
		return formatValue(before) + " -> " + formatValue(after)
	}
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "          " + l
	}
	return strings.Join(lines, "\n")
}

// formatValue prints a value as JSON, secrets and unknowns as their texts.
func formatValue(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shown(v)); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// jsonPlan is the -o json form: the plan with its summary.
type jsonPlan struct {
	*Plan
	Summary Summary `json:"summary"`
	// SecretSalt is never shown: it belongs to saved plans only.
	SecretSalt string `json:"secretSalt,omitempty"`
}

// WriteJSON writes the plan in its documented JSON form (docs/plan-json.md):
// secrets as "(sensitive)", late values as "(known after apply)".
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonPlan{Plan: p, Summary: p.Summary()})
}

// MarkdownLimit is the most bytes WriteMarkdown writes: GitHub refuses
// comments over 65,536 characters, and the rest of a comment needs room.
const MarkdownLimit = 60000

// WriteMarkdown writes the plan as a pull-request comment: the summary, a
// table of decisions, and one collapsible diff per resource that changes or
// is blocked. Past MarkdownLimit the rest is left out and counted.
func WriteMarkdown(w io.Writer, p *Plan) error {
	var head strings.Builder
	title := "azk plan"
	if p.Drift {
		title = "azk drift report"
	}
	fmt.Fprintf(&head, "### %s\n\n**%s**\n\n", title, p.SummaryLine())
	s := p.Summary()
	head.WriteString("| decision | resources |\n|---|---:|\n")
	for _, row := range []struct {
		label string
		n     int
	}{
		{"create", s.Create}, {"adopt", s.Adopt}, {"adopt with changes", s.AdoptWithChanges}, {"update", s.Update},
		{"unchanged", s.NoChange}, {"skip", s.Skip}, {"blocked", s.Blocked}, {"replace required", s.ReplaceRequired},
		{"drifted", s.Drifted}, {"unmanaged", s.Unmanaged},
	} {
		if row.n > 0 {
			fmt.Fprintf(&head, "| %s | %d |\n", row.label, row.n)
		}
	}
	head.WriteString("\n")
	out := head.String()
	omitted := 0
	for _, r := range p.Resources {
		if omitted > 0 {
			omitted++
			continue
		}
		if !worthShowing(r, p.Drift) {
			continue
		}
		block := markdownResource(r, p.Drift)
		if len(out)+len(block) > MarkdownLimit-200 {
			omitted++
			continue
		}
		out += block
	}
	if len(p.Unmanaged) > 0 {
		block := fmt.Sprintf("<details><summary>unmanaged: %d</summary>\n\n```\n%s\n```\n</details>\n\n", len(p.Unmanaged), strings.Join(p.Unmanaged, "\n"))
		if omitted == 0 && len(out)+len(block) <= MarkdownLimit-200 {
			out += block
		}
	}
	if omitted > 0 {
		out += fmt.Sprintf("_%d more resources not shown: the comment would be too long. Run `azk plan` for the full plan._\n", omitted)
	}
	_, err := io.WriteString(w, out)
	return err
}

// worthShowing leaves unchanged resources out of the comment.
func worthShowing(r *Resource, drift bool) bool {
	if drift {
		return len(r.Changes) > 0 || !r.Exists
	}
	switch r.Action {
	case ActionNoChange:
		return false
	case ActionSkip:
		return !r.Exists
	case ActionAdopt:
		return true
	}
	return true
}

func markdownResource(r *Resource, drift bool) string {
	l := lookOf(r, drift)
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary><code>%s</code> %s <code>%s</code> %s</summary>\n\n", l.symbol, r.Kind, escapeHTML(r.Namespace+"/"+r.Name), l.phrase)
	fmt.Fprintf(&b, "`%s`  \npolicy: %s (%s)\n", r.ARMID, r.Policy.Value, r.Policy.Source)
	for _, reason := range r.Reasons {
		fmt.Fprintf(&b, "- **reason:** %s\n", escapeHTML(reason))
	}
	for _, note := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", escapeHTML(note))
	}
	if lines := changeLines(r.Changes, drift); len(lines) > 0 {
		b.WriteString("\n```diff\n")
		for _, line := range lines {
			fmt.Fprintf(&b, "%s %s\n", line.symbol, strings.ReplaceAll(line.text, "```", "'''"))
		}
		b.WriteString("```\n")
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeHTML(s string) string { return htmlEscaper.Replace(s) }
