// Package views shows a plan: as text for people (with or without colour),
// as JSON for tools, as Markdown for a pull-request comment, and as a Mermaid
// graph of its changes. It reads a planner.Plan and decides nothing.
package views

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
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

// Options say how much of a plan text and markdown show.
type Options struct {
	// Color paints the text form with ANSI colours.
	Color bool
	// ShowUnchanged lists the resources that stay as they are, which are
	// otherwise one count line.
	ShowUnchanged bool
	// ShowDefaults lists the values Azure set that nobody changed since
	// (planner.History.Defaults), which are otherwise left out.
	ShowDefaults bool
}

// look is how an action is shown: its symbol, colour and phrase.
type look struct {
	symbol, color, phrase string
}

func lookOf(r *planner.Resource, drift bool) look {
	switch {
	case drift && !r.Exists:
		return look{"?", ansiDim, "does not exist in Azure"}
	case drift && r.Drifted():
		return look{"~", ansiYellow, "has drifted"}
	case drift:
		return look{"=", ansiDim, "matches the manifests"}
	}
	adopt := ""
	if r.Adopt != nil {
		adopt = ", adopting what Azure has"
	}
	switch r.Action {
	case planner.ActionCreate:
		if r.Reason == planner.ReasonNameAfterApply {
			return look{"+", ansiGreen, "will be created (its name is known after apply)"}
		}
		return look{"+", ansiGreen, "will be created"}
	case planner.ActionUpdate:
		switch r.Reason {
		case planner.ReasonFailed:
			return look{"~", ansiYellow, "will be sent again (its last provisioning failed)" + adopt}
		case planner.ReasonSecretsRequested:
			return look{"~", ansiYellow, "will be updated to send its secrets again" + adopt}
		case planner.ReasonSecretChanged:
			return look{"~", ansiYellow, "will be updated to send a changed Secret" + adopt}
		case planner.ReasonInputReplacedUpdate:
			return look{"~", ansiYellow, "will be updated with the values of " + replacedFrom(r) + ", which is replaced" + adopt}
		}
		return look{"~", ansiYellow, "will be updated in place" + adopt}
	case planner.ActionNoChange:
		if r.Adopt != nil {
			return look{">", ansiCyan, "will be adopted, unchanged"}
		}
		if r.Moved != nil {
			return look{"=", ansiDim, "moved in the manifests: nothing to do"}
		}
		return look{"=", ansiDim, "is up to date"}
	case planner.ActionSkip:
		if !r.Exists {
			return look{"#", ansiDim, "skip (missing): not created"}
		}
		return look{"#", ansiDim, "is skipped: read only" + adopt}
	case planner.ActionBlocked:
		return look{"x", ansiRed, "is blocked"}
	case planner.ActionReplace:
		return look{"!", ansiRed, "needs replacing: azk applies it only with -replace"}
	case planner.ActionRecreate:
		if r.CascadedBy != "" {
			return look{"-/+", ansiRed, "will be replaced: ARM deletes it with " + r.CascadedBy + ", then it is created"}
		}
		if r.Reason == planner.ReasonInputReplaced {
			return look{"-/+", ansiRed, "will be replaced with " + replacedFrom(r) + ": deleted before it, created after it"}
		}
		return look{"-/+", ansiRed, "will be replaced: deleted, then created"}
	case planner.ActionDelete:
		if r.CascadedBy != "" {
			return look{"-", ansiRed, "will be deleted by ARM with " + r.CascadedBy}
		}
		return look{"-", ansiRed, "will be deleted"}
	case planner.ActionDetach:
		return look{".", ansiDim, "will be left in Azure, no longer managed"}
	}
	return look{"?", "", string(r.Action)}
}

