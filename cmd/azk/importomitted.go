package main

import (
	"fmt"
	"io"

	"github.com/azkcli/azk/internal/importer"
)

// reportOmitted tells what import left out by design (Azure's own
// resources, which the operator's import leaves out too): one line per
// reason with its count, "Left out by design: 348 built-in role
// definitions"; with verbose, each resource under its line.
func reportOmitted(w io.Writer, omitted []importer.Omitted, verbose bool) {
	for _, g := range importer.OmittedByReason(omitted) {
		if !verbose {
			fmt.Fprintf(w, "Left out by design: %s (-v lists them)\n", g)
			continue
		}
		fmt.Fprintf(w, "Left out by design: %s:\n", g)
		for _, o := range g.Resources {
			if o.Reason.Detail != "" {
				fmt.Fprintf(w, "  %s (%s)\n", o.ID, o.Reason.Detail)
			} else {
				fmt.Fprintf(w, "  %s\n", o.ID)
			}
		}
	}
}
