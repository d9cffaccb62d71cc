package views

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/planner"
)

// unmanagedChildLines are the plan's unmanaged children, one line each: what
// it is, its ARM ID (quoted by quote) and the resource of the manifests it
// is under.
func unmanagedChildLines(p *planner.Plan, quote func(string) string) []string {
	parents := map[string]*planner.Resource{}
	for _, r := range p.Resources {
		parents[r.Address] = r
	}
	lines := make([]string, len(p.UnmanagedChildren))
	for i, c := range p.UnmanagedChildren {
		parent := c.Parent
		if r := parents[c.Parent]; r != nil {
			parent = r.Kind + " " + r.Namespace + "/" + r.Name
		}
		lines[i] = fmt.Sprintf("%s %s (in %s, not in the manifests)", childNoun(c.ID), quote(c.ID), parent)
	}
	return lines
}

// childNoun names a child by its type's last segment, in the singular:
// "subnets" is a subnet, "firewallRules" a firewall rule; a segment in
// capitals (a DNS record type, "TXT") stays as it is.
func childNoun(id string) string {
	parsed, err := armid.Parse(id)
	if err != nil {
		return "resource"
	}
	typ := parsed.Type()
	segment := typ[strings.LastIndexByte(typ, '/')+1:]
	if strings.ToUpper(segment) == segment {
		return segment
	}
	var words []string
	start := 0
	for i, r := range segment {
		if i > 0 && unicode.IsUpper(r) {
			words = append(words, strings.ToLower(segment[start:i]))
			start = i
		}
	}
	words = append(words, strings.ToLower(segment[start:]))
	last := words[len(words)-1]
	switch {
	case strings.HasSuffix(last, "ies"):
		last = strings.TrimSuffix(last, "ies") + "y"
	case strings.HasSuffix(last, "sses"):
		last = strings.TrimSuffix(last, "es")
	case strings.HasSuffix(last, "s"):
		last = strings.TrimSuffix(last, "s")
	}
	words[len(words)-1] = last
	return strings.Join(words, " ")
}
