package armcore

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The OData $filter of ARM's resource lists, as the Resources and Resource
// Groups - List operations document it:
//
//   - resource lists (/subscriptions/{s}/resources, .../resourceGroups/{g}/resources):
//     "eq" and "ne" on resourceType, name, location and resourceGroup;
//     substringof('text', name|resourceGroup); combined with "and" and "or"
//     ("and" binds tighter); or a tag filter alone: tagName eq 'k'
//     [and tagValue eq 'v'], or startswith(tagName, 'prefix'). A tag filter
//     combined with anything else is refused, as ARM refuses it, and its
//     results carry no tags, as ARM's do not.
//   - resource group lists: the tag filter only.
//
// Anything else (identity, plan, parentheses) is refused with ARM's
// InvalidFilterInQueryString rather than ignored: a list that ignored a
// filter would hand a "delete what is tagged X" script everything.

// filterTerm is one comparison of a filter.
type filterTerm struct {
	field string // lower-cased: resourcetype, name, location, resourcegroup, tagname, tagvalue
	op    string // eq, ne, substringof, startswith
	value string
}

// listFilter is a parsed filter: terms joined by "and" inside each clause,
// clauses joined by "or". The zero value matches everything.
type listFilter struct {
	clauses [][]filterTerm
	// tag is the tag filter, when the filter is one.
	tag *tagFilter
}

type tagFilter struct {
	name, value, prefix string
	hasValue            bool
}

var (
	comparison  = regexp.MustCompile(`(?i)^([a-z]+)\s+(eq|ne)\s+'((?:[^']|'')*)'$`)
	substringOf = regexp.MustCompile(`(?i)^substringof\(\s*'((?:[^']|'')*)'\s*,\s*([a-z]+)\s*\)$`)
	startsWith  = regexp.MustCompile(`(?i)^startswith\(\s*([a-z]+)\s*,\s*'((?:[^']|'')*)'\s*\)$`)
	connective  = regexp.MustCompile(`(?i)\s+(and|or)\s+`)
)

// splitConnectives splits a filter at " and " and " or " outside quotes.
func splitConnectives(f string) (terms, joins []string) {
	start, quoted := 0, false
	for i := 0; i < len(f); i++ {
		if f[i] == '\'' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if loc := connective.FindStringSubmatchIndex(f[i:]); loc != nil && loc[0] == 0 {
			terms = append(terms, strings.TrimSpace(f[start:i]))
			joins = append(joins, strings.ToLower(f[i+loc[2]:i+loc[3]]))
			i += loc[1] - 1
			start = i + 1
		}
	}
	return append(terms, strings.TrimSpace(f[start:])), joins
}

func invalidFilter(f string) *Error {
	return Errorf(http.StatusBadRequest, "InvalidFilterInQueryString", "Invalid $filter '%s' specified in the query string.", f)
}

// parseListFilter reads a list's $filter; groups is true for a resource
// group list, which takes the tag filter only.
func parseListFilter(f string, groups bool) (listFilter, error) {
	var lf listFilter
	if strings.TrimSpace(f) == "" {
		return lf, nil
	}
	texts, joins := splitConnectives(strings.TrimSpace(f))
	terms := make([]filterTerm, len(texts))
	for i, text := range texts {
		if m := comparison.FindStringSubmatch(text); m != nil {
			terms[i] = filterTerm{field: strings.ToLower(m[1]), op: strings.ToLower(m[2]), value: unquote(m[3])}
		} else if m := substringOf.FindStringSubmatch(text); m != nil {
			terms[i] = filterTerm{field: strings.ToLower(m[2]), op: "substringof", value: unquote(m[1])}
		} else if m := startsWith.FindStringSubmatch(text); m != nil {
			terms[i] = filterTerm{field: strings.ToLower(m[1]), op: "startswith", value: unquote(m[2])}
		} else {
			return lf, invalidFilter(f)
		}
	}
	if tag, tagged := tagFilterOf(terms, joins); tagged {
		if tag == nil {
			return lf, invalidFilter(f)
		}
		lf.tag = tag
		return lf, nil
	}
	if groups {
		return lf, invalidFilter(f) // resource groups filter by tag only
	}
	clause := []filterTerm{}
	for i, t := range terms {
		valid := false
		switch t.op {
		case "eq", "ne":
			valid = t.field == "resourcetype" || t.field == "name" || t.field == "location" || t.field == "resourcegroup"
		case "substringof":
			valid = t.field == "name" || t.field == "resourcegroup"
		}
		if !valid {
			return lf, invalidFilter(f)
		}
		clause = append(clause, t)
		if i == len(terms)-1 || joins[i] == "or" {
			lf.clauses = append(lf.clauses, clause)
			clause = []filterTerm{}
		}
	}
	return lf, nil
}

