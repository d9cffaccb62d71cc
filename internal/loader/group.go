package loader

import (
	"strings"

	"github.com/hbollon/go-edlib"
)

// asoSuffix ends the apiVersion group of every ASO v2 resource.
const asoSuffix = ".azure.com"

// looksLikeASOGroup reports whether group is an ASO group or a slip in
// typing one: lower-cased, trailing dots dropped, it ends in "azure.com", or
// a suffix of it is within two edits (optimal string alignment) of
// ".azure.com". Objects of such groups are read as resources, so that a
// misspelt group is an error rather than an object ignored, which a
// three-way plan would then delete.
func looksLikeASOGroup(group string) bool {
	g := []rune(strings.TrimRight(strings.ToLower(group), "."))
	if strings.HasSuffix(string(g), asoSuffix[1:]) {
		return true
	}
	// Two edits change the length by at most two.
	for n := len(asoSuffix) - 2; n <= len(asoSuffix)+2 && n <= len(g); n++ {
		if edlib.OSADamerauLevenshteinDistance(string(g[len(g)-n:]), asoSuffix) <= 2 {
			return true
		}
	}
	return false
}
