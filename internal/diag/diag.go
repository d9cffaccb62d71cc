// Package diag carries user-facing problems found in manifests: each one names
// the file and line it came from, the resource and the field, so that every
// stage (loading, validation, graph, conversion) reports errors the same way.
package diag

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/go-multierror"
)

// Source is where something was read from. File is "-" for standard input.
// The zero Source means "not from a file" and prints as nothing.
type Source struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

func (s Source) String() string {
	switch {
	case s.File == "":
		return ""
	case s.Line <= 0:
		return s.File
	default:
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
}

// Severity separates problems that fail a command from those that only inform.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem in the input. Resource is an address such as
// "network.azure.com/VirtualNetwork/default/vnet1"; Field is a dotted path such
// as "spec.subnets[0].addressPrefix". Both may be empty.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Source   Source   `json:"source"`
	Resource string   `json:"resource,omitempty"`
	Field    string   `json:"field,omitempty"`
	Message  string   `json:"message"`
}

// Error makes a Diagnostic usable as a Go error: "file:line: resource: field: message".
func (d *Diagnostic) Error() string {
	var parts []string
	if s := d.Source.String(); s != "" {
		parts = append(parts, s)
	}
	if d.Resource != "" {
		parts = append(parts, d.Resource)
	}
	if d.Field != "" {
		parts = append(parts, d.Field)
	}
	parts = append(parts, d.Message)
	return strings.Join(parts, ": ")
}

// Errorf builds an error-severity Diagnostic.
func Errorf(src Source, resource, field, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SeverityError, Source: src, Resource: resource, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Warningf builds a warning-severity Diagnostic.
func Warningf(src Source, resource, field, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SeverityWarning, Source: src, Resource: resource, Field: field, Message: fmt.Sprintf(format, args...)}
}

// List collects diagnostics so that a stage reports every problem, not the first.
// The zero List is empty and ready to use.
type List []*Diagnostic

// Add appends d; a nil d is ignored so callers can pass results straight through.
func (l *List) Add(d *Diagnostic) {
	if d != nil {
		*l = append(*l, d)
	}
}

// HasErrors reports whether any diagnostic has error severity.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors counts the diagnostics of error severity.
func (l List) Errors() int {
	n := 0
	for _, d := range l {
		if d.Severity == SeverityError {
			n++
		}
	}
	return n
}

// Sort orders diagnostics by file, line and message so output is stable.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.Source.File != b.Source.File {
			return a.Source.File < b.Source.File
		}
		if a.Source.Line != b.Source.Line {
			return a.Source.Line < b.Source.Line
		}
		return a.Message < b.Message
	})
}

// Err returns the error-severity diagnostics as one go-multierror error, or nil.
func (l List) Err() error {
	var merr *multierror.Error
	for _, d := range l {
		if d.Severity == SeverityError {
			merr = multierror.Append(merr, d)
		}
	}
	if merr == nil {
		return nil
	}
	merr.ErrorFormat = format
	return merr
}

func format(errs []error) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	noun := "errors"
	if len(errs) == 1 {
		noun = "error"
	}
	return fmt.Sprintf("%d %s:\n  %s", len(errs), noun, strings.Join(lines, "\n  "))
}
