package testkit

import "github.com/pmezard/go-difflib/difflib"

// LineDiff is the lines a line diff of before and after shows: "-" and a
// line of before taken out, "+" and a line of after put in, each with its
// line break (so that a changed line ending shows). Tests of edits to a
// user's files assert on it: only the lines whose values changed.
func LineDiff(before, after []byte) []string {
	a, b := difflib.SplitLines(string(before)), difflib.SplitLines(string(after))
	var out []string
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		for _, l := range a[op.I1:op.I2] {
			out = append(out, "-"+l)
		}
		for _, l := range b[op.J1:op.J2] {
			out = append(out, "+"+l)
		}
	}
	return out
}
