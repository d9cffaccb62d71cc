package graph

import "strings"

// MatchAddress reports whether a resource address ("group/Kind/namespace/name")
// is named by pattern, as users write addresses on the command line: the
// whole address, "Kind/namespace/name" or "Kind/name"; group and kind in
// any case.
func MatchAddress(address, pattern string) bool {
	a := strings.Split(address, "/")
	p := strings.Split(pattern, "/")
	if len(a) != 4 {
		return false
	}
	group, kind, namespace, name := a[0], a[1], a[2], a[3]
	switch len(p) {
	case 4:
		return strings.EqualFold(p[0], group) && strings.EqualFold(p[1], kind) && p[2] == namespace && p[3] == name
	case 3:
		return strings.EqualFold(p[0], kind) && p[1] == namespace && p[2] == name
	case 2:
		return strings.EqualFold(p[0], kind) && p[1] == name
	}
	return false
}
