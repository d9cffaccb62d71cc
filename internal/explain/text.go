package explain

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes an explanation as kubectl explain lays one out: the
// kind, the field, then its fields with what the registry knows of each.
func WriteText(w io.Writer, e *Explanation) error {
	t := &textWriter{w: w}
	k := e.Kind
	t.printf("GROUP:       %s\n", k.Group)
	t.printf("KIND:        %s\n", k.Kind)
	t.printf("VERSION:     %s (served: %s)\n", k.Version, strings.Join(k.Versions, ", "))
	if k.ARMType != "" {
		t.printf("ARM TYPE:    %s\n", k.ARMType)
		t.printf("API-VERSION: %s\n", k.APIVersion)
		t.printf("SCOPE:       %s\n", k.Scope)
	} else {
		t.printf("ARM TYPE:    none (the operator manages it outside Azure Resource Manager)\n")
	}
	if len(k.Owners) > 0 {
		t.printf("OWNERS:      %s\n", strings.Join(k.Owners, ", "))
	}
	f := e.Field
	t.printf("\nFIELD: %s <%s>%s\n", f.Path, f.Type, requiredMark(f))
	for _, line := range factLines(f) {
		t.printf("  %s\n", line)
	}
	if len(f.Fields) > 0 {
		t.printf("\nFIELDS:\n")
		t.fields(f.Fields, 1, true)
	}
	return t.err
}

type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// fields lists fields at depth; the first level with their facts, deeper
// levels (--recursive) by name and type.
func (t *textWriter) fields(fields []Field, depth int, withFacts bool) {
	indent := strings.Repeat("  ", depth)
	for _, f := range fields {
		name := f.Path[strings.LastIndexByte(f.Path, '.')+1:]
		t.printf("%s%s\t<%s>%s\n", indent, name, f.Type, requiredMark(f))
		if withFacts {
			for _, line := range factLines(f) {
				t.printf("%s    %s\n", indent, line)
			}
		}
		t.fields(f.Fields, depth+1, false)
	}
}

func requiredMark(f Field) string {
	if f.Required {
		return " -required-"
	}
	return ""
}

// factLines are the lines describing a field beyond its type.
func factLines(f Field) []string {
	var out []string
	if len(f.Enum) > 0 {
		out = append(out, "one of: "+strings.Join(f.Enum, ", "))
	}
	if f.Reference != "" {
		out = append(out, "reference: "+referenceText(f.Reference))
	}
	if f.Pattern != "" {
		out = append(out, "pattern: "+f.Pattern)
	}
	switch {
	case f.Min != nil && f.Max != nil:
		out = append(out, fmt.Sprintf("bounds: %g to %g", *f.Min, *f.Max))
	case f.Min != nil:
		out = append(out, fmt.Sprintf("bounds: at least %g", *f.Min))
	case f.Max != nil:
		out = append(out, fmt.Sprintf("bounds: at most %g", *f.Max))
	}
	if f.ARMPath != "" {
		arm := "ARM: " + f.ARMPath
		switch {
		case f.Sensitive:
			arm += " (secret: never returned by Azure)"
		case f.WriteOnly:
			arm += " (write-only: never returned by Azure)"
		}
		out = append(out, arm)
	} else if f.Sensitive {
		out = append(out, "secret")
	}
	if f.CreateOnly != "" {
		out = append(out, "create-only: Azure accepts it only when the resource is created ("+f.CreateOnly+")")
	}
	return out
}

func referenceText(ref string) string {
	switch ref {
	case "resource":
		return "resource ({group, kind, name} of an ASO resource, or {armId})"
	case "wellKnown":
		return "resource ({group, kind, name}, {armId}, or {wellKnownName} of a built-in role)"
	case "owner":
		return "owner ({name}, {group, kind, name} or {armId})"
	case "secret":
		return "secret ({name, key} of a v1 Secret)"
	case "secretMap":
		return "secret map ({name} of a v1 Secret)"
	case "configMap":
		return "config map ({name, key} of a v1 ConfigMap)"
	case "configMapExport":
		return "config map export ({name, key}: the operator writes this value there)"
	case "secretExport":
		return "secret export ({name, key}: the operator writes this secret there)"
	}
	return ref
}

// WriteKinds writes the kinds as a table, kubectl api-resources style;
// wide adds the owners and every served version.
func WriteKinds(w io.Writer, kinds []Kind, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	header := "KIND\tAPIVERSION\tARM TYPE\tARM API-VERSION\tSCOPE"
	if wide {
		header += "\tOWNERS\tSERVED VERSIONS"
	}
	fmt.Fprintln(tw, header)
	for _, k := range kinds {
		armType, apiVersion, scope := k.ARMType, k.APIVersion, k.Scope
		if armType == "" {
			armType, apiVersion, scope = "(not ARM)", "-", "-"
		}
		row := fmt.Sprintf("%s\t%s/%s\t%s\t%s\t%s", k.Kind, k.Group, k.Version, armType, apiVersion, scope)
		if wide {
			owners := strings.Join(k.Owners, ",")
			if owners == "" {
				owners = "-"
			}
			row += "\t" + owners + "\t" + strings.Join(k.Versions, ",")
		}
		fmt.Fprintln(tw, row)
	}
	return tw.Flush()
}
