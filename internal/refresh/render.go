package refresh

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// NothingLine is what a refresh with nothing to write says.
const NothingLine = "Nothing to refresh: where the manifests are to follow Azure, they say what Azure holds."

// WriteText writes, for people, each value to write by resource (and each
// not written, with why), then the files as a unified diff, then a count.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	last := ""
	for _, e := range r.Entries {
		if e.Address != last {
			fmt.Fprintf(bw, "\n%s (%s)\n", e.Address, e.Source)
			last = e.Address
		}
		where := fmt.Sprintf("(%s: %s)", e.Why, e.Path)
		switch {
		case e.Skipped != "" && e.Field != "":
			fmt.Fprintf(bw, "  # not written: %s %s: %s\n", e.Field, where, e.Skipped)
		case e.Skipped != "":
			fmt.Fprintf(bw, "  # not written %s: %s\n", where, e.Skipped)
		case e.Remove:
			fmt.Fprintf(bw, "  - %s %s: Azure holds none\n", e.Field, where)
		default:
			fmt.Fprintf(bw, "  < %s = %s %s\n", e.Field, compact(e.Value), where)
		}
	}
	for _, f := range r.Files {
		diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(f.Before)), B: difflib.SplitLines(string(f.After)),
			FromFile: f.Path, ToFile: f.Path + " (refreshed)", Context: 3,
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "\n%s", diff)
	}
	written, skipped := r.Written(), len(r.Entries)-r.Written()
	switch {
	case len(r.Entries) == 0:
		fmt.Fprintf(bw, "\n%s\n", NothingLine)
	default:
		fmt.Fprintf(bw, "\nRefresh: %d %s to write into %d %s", written, plural(written, "value", "values"), len(r.Files), plural(len(r.Files), "file", "files"))
		if skipped > 0 {
			fmt.Fprintf(bw, "; %d not written (see why above)", skipped)
		}
		fmt.Fprintln(bw, ".")
	}
	return bw.Flush()
}

// WriteJSON writes the entries and the files they change.
func (r *Result) WriteJSON(w io.Writer) error {
	out := struct {
		Entries []Entry  `json:"entries"`
		Files   []string `json:"files"`
		Written int      `json:"written"`
		Skipped int      `json:"skipped"`
	}{Entries: r.Entries, Files: []string{}, Written: r.Written(), Skipped: len(r.Entries) - r.Written()}
	if out.Entries == nil {
		out.Entries = []Entry{}
	}
	for _, f := range r.Files {
		out.Files = append(out.Files, f.Path)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// compact is v as one line of JSON.
func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
