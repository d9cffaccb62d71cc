// Package suggest finds the known name nearest to a misspelt one, for "did
// you mean" hints.
package suggest

import (
	"strings"

	"github.com/hbollon/go-edlib"
)

// Nearest returns the candidate closest to word, ignoring case, by
// optimal-string-alignment edit distance (insertions, deletions,
// substitutions and transpositions of neighbours, the slips of typing),
// or "" when none is close enough to be the name meant: at most two edits,
// and at most a third of the word's length. Ties go to the earliest
// candidate.
func Nearest(word string, candidates []string) string {
	w := strings.ToLower(word)
	limit := min(2, max(1, len([]rune(w))/3))
	best, bestDistance := "", limit+1
	for _, c := range candidates {
		if d := edlib.OSADamerauLevenshteinDistance(w, strings.ToLower(c)); d < bestDistance {
			best, bestDistance = c, d
		}
	}
	return best
}
