package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/azkcli/azk/internal/planner"
)

// replacedFrom names the replaced resources r's replaced inputs come from.
func replacedFrom(r *planner.Resource) string {
	var from []string
	for _, in := range r.ReplacedInputs {
		if !slices.Contains(from, in.From) {
			from = append(from, in.From)
		}
	}
	return strings.Join(from, ", ")
}

// replacedInputLines say, for each value r takes from a replaced resource,
// where it comes from and whether Azure accepts it only at creation.
func replacedInputLines(r *planner.Resource) []string {
	var out []string
	for _, in := range r.ReplacedInputs {
		text := fmt.Sprintf("input:  %s comes from %s, which is replaced: known after apply", in.Path, in.From)
		if in.CreateOnly != "" {
			text += fmt.Sprintf("; Azure accepts it only at creation (%s)", in.CreateOnly)
		}
		out = append(out, text)
	}
	return out
}