// SummaryLine is the plan's one-line count, e.g. "Plan: 3 to create, 1 to
// update, 4 unchanged, 1 skipped, 0 blocked."
func SummaryLine(p *planner.Plan) string {
	s := p.Summary()
	if p.Destroy {
		return destroySummaryLine(p)
	}
	if p.Drift {
		return fmt.Sprintf("Drift: %d of %d existing resources changed in Azure.", s.Drifted, s.Update+s.NoChange+s.Skip+s.ReplaceRequired-skipMissing(p))
	}
	line := fmt.Sprintf("Plan: %d to create, %d to update, ", s.Create, s.Update)
	for _, c := range []struct {
		n    int
		what string
	}{{s.Replace, "to replace"}, {s.Delete, "to delete"}, {s.Detach, "to detach"}} {
		if c.n > 0 {
			line += fmt.Sprintf("%d %s, ", c.n, c.what)
		}
	}
	line += fmt.Sprintf("%d unchanged, %d skipped, %d blocked", s.NoChange, s.Skip, s.Blocked)
	if s.ReplaceRequired > 0 {
		line += fmt.Sprintf(", %d need replacing (error)", s.ReplaceRequired)
	}
	if s.Adopt > 0 {
		line += fmt.Sprintf("; %d adopted from Azure", s.Adopt)
	}
	if s.Moved > 0 {
		line += fmt.Sprintf("; %d moved", s.Moved)
	}
	if p.Inputs.Base != "" {
		line += fmt.Sprintf("; this change: %d, drift: %d", s.Changed, s.Drifted)
	}
	if s.Reflected > 0 {
		line += fmt.Sprintf("; %d to reflect into the manifests (azk refresh)", s.Reflected)
	}
	return line + "."
}

// NoChangesLine is what a plan with nothing to do says.
const NoChangesLine = "No changes. Azure matches the manifests."

func skipMissing(p *planner.Plan) int {
	n := 0
	for _, r := range p.Resources {
		if r.SkipMissing() {
			n++
		}
	}
	return n
}

// quiet reports whether r is left out of a plan's listing unless
// ShowUnchanged: it is not written, not blocked, and says nothing new.
func quiet(r *planner.Resource, drift bool) bool {
	if drift {
		return r.Exists && !r.Drifted() && len(r.AzureOnly) == 0 && !keeps(r)
	}
	if len(r.OperatorDiffers) > 0 || len(r.RuleFindings) > 0 {
		return false
	}
	switch r.Action {
	case planner.ActionNoChange:
		return r.Adopt == nil && r.Moved == nil && r.RecordPolicy == nil && len(r.Ignored) == 0 && len(r.Reflected) == 0 && !keeps(r)
	case planner.ActionSkip:
		return r.Exists && r.Adopt == nil && r.Moved == nil && r.RecordPolicy == nil && len(r.Reflected) == 0
	}
	return false
}

