package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/bodydiff"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// driftLine says which drift policy decided, where it is not the default.
func driftLine(r *planner.Resource) string {
	p := r.DriftPolicy
	if p == nil || p.Source == planner.PolicySourceDefault {
		return ""
	}
	line := fmt.Sprintf("drift:  %s (%s)", p.Value, p.Source)
	if p.Value != graph.DriftEnforce {
		line += "; the operator always enforces"
	}
	return line
}

// azureOnlyHeading says what the PUT of r does with the values Azure holds
// that its body omits (Resource.AzureOnly), by r's drift policy.
func azureOnlyHeading(r *planner.Resource) string {
	switch {
	case r.DriftPolicy == nil:
		return "the PUT may reset these (Azure holds them, the manifests do not set them; a PUT replaces the resource):"
	case r.DriftPolicy.Value == graph.DriftEnforce:
		return "the PUT resets these (drift policy enforce: Azure holds them and the manifests do not set them; a PUT replaces the resource, unless its provider keeps what a PUT omits):"
	}
	if slices.ContainsFunc(r.AzureOnly, func(v planner.PathValue) bool { return v.Reason != "" }) {
		return "the PUT may reset these (drift policy " + r.DriftPolicy.Value + " cannot keep those that say why; the others this change removed from the manifests):"
	}
	return "the PUT resets these (this change removed them from the manifests, so drift policy " + r.DriftPolicy.Value + " does not keep them):"
}

// driftDetailLines are what r's drift policy did: under merge, the values
// the PUT keeps; under reflect, where the manifests are to follow Azure.
func driftDetailLines(r *planner.Resource, drift bool) []detailLine {
	if drift {
		return nil
	}
	var out []detailLine
	if len(r.Kept) > 0 {
		out = append(out, detailLine{indent: "    ", block: "kept", text: "kept: Azure holds these and the manifests do not set them; under drift policy merge the PUT carries Azure's values, so they stay:"})
		for _, v := range r.Kept {
			out = append(out, detailLine{indent: "      ", symbol: "=", color: ansiCyan, block: "kept", text: pathValueText(v)})
		}
	}
	if len(r.Reflected) > 0 {
		out = append(out, detailLine{indent: "    ", block: "reflected", text: "reflect: Azure changed, the manifests will follow (azk refresh --write writes Azure's values into them; the PUT keeps Azure's values):"})
		for _, c := range r.Reflected {
			out = append(out, detailLine{indent: "      ", symbol: "<", color: ansiCyan, block: "reflected", text: reflectedText(c)})
		}
	}
	return out
}

// reflectedText is one reflected difference: the manifests' value and Azure's.
func reflectedText(c planner.Change) string {
	switch {
	case c.After == nil:
		return c.Path + " = " + bodydiff.Format(c.Before) + " (Azure's; the manifests do not set it)"
	case c.Before == nil:
		return c.Path + ": the manifests set " + bodydiff.Format(c.After) + ", Azure has none"
	}
	return c.Path + ": the manifests set " + bodydiff.Format(c.After) + ", Azure has " + bodydiff.Format(c.Before)
}

// markdownBlocks are the blocks of a resource's markdown beyond its diff,
// in the order their titles come.
type markdownBlocks []*markdownBlock

type markdownBlock struct {
	name, title string
	lines       []string
}

// add puts a detail line into its block: a title ("kept: …" becomes
// "Kept: …"), or a line of the block's diff.
func (bs *markdownBlocks) add(line detailLine) {
	var blk *markdownBlock
	for _, b := range *bs {
		if b.name == line.block {
			blk = b
		}
	}
	if blk == nil {
		blk = &markdownBlock{name: line.block}
		*bs = append(*bs, blk)
	}
	if line.indent == "    " {
		_, title, _ := strings.Cut(line.text, ": ")
		blk.title = strings.ToUpper(title[:1]) + title[1:]
		return
	}
	blk.lines = append(blk.lines, line.symbol+" "+strings.ReplaceAll(line.text, "```", "'''"))
}

// reflectedPaths counts the differences the manifests are to follow.
func reflectedPaths(p *planner.Plan) int {
	n := 0
	for _, r := range p.Resources {
		n += len(r.Reflected)
	}
	return n
}

// noChangesLine is what a plan that writes nothing says: NoChangesLine,
// NoDestroyLine for a destroy plan, and where the manifests are to follow
// Azure (drift policy reflect) how many paths.
func noChangesLine(p *planner.Plan) string {
	if p.Destroy {
		return NoDestroyLine
	}
	if n := reflectedPaths(p); n > 0 {
		return fmt.Sprintf("No changes to Azure. The manifests are to follow Azure at %d %s (drift policy reflect): azk refresh --write writes Azure's values into them.", n, plural(n, "path", "paths"))
	}
	return NoChangesLine
}
