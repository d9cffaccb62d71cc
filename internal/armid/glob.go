package armid

import "strings"

// GlobMatch reports whether s matches pattern, case-insensitively, "*" in
// the pattern standing for any run of characters, "/" included: the patterns
// ARM's role definitions give their actions (Microsoft.Network/*/read), and
// the type patterns of the emulator's options (Microsoft.Network/*).
func GlobMatch(pattern, s string) bool {
	p, s := strings.ToLower(pattern), strings.ToLower(s)
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		j := strings.Index(s, mid)
		if j < 0 {
			return false
		}
		s = s[j+len(mid):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