// Text writes the plan for people, in dependency order: every resource
// apply acts on or that needs attention, then the count of those that stay
// as they are (listed too with ShowUnchanged), then the summary.
func Text(w io.Writer, p *planner.Plan, opts Options) error {
	bw := bufio.NewWriter(w)
	paint := func(c, s string) string {
		if !opts.Color || c == "" {
			return s
		}
		return c + s + ansiReset
	}
	if p.Drift {
		fmt.Fprintln(bw, "Drift report: Azure compared with the manifests; nothing is proposed.")
	}
	if p.Destroy && len(p.Resources) > 0 {
		fmt.Fprintln(bw, destroyHeading)
	}
	if line := CascadeLine(p); line != "" {
		fmt.Fprintln(bw, paint(ansiRed, line))
	}
	unchanged := 0
	list := listingOf(p)
	for _, r := range list.resources {
		if quiet(r, p.Drift) {
			unchanged++
			if !opts.ShowUnchanged {
				continue
			}
		}
		if title := list.next(r); title != "" {
			fmt.Fprintf(bw, "\n%s\n", paint(ansiBold, title))
		}
		l := lookOf(r, p.Drift)
		fmt.Fprintf(bw, "\n%s %s %s\n", paint(l.color, l.symbol), paint(ansiBold, r.Kind+" "+r.Namespace+"/"+r.Name), l.phrase)
		for _, line := range append(detailLines(r, p.Drift), historyLines(r, opts.ShowDefaults)...) {
			if line.color != "" {
				line.text = paint(line.color, line.symbol) + " " + line.text
			} else if line.symbol != "" {
				line.text = line.symbol + " " + line.text
			}
			fmt.Fprintf(bw, "%s%s\n", line.indent, line.text)
		}
	}
	if unchanged > 0 && !opts.ShowUnchanged {
		what := "unchanged"
		if p.Drift {
			what = "matching the manifests"
		}
		fmt.Fprintf(bw, "\n%d %s %s (--show-unchanged lists them).\n", unchanged, plural(unchanged, "resource", "resources"), what)
	}
	if line := secretsLine(p); line != "" && !p.Drift {
		fmt.Fprintf(bw, "\n%s\n", line)
	}
	if line := notReturnedLine(p); line != "" {
		fmt.Fprintf(bw, "\n%s\n", line)
	}
	if len(p.Unmanaged) > 0 {
		fmt.Fprintf(bw, "\nunmanaged: %d (in the input's resource groups, not in the input)\n", len(p.Unmanaged))
		for _, id := range p.Unmanaged {
			fmt.Fprintf(bw, "    %s\n", id)
		}
	}
	if len(p.UnmanagedChildren) > 0 {
		fmt.Fprintf(bw, "\nunmanaged children: %d (under resources of the input, not in the input)\n", len(p.UnmanagedChildren))
		for _, line := range unmanagedChildLines(p, func(id string) string { return id }) {
			fmt.Fprintf(bw, "    %s\n", line)
		}
	}
	if len(p.Unmanaged)+len(p.UnmanagedChildren) > 0 && p.Inputs.Base == "" && !p.Drift {
		fmt.Fprintf(bw, "%s\n", removalsNeedBase)
	}
	writePreflightText(bw, p, paint)
	writeRulesText(bw, p, paint)
	if !p.Drift && !p.HasChanges() && !p.HasErrors() {
		fmt.Fprintf(bw, "\n%s\n", paint(ansiBold, noChangesLine(p)))
	}
	fmt.Fprintf(bw, "\n%s\n", paint(ansiBold, SummaryLine(p)))
	return bw.Flush()
}