// tagFilterOf reads a tag filter: tagged when the filter names tags, with
// a nil filter when it names them in a way ARM refuses.
func tagFilterOf(terms []filterTerm, joins []string) (tag *tagFilter, tagged bool) {
	for _, t := range terms {
		if t.field == "tagname" || t.field == "tagvalue" {
			tagged = true
		}
	}
	switch {
	case !tagged:
	case len(terms) == 1 && terms[0].field == "tagname" && terms[0].op == "eq":
		tag = &tagFilter{name: terms[0].value}
	case len(terms) == 1 && terms[0].field == "tagname" && terms[0].op == "startswith":
		tag = &tagFilter{prefix: terms[0].value}
	case len(terms) == 2 && joins[0] == "and" && terms[0].field == "tagname" && terms[0].op == "eq" &&
		terms[1].field == "tagvalue" && terms[1].op == "eq":
		tag = &tagFilter{name: terms[0].value, value: terms[1].value, hasValue: true}
	}
	return tag, tagged
}

func unquote(s string) string { return strings.ReplaceAll(s, "''", "'") }

// listed is what a filter reads of a listed resource.
type listed struct {
	typ, name, location, group string
	tags                       map[string]any
}

// filters reports whether the filter leaves anything out (the zero value
// does not).
func (lf listFilter) filters() bool { return len(lf.clauses) > 0 || lf.tag != nil }

// matches reports whether the filter admits r.
func (lf listFilter) matches(r listed) bool {
	if lf.tag != nil {
		for k, v := range r.tags {
			switch {
			case lf.tag.prefix != "":
				if strings.HasPrefix(strings.ToLower(k), strings.ToLower(lf.tag.prefix)) {
					return true
				}
			case strings.EqualFold(k, lf.tag.name):
				s, _ := v.(string)
				return !lf.tag.hasValue || s == lf.tag.value
			}
		}
		return false
	}
	if len(lf.clauses) == 0 {
		return true
	}
	for _, clause := range lf.clauses {
		all := true
		for _, t := range clause {
			if !t.matches(r) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func (t filterTerm) matches(r listed) bool {
	var got string
	switch t.field {
	case "resourcetype":
		got = r.typ
	case "name":
		got = r.name
	case "location":
		got = strings.ReplaceAll(r.location, " ", "")
	case "resourcegroup":
		got = r.group
	}
	switch t.op {
	case "eq":
		return strings.EqualFold(got, t.value) || (t.field == "location" && strings.EqualFold(got, strings.ReplaceAll(t.value, " ", "")))
	case "ne":
		return !strings.EqualFold(got, t.value)
	case "substringof":
		return strings.Contains(strings.ToLower(got), strings.ToLower(t.value))
	}
	return false
}

// topOf reads a list's $top: 0 when absent.
func topOf(r *http.Request) (int, error) {
	s := r.URL.Query().Get("$top")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, Errorf(http.StatusBadRequest, "InvalidQueryParameterValue", "The value '%s' of the query parameter '$top' is not a positive integer.", s)
	}
	return n, nil
}
