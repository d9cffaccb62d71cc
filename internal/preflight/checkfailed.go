package preflight

import (
	"fmt"

	"github.com/azkcli/azk/internal/planner"
)

// settle leaves a check that could not run with one finding: its first
// CheckFailed, as an error, counting the requests that failed after it.
// Whatever else the check found rests on answers it did not get (a
// permissions read that failed is no missing permission), so it is left out.
func settle(fs []planner.Finding) []planner.Finding {
	var failed []planner.Finding
	for _, f := range fs {
		if f.Code == "CheckFailed" {
			failed = append(failed, f)
		}
	}
	if len(failed) == 0 {
		return fs
	}
	f := failed[0]
	f.Severity = planner.SeverityError
	if n := len(failed) - 1; n > 0 {
		f.Message += fmt.Sprintf("; %d more of its requests failed", n)
	}
	return []planner.Finding{f}
}