// secretsLine tells which resources the plan shows as unchanged although
// they send secrets it cannot compare (resources that are written say so
// themselves): up to five by address, more as a count.
func secretsLine(p *planner.Plan) string {
	var addresses []string
	for _, r := range p.Resources {
		if len(r.Secrets) > 0 && !r.Writes() && r.Action != planner.ActionBlocked {
			addresses = append(addresses, r.Address)
		}
	}
	switch n := len(addresses); {
	case n == 0:
		return ""
	case n > 5:
		return fmt.Sprintf("Not compared: the secrets of %d resources, which Azure never returns (--show-unchanged lists them); azk apply --send-secrets ADDRESS sends them again.", n)
	}
	return fmt.Sprintf("Not compared: the secrets of %s, which Azure never returns; azk apply --send-secrets ADDRESS sends them again.", strings.Join(addresses, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// notReturnedLine counts what the manifests set that Azure does not return
// on the resources the plan does not list with their details: not compared.
func notReturnedLine(p *planner.Plan) string {
	paths, resources := 0, 0
	for _, r := range p.Resources {
		unchanged := r.Action == planner.ActionNoChange || r.Action == planner.ActionSkip
		if p.Drift {
			unchanged = quiet(r, true) // the others list theirs
		}
		if len(r.NotReturned) > 0 && unchanged {
			paths += len(r.NotReturned)
			resources++
		}
	}
	if paths == 0 {
		return ""
	}
	return fmt.Sprintf("Not compared: %d %s the manifests set on %d unchanged %s, which Azure does not return (-o json lists them under notReturned).",
		paths, plural(paths, "property", "properties"), resources, plural(resources, "resource", "resources"))
}

// detailLine is one line under a resource's header. A line of the values
// the PUT may reset is in the resets group: markdown shows it in a block of
// its own.
type detailLine struct {
	indent, symbol, color, text string
	resets                      bool
	// block names the block of its own a line belongs to in markdown
	// (kept, reflected); the line with indent "    " is its title.
	block string
}

// detailLines are what the plan says about r under its header: ID, policy
// when not the default, reasons, notes, policy records, adoption, changes
// and ignored differences.
func detailLines(r *planner.Resource, drift bool) []detailLine {
	var out []detailLine
	add := func(text string) { out = append(out, detailLine{indent: "    ", text: text}) }
	id := r.ARMID
	if id == "" {
		id = convert.UnknownText
	}
	add("id:     " + id)
	if r.Policy.Source != planner.PolicySourceDefault {
		add(fmt.Sprintf("policy: %s (%s)", r.Policy.Value, r.Policy.Source))
	}
	if line := driftLine(r); line != "" && !drift {
		add(line)
	}
	for _, reason := range r.Reasons {
		out = append(out, detailLine{indent: "    ", symbol: "reason:", color: ansiRed, text: reason})
	}
	out = append(out, ruleDetailLines(r)...)
	for _, text := range replacedInputLines(r) {
		add(text)
	}
	for _, c := range r.Cascades {
		what := c.ID
		if c.Address != "" {
			what = c.Address
		}
		out = append(out, detailLine{indent: "    ", symbol: "cascade:", color: ansiRed, text: fmt.Sprintf("deleting it also removes %s (%s): apply refuses unless --allow-cascade", what, c.Reason)})
	}
	if r.Adopt != nil && !drift {
		add(fmt.Sprintf("adopt:  it exists in Azure and is new in this change: taken over under %s; %s", r.Adopt.Policy, r.Adopt.Destroy))
	}
	if r.Moved != nil && !drift {
		add(fmt.Sprintf("moved from %s (%s)", r.Moved.From, r.Moved.Source))
	}
	if rec := r.RecordPolicy; rec != nil && !drift {
		if rec.Writable {
			add(fmt.Sprintf("record: apply writes %s: %s into %s, in place of %s", graph.AnnotationReconcilePolicy, rec.Value, rec.Source, graph.AnnotationReconcilePolicyIfExists))
		} else {
			add(fmt.Sprintf("record: %s: %s cannot be written back to %s (not a plain file): apply refuses unless --allow-unrecorded-policy", graph.AnnotationReconcilePolicy, rec.Value, rec.Source))
		}
	}
	for _, note := range r.Notes {
		add("note:   " + note)
	}
	for _, d := range r.OperatorDiffers {
		out = append(out, detailLine{indent: "    ", symbol: "operator differs:", color: ansiYellow, text: d.Message})
	}
	if !drift {
		for _, e := range r.Exports {
			where := e.Name
			if e.Key != "" {
				where += "." + e.Key
			}
			add(fmt.Sprintf("exports: %s %s from %s", e.Kind, where, e.From))
		}
	}
	if len(r.Secrets) > 0 && !r.Writes() && !drift {
		add(fmt.Sprintf("secrets: %s not compared (Azure never returns them); azk apply --send-secrets %s sends them again", strings.Join(r.Secrets, ", "), r.Address))
	}
	for _, line := range changeLines(r.Changes, drift) {
		out = append(out, detailLine{indent: "      ", symbol: line.symbol, color: line.color, text: line.text})
	}
	for _, line := range changeLines(r.Ignored, false) {
		out = append(out, detailLine{indent: "      ", symbol: "#", color: ansiDim, text: line.text + " (ignored: Azure's value is kept)"})
	}
	if r.Writes() || drift {
		for _, v := range r.NotReturned {
			out = append(out, detailLine{indent: "      ", symbol: "#", color: ansiDim, text: pathValueText(v) + " (Azure does not return it: not compared)"})
		}
	}
	if len(r.AzureOnly) > 0 {
		if drift {
			add("azure-only: Azure also holds these, which the manifests do not set (a PUT may reset them):")
		} else {
			add("azure-only: " + azureOnlyHeading(r))
		}
		for _, v := range r.AzureOnly {
			text := pathValueText(v)
			if v.Reason != "" {
				text += " (" + v.Reason + ")"
			}
			out = append(out, detailLine{indent: "      ", symbol: "!", color: ansiYellow, text: text, resets: true})
		}
	}
	return append(out, driftDetailLines(r, drift)...)
}

// pathValueText is "path = value", a secret as SensitiveText.
func pathValueText(v planner.PathValue) string {
	if v.Sensitive {
		return v.Path + " = " + convert.SensitiveText
	}
	return v.Path + " = " + bodydiff.Format(v.Value)
}

type changeLine struct {
	symbol, color, text string
}

// changeLines renders property changes: "+ path = after" for additions,
// "- path = before" for removals, "~ path = before -> after" for changes. In
// a drift report, before is Azure's value and after the manifests'.
func changeLines(changes []planner.Change, drift bool) []changeLine {
	out := make([]changeLine, 0, len(changes))
	for _, c := range changes {
		after := bodydiff.Format(c.After)
		switch {
		case c.Sensitive && c.Unknown:
			after = convert.SensitiveUnknownText
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
				out = append(out, changeLine{"~", ansiYellow, c.Path + ": " + bodydiff.Format(c.Before) + " in Azure, absent from the manifests"})
				continue
			}
			out = append(out, changeLine{"-", ansiRed, c.Path + " = " + bodydiff.Format(c.Before)})
		case !c.Sensitive && !c.Unknown && isMultiLine(c.Before, c.After):
			out = append(out, changeLine{"~", ansiYellow, c.Path + ":\n" + lineDiff(c.Before.(string), c.After.(string))})
		case drift:
			out = append(out, changeLine{"~", ansiYellow, c.Path + ": " + bodydiff.Format(c.Before) + " in Azure, manifests set " + after})
		default:
			out = append(out, changeLine{"~", ansiYellow, c.Path + " = " + bodydiff.Format(c.Before) + " -> " + after})
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
		return bodydiff.Format(before) + " -> " + bodydiff.Format(after)
	}
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "          " + l
	}
	return strings.Join(lines, "\n")
}

// jsonPlan is the -o json form: the plan with its summary.
type jsonPlan struct {
	*planner.Plan
	Summary planner.Summary `json:"summary"`
	// SecretSalt is never shown: it belongs to saved plans only.
	SecretSalt string `json:"secretSalt,omitempty"`
}

// JSON writes the plan in its documented JSON form (docs/plan-json.md):
// secrets as "(sensitive)", late values as "(known after apply)".
func JSON(w io.Writer, p *planner.Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonPlan{Plan: p, Summary: p.Summary()})
}

// MarkdownLimit is the most bytes Markdown writes: GitHub refuses
// comments over 65,536 characters, and the rest of a comment needs room.
const MarkdownLimit = 60000

// Markdown writes the plan as a pull-request comment: the summary, a
// table of decisions, then one collapsible block per resource: changes
// first, then blocked, then replace-required, then the rest that needs
// attention (and the unchanged ones with ShowUnchanged), in each section of
// a three-way plan. Past MarkdownLimit
// the unchanged list goes first, then the details of blocks from the last
// one up; a header line of a change is never dropped.
func Markdown(w io.Writer, p *planner.Plan, opts Options) error {
	var head strings.Builder
	title := "azk plan"
	if p.Drift {
		title = "azk drift report"
	}
	if p.Destroy {
		title = "azk destroy plan"
	}
	fmt.Fprintf(&head, "### %s\n\n**%s**\n\n", title, SummaryLine(p))
	for _, line := range RefusalLines(p) {
		fmt.Fprintf(&head, "> [!CAUTION]\n> %s\n\n", line)
	}
	if !p.Drift && !p.HasChanges() && !p.HasErrors() {
		fmt.Fprintf(&head, "%s\n\n", noChangesLine(p))
	}
	head.WriteString(rulesMarkdown(p))
	s := p.Summary()
	head.WriteString("| decision | resources |\n|---|---:|\n")
	for _, row := range []struct {
		label string
		n     int
	}{
		{"create", s.Create}, {"update", s.Update}, {"replace", s.Replace}, {"delete", s.Delete}, {"detach", s.Detach}, {"adopt", s.Adopt}, {"moved", s.Moved},
		{"unchanged", s.NoChange}, {"skip", s.Skip}, {"blocked", s.Blocked}, {"replace required", s.ReplaceRequired},
		{"this change", s.Changed}, {"drifted", s.Drifted}, {"to reflect", s.Reflected}, {"unmanaged", s.Unmanaged},
	} {
		if row.n > 0 {
			fmt.Fprintf(&head, "| %s | %d |\n", row.label, row.n)
		}
	}
	head.WriteString("\n")
	if line := secretsLine(p); line != "" && !p.Drift {
		fmt.Fprintf(&head, "%s\n\n", line)
	}
	head.WriteString(preflightMarkdown(p))
	head.WriteString(markdownGraph(p))

	var shown, unchanged []*planner.Resource
	list := listingOf(p)
	placed := make(map[*planner.Resource]bool, len(list.resources))
	for _, section := range list.sections() {
		for _, rank := range []func(*planner.Resource) bool{
			func(r *planner.Resource) bool { return r.Writes() || r.Removed() || p.Drift && r.Drifted() },
			func(r *planner.Resource) bool { return r.Action == planner.ActionBlocked },
			func(r *planner.Resource) bool { return r.Action == planner.ActionReplace },
			func(r *planner.Resource) bool { return true },
		} {
			for _, r := range section {
				if !placed[r] && rank(r) {
					placed[r] = true
					if quiet(r, p.Drift) {
						unchanged = append(unchanged, r)
					} else {
						shown = append(shown, r)
					}
				}
			}
		}
	}
	full := make([]string, len(shown))
	short := make([]string, len(shown))
	for i, r := range shown {
		heading := ""
		if title := list.next(r); title != "" {
			heading = "#### " + title + "\n\n"
		}
		full[i], short[i] = heading+markdownResource(r, p.Drift, true, opts), heading+markdownResource(r, p.Drift, false, opts)
	}
	var unchangedBlock string
	if len(unchanged) > 0 {
		if opts.ShowUnchanged {
			var b strings.Builder
			fmt.Fprintf(&b, "<details><summary>unchanged: %d</summary>\n\n", len(unchanged))
			for _, r := range unchanged {
				fmt.Fprintf(&b, "- %s <code>%s</code>\n", r.Kind, escapeHTML(r.Namespace+"/"+r.Name))
			}
			b.WriteString("</details>\n\n")
			unchangedBlock = b.String()
		} else {
			unchangedBlock = fmt.Sprintf("_%d %s unchanged._\n\n", len(unchanged), plural(len(unchanged), "resource", "resources"))
		}
	}
	var unmanagedBlock string
	if len(p.Unmanaged) > 0 {
		unmanagedBlock = fmt.Sprintf("<details><summary>unmanaged: %d</summary>\n\n```\n%s\n```\n</details>\n\n", len(p.Unmanaged), strings.Join(p.Unmanaged, "\n"))
	}
	if len(p.UnmanagedChildren) > 0 {
		unmanagedBlock += fmt.Sprintf("<details><summary>unmanaged children: %d</summary>\n\n- %s\n</details>\n\n", len(p.UnmanagedChildren),
			strings.Join(unmanagedChildLines(p, func(id string) string { return "`" + id + "`" }), "\n- "))
	}
	if unmanagedBlock != "" {
		if p.Inputs.Base == "" && !p.Drift {
			unmanagedBlock += "_" + strings.TrimSpace(removalsNeedBase) + "_\n\n"
		}
	}
	size := func(blocks []string) int {
		n := head.Len() + len(unchangedBlock) + len(unmanagedBlock) + 200
		for _, b := range blocks {
			n += len(b)
		}
		return n
	}
	blocks := append([]string(nil), full...)
	if size(blocks) > MarkdownLimit && opts.ShowUnchanged && len(unchanged) > 0 {
		unchangedBlock = fmt.Sprintf("_%d %s unchanged (not listed: the comment would be too long)._\n\n", len(unchanged), plural(len(unchanged), "resource", "resources"))
	}
	if size(blocks) > MarkdownLimit && unmanagedBlock != "" {
		unmanagedBlock = fmt.Sprintf("_unmanaged: %d (not listed: the comment would be too long)._\n\n", s.Unmanaged)
	}
	shortened := 0
	for i := len(blocks) - 1; i >= 0 && size(blocks) > MarkdownLimit; i-- {
		blocks[i] = short[i]
		shortened++
	}
	var out strings.Builder
	out.WriteString(head.String())
	for _, b := range blocks {
		out.WriteString(b)
	}
	out.WriteString(unchangedBlock)
	out.WriteString(unmanagedBlock)
	if shortened > 0 {
		fmt.Fprintf(&out, "_The details of %d %s are left out: the comment would be too long. Run `azk plan` for the full plan._\n", shortened, plural(shortened, "resource", "resources"))
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// markdownResource is one resource's block: its header line, and with
// detail its ID, reasons, notes and changes in a collapsible section.
func markdownResource(r *planner.Resource, drift, detail bool, opts Options) string {
	l := lookOf(r, drift)
	header := fmt.Sprintf("<code>%s</code> %s <code>%s</code> %s", l.symbol, r.Kind, escapeHTML(r.Namespace+"/"+r.Name), l.phrase)
	if !detail {
		return "- " + header + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", header)
	var diff, resets []string
	var resetsHeading string
	var blocks markdownBlocks
	for _, line := range append(detailLines(r, drift), historyLines(r, opts.ShowDefaults)...) {
		switch {
		case line.block == blockChangedOutside:
			// a table of its own, below
		case line.indent == "    " && strings.HasPrefix(line.text, "azure-only: "):
			resetsHeading = strings.TrimPrefix(line.text, "azure-only: ")
		case line.block != "":
			blocks.add(line)
		case line.indent == "    ":
			text := line.text
			if line.symbol != "" {
				text = "**" + line.symbol + "** " + text
			}
			fmt.Fprintf(&b, "- %s\n", escapeHTML(text))
		case line.resets:
			resets = append(resets, line.symbol+" "+strings.ReplaceAll(line.text, "```", "'''"))
		default:
			diff = append(diff, line.symbol+" "+strings.ReplaceAll(line.text, "```", "'''"))
		}
	}
	writeBlock := func(lines []string) {
		b.WriteString("\n```diff\n")
		for _, d := range lines {
			b.WriteString(d + "\n")
		}
		b.WriteString("```\n")
	}
	if len(diff) > 0 {
		writeBlock(diff)
	}
	b.WriteString(changedOutsideTable(r))
	if len(resets) > 0 {
		fmt.Fprintf(&b, "\n%s\n", escapeHTML(strings.ToUpper(resetsHeading[:1])+resetsHeading[1:]))
		writeBlock(resets)
	}
	for _, blk := range blocks {
		fmt.Fprintf(&b, "\n%s\n", escapeHTML(blk.title))
		writeBlock(blk.lines)
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeHTML(s string) string { return htmlEscaper.Replace(s) }
