package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// preflightHeading heads the pre-flight section of text and markdown.
const preflightHeading = "Pre-flight"

// preflightSummary is the section's closing count.
func preflightSummary(p *planner.Preflight) string {
	errs, warns := p.Errors(), p.Warnings()
	if errs+warns == 0 {
		return fmt.Sprintf("Pre-flight: no findings (%s).", strings.Join(p.Checks, ", "))
	}
	line := fmt.Sprintf("Pre-flight: %d %s, %d %s (%s).", errs, plural(errs, "error", "errors"), warns, plural(warns, "warning", "warnings"), strings.Join(p.Checks, ", "))
	if errs > 0 {
		line += " azk apply refuses to start while any error stands."
	}
	return line
}

// findingSubject names what a finding is about.
func findingSubject(f planner.Finding) string {
	switch {
	case f.Address != "" && f.Source != "":
		return f.Address + " (" + f.Source + ")"
	case f.Address != "":
		return f.Address
	case f.ARMID != "":
		return f.ARMID
	}
	return "the plan"
}

// writePreflightText writes the pre-flight section of the text form.
func writePreflightText(w io.Writer, p *planner.Plan, paint func(color, s string) string) {
	pf := p.Preflight
	if pf == nil {
		return
	}
	title := preflightHeading
	if pf.As != "" {
		title += " (permissions of principal " + pf.As + ")"
	}
	fmt.Fprintf(w, "\n%s\n", paint(ansiBold, title))
	for _, f := range pf.Findings {
		color := ansiYellow
		switch f.Severity {
		case planner.SeverityError:
			color = ansiRed
		case planner.SeverityInfo:
			color = ansiDim
		}
		fmt.Fprintf(w, "  %s %s [%s %s]\n      %s\n", paint(color, string(f.Severity)+":"), findingSubject(f), f.Check, f.Code, f.Message)
	}
	fmt.Fprintf(w, "%s\n", preflightSummary(pf))
}

// preflightMarkdown is the pre-flight section of the markdown form.
func preflightMarkdown(p *planner.Plan) string {
	pf := p.Preflight
	if pf == nil {
		return ""
	}
	var b strings.Builder
	title := preflightHeading
	if pf.As != "" {
		title += " (permissions of principal <code>" + escapeHTML(pf.As) + "</code>)"
	}
	fmt.Fprintf(&b, "#### %s\n\n", title)
	if len(pf.Findings) > 0 {
		b.WriteString("| | resource | check | code | finding |\n|---|---|---|---|---|\n")
		for _, f := range pf.Findings {
			mark := string(f.Severity)
			if f.Severity == planner.SeverityError {
				mark = "**error**"
			}
			fmt.Fprintf(&b, "| %s | <code>%s</code> | %s | <code>%s</code> | %s |\n", mark, escapeHTML(findingSubject(f)), f.Check, escapeHTML(f.Code),
				strings.ReplaceAll(escapeHTML(f.Message), "|", "\\|"))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "_%s_\n\n", escapeHTML(preflightSummary(pf)))
	return b.String()
}
