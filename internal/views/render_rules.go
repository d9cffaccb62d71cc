package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// rulesHeading heads the section of the team's policies (azk plan --policy).
const rulesHeading = "Policy"

// ruleDetailLines are a resource's policy findings, beside it.
func ruleDetailLines(r *planner.Resource) []detailLine {
	var out []detailLine
	for _, f := range r.RuleFindings {
		symbol, color := "deny:", ansiRed
		if f.Severity != planner.SeverityError {
			symbol, color = "warn:", ansiYellow
		}
		out = append(out, detailLine{indent: "    ", symbol: "policy " + symbol, color: color, text: f.Message + " [" + f.Rule + "]"})
	}
	return out
}

// rulesSummary is the section's closing line.
func rulesSummary(rs *planner.Rules) string {
	var parts []string
	if len(rs.Files) > 0 {
		denials, warnings := rs.Denials(), len(rs.Findings)-rs.Denials()
		parts = append(parts, fmt.Sprintf("%d %s, %d %s from %d %s",
			denials, plural(denials, "denial", "denials"), warnings, plural(warnings, "warning", "warnings"), len(rs.Files), plural(len(rs.Files), "file", "files")))
	}
	if len(rs.Requirements) > 0 {
		var names []string
		for _, q := range rs.Requirements {
			names = append(names, q.Name)
		}
		if unmet := rs.Unmet(); len(unmet) > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d requirements (--require %s) not met", len(unmet), len(rs.Requirements), strings.Join(names, ",")))
		} else {
			parts = append(parts, fmt.Sprintf("--require %s met", strings.Join(names, ",")))
		}
	}
	line := rulesHeading + ": " + strings.Join(parts, "; ") + "."
	if rs.Denials() > 0 {
		line += " azk apply --policy refuses to start while any denial stands."
	}
	return line
}

// requirementText says what breaks an unmet requirement.
func requirementText(q planner.Requirement) string {
	return fmt.Sprintf("%s: %s", q.Name, strings.Join(q.Resources, ", "))
}

// writeRulesText writes the policy section of the text form: every
// finding (those beside their resource again, with file:line), the
// requirements not met, and the count.
func writeRulesText(w io.Writer, p *planner.Plan, paint func(color, s string) string) {
	rs := p.Rules
	if rs == nil {
		return
	}
	fmt.Fprintf(w, "\n%s\n", paint(ansiBold, rulesHeading))
	for _, f := range rs.Findings {
		color, mark := ansiYellow, "warn:"
		if f.Severity == planner.SeverityError {
			color, mark = ansiRed, "deny:"
		}
		fmt.Fprintf(w, "  %s %s [%s]\n      %s\n", paint(color, mark), ruleSubject(f), f.Rule, f.Message)
	}
	for _, q := range rs.Unmet() {
		fmt.Fprintf(w, "  %s %s\n", paint(ansiRed, "not met:"), requirementText(q))
	}
	fmt.Fprintf(w, "%s\n", rulesSummary(rs))
}

// ruleSubject names what a finding is about: the resource and its file:line.
func ruleSubject(f planner.RuleFinding) string {
	return findingSubject(planner.Finding{Address: f.Address, Source: f.Source, ARMID: f.ARMID})
}

// rulesMarkdown is the policy section of the markdown form, at the top of
// the comment: a table of findings with file:line, the requirements not met.
func rulesMarkdown(p *planner.Plan) string {
	rs := p.Rules
	if rs == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s\n\n", rulesHeading)
	if len(rs.Findings) > 0 {
		b.WriteString("| | resource | file | rule | finding |\n|---|---|---|---|---|\n")
		for _, f := range rs.Findings {
			mark := "warn"
			if f.Severity == planner.SeverityError {
				mark = "**deny**"
			}
			what := "the plan"
			if f.Address != "" {
				what = "<code>" + escapeHTML(f.Address) + "</code>"
			}
			where := ""
			if f.Source != "" {
				where = "<code>" + escapeHTML(f.Source) + "</code>"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | <code>%s</code> | %s |\n", mark, what, where, escapeHTML(f.Rule),
				strings.ReplaceAll(escapeHTML(f.Message), "|", "\\|"))
		}
		b.WriteString("\n")
	}
	for _, q := range rs.Unmet() {
		fmt.Fprintf(&b, "- **not met:** %s\n", escapeHTML(requirementText(q)))
	}
	if len(rs.Unmet()) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "_%s_\n\n", escapeHTML(rulesSummary(rs)))
	return b.String()
}

// rulesRefusalLine is the refusal at the top of the comment when a policy
// denies the plan.
func rulesRefusalLine(p *planner.Plan) string {
	if n := p.Rules.Denials(); n > 0 && !p.Drift {
		return fmt.Sprintf("azk apply --policy refuses this plan: the policy denies it (%d %s, below).", n, plural(n, "finding", "findings"))
	}
	return ""
}
