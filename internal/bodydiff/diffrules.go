package bodydiff

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/armjson"
)

// equal compares two scalars as ARM means them. The equivalences hold for
// every resource type:
//   - numbers by value, also a number sent as a string or returned as one;
//   - booleans by value, also as strings in any case ("True" is true);
//   - an enum value in any case, or as its index in the REST specification's
//     list of values; a one-word value (a mode, a charset) in any case; a
//     comma-separated list of such words (flags: "SystemAssigned,
//     UserAssigned") as a set;
//   - locations by canonical name ("West US 2" is "westus2");
//   - ARM IDs and GUIDs in any case, and a scope relative to the
//     subscription as the full ID ARM expands it to;
//   - URLs with or without a trailing slash, and paths with or without a
//     leading "/";
//   - dotted numeric versions by their numbers ("6.0" is "6");
//   - timestamps by the instant they name, durations by their length (ISO
//     8601 "PT1H" is .NET "01:00:00"), IP addresses and prefixes by the
//     addresses they name ("10.0.0.1" is "10.0.0.1/32");
//   - JSON and XML documents held in strings as documents (ARM re-indents them).
//
// The values of maps (tags, settings) are the user's data, stored as sent:
// they are compared as numbers, booleans and IDs, never normalised as text.
func (d *Rules) equal(schema string, want, have any) bool {
	if wn, hn, ok := numbers(want, have); ok {
		return wn == hn || math.Abs(wn-hn) <= 1e-9*math.Max(math.Abs(wn), math.Abs(hn))
	}
	if wb, ok := boolean(want); ok {
		hb, ok := boolean(have)
		return ok && wb == hb
	}
	if values := d.ordinals[schema]; values != nil && sameEnumValue(values, want, have) {
		return true
	}
	ws, wok := want.(string)
	hs, hok := have.(string)
	if !wok || !hok {
		return reflect.DeepEqual(want, have)
	}
	text := !strings.HasSuffix(schema, "{}") // not a map's value
	switch {
	case ws == hs:
		return true
	case isLocationField(schema) && NormalLocation(ws) == NormalLocation(hs):
		return true
	case (d.enums[schema] || isUUID(ws) && isUUID(hs) || text && isWord(ws)) && strings.EqualFold(ws, hs):
		return true
	case (armjson.IsID(ws) || armjson.IsID(hs)) && sameScope(ws, hs):
		return true
	case isURL(ws) && isURL(hs):
		return strings.TrimSuffix(ws, "/") == strings.TrimSuffix(hs, "/")
	case text && (sameFlags(ws, hs) || samePath(ws, hs) || sameVersion(ws, hs) ||
		sameInstant(ws, hs) || sameDuration(ws, hs) || sameAddress(ws, hs)):
		return true
	}
	return sameDocument(ws, hs)
}

// keptOn reports a setting the REST specification says stays on once on
// (Key Vault's "once set to true, it cannot be reverted to false", "enabling
// this functionality is irreversible"; registry.BodyFacts.OneWay) that
// Azure holds on while the body sends off: no PUT can turn it off, so it is
// no change. Turning it on, and any other setting, are compared as ever.
func (d *Rules) keptOn(schema string, want, have any) bool {
	if !d.oneWay[strings.ToLower(schema)] {
		return false
	}
	state := func(v any) (on, ok bool) {
		if b, ok := boolean(v); ok {
			return b, true
		}
		s, _ := v.(string)
		switch {
		case strings.EqualFold(s, "Enabled"):
			return true, true
		case strings.EqualFold(s, "Disabled"):
			return false, true
		}
		return false, false
	}
	wantOn, wok := state(want)
	haveOn, hok := state(have)
	return wok && hok && !wantOn && haveOn
}

// numbers reads want and have as numbers when both are, or when one is and
// the other is a string holding a decimal number: providers return some
// numeric properties as strings, and take strings for numbers.
func numbers(want, have any) (w, h float64, ok bool) {
	w, wok := number(want)
	h, hok := number(have)
	switch {
	case wok && !hok:
		h, hok = decimal(have)
	case hok && !wok:
		w, wok = decimal(want)
	}
	return w, h, wok && hok
}

var decimalPattern = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// decimal reads a string holding a decimal number.
func decimal(v any) (float64, bool) {
	s, ok := v.(string)
	if !ok || !decimalPattern.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// sameFlags compares comma-separated lists of one-word values (how ARM
// writes a set of enum flags: "SystemAssigned, UserAssigned") as sets, in
// any case and spacing.
func sameFlags(a, b string) bool {
	if !strings.Contains(a, ",") && !strings.Contains(b, ",") {
		return false
	}
	set := func(s string) []string {
		var out []string
		for _, f := range strings.Split(s, ",") {
			f = strings.ToLower(strings.TrimSpace(f))
			if !isWord(f) || f[0] < 'a' || f[0] > 'z' {
				return nil // flags are names: a list of numbers or addresses keeps its order
			}
			out = append(out, f)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	sa, sb := set(a), set(b)
	return sa != nil && slices.Equal(sa, sb)
}

// samePath compares paths (no spaces, no URL scheme) with or without a
// leading "/": providers store a relative path "api" as the rooted "/api".
// A trailing "/" is kept: in a prefix it means something.
func samePath(a, b string) bool {
	pathLike := func(s string) bool { return s != "" && !strings.ContainsAny(s, " \t\n") && !strings.Contains(s, "://") }
	return pathLike(a) && pathLike(b) && strings.TrimPrefix(a, "/") == strings.TrimPrefix(b, "/")
}

var versionPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)+$|^[0-9]+$`)

// sameVersion compares dotted numeric versions by their numbers, trailing
// zero components aside: "6.0" is "6", "1.10" is not "1.1".
func sameVersion(a, b string) bool {
	if !versionPattern.MatchString(a) || !versionPattern.MatchString(b) || !strings.Contains(a+b, ".") {
		return false
	}
	parts := func(s string) []string {
		out := strings.Split(s, ".")
		for i, p := range out {
			if out[i] = strings.TrimLeft(p, "0"); out[i] == "" {
				out[i] = "0"
			}
		}
		for len(out) > 1 && out[len(out)-1] == "0" {
			out = out[:len(out)-1]
		}
		return out
	}
	return slices.Equal(parts(a), parts(b))
}

// sameInstant compares RFC 3339 timestamps (ARM's date-time) by the instant
// they name: providers return them with another precision or offset, and
// without an offset for UTC.
func sameInstant(a, b string) bool {
	ta, okA := instant(a)
	tb, okB := instant(b)
	return okA && okB && ta.Equal(tb)
}

func instant(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var (
	isoDuration = regexp.MustCompile(`^P(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?$`)
	timeSpan    = regexp.MustCompile(`^(?:([0-9]+)\.)?([0-9]{1,2}):([0-9]{2}):([0-9]{2}(?:\.[0-9]{1,7})?)$`)
)

// sameDuration compares durations by their length: ISO 8601 ("PT1H",
// "P1D"; without years and months, whose length varies) or .NET TimeSpan
// ("01:00:00", "1.00:00:00"), the two forms ARM providers use.
func sameDuration(a, b string) bool {
	da, okA := duration(a)
	db, okB := duration(b)
	return okA && okB && da == db
}

func duration(s string) (time.Duration, bool) {
	var weeks, days, hours, minutes, seconds string
	if m := isoDuration.FindStringSubmatch(s); m != nil && s != "P" && s != "PT" && !strings.HasSuffix(s, "T") {
		weeks, days, hours, minutes, seconds = m[1], m[2], m[3], m[4], m[5]
	} else if m := timeSpan.FindStringSubmatch(s); m != nil {
		days, hours, minutes, seconds = m[1], m[2], m[3], m[4]
	} else {
		return 0, false
	}
	total := 0.0
	for _, part := range []struct {
		value string
		unit  float64
	}{{weeks, 7 * 24 * 3600}, {days, 24 * 3600}, {hours, 3600}, {minutes, 60}, {seconds, 1}} {
		if part.value != "" {
			f, err := strconv.ParseFloat(part.value, 64)
			if err != nil {
				return 0, false
			}
			total += f * part.unit
		}
	}
	return time.Duration(total * float64(time.Second)), true
}

// sameAddress compares IP addresses and prefixes by the addresses they
// name: an address is its single-address prefix ("10.0.0.1" is
// "10.0.0.1/32"), and IPv6 in any of its spellings.
func sameAddress(a, b string) bool {
	pa, okA := prefix(a)
	pb, okB := prefix(b)
	return okA && okB && pa == pb
}

func prefix(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p, true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// boolean reads a JSON boolean or a string spelling one in any case.
func boolean(v any) (b, ok bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		switch strings.ToLower(t) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// sameEnumValue reports an enum value sent by name and returned as its index
// in the specification's list (or the other way round).
func sameEnumValue(values []string, want, have any) bool {
	index := func(name any, ordinal any) bool {
		s, ok := name.(string)
		n, isNum := number(ordinal)
		if !ok || !isNum {
			return false
		}
		for i, v := range values {
			if strings.EqualFold(v, s) {
				return float64(i) == n
			}
		}
		return false
	}
	return index(want, have) || index(have, want)
}

// sameScope compares ARM IDs in any case; a scope written relative to the
// subscription ("/resourceGroups/rg/...") is the full ID ARM expands it to.
func sameScope(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	full, rel := a, b
	if !armjson.IsID(full) {
		full, rel = b, a
	}
	lower := strings.ToLower(rel)
	if !strings.HasPrefix(lower, "/resourcegroups/") && !strings.HasPrefix(lower, "resourcegroups/") {
		return false
	}
	rel = "/" + strings.TrimPrefix(rel, "/")
	return len(full) > len(rel) && strings.EqualFold(full[len(full)-len(rel):], rel) &&
		strings.Count(strings.Trim(full[:len(full)-len(rel)], "/"), "/") == 1 // /subscriptions/{id}
}

// isWord reports a one-word value (letters, digits, "_", "-", "."), such
// as a mode, a charset or a role type: providers store such identifiers in
// their own case (Postgres returns charset utf8 as UTF8), so a difference of
// case only is not a change. Free text (with spaces), URLs, paths and the
// values of maps (tags, settings) keep their case.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// isLocationField reports a field that holds an Azure location: its name
// ends in location, locations or locationName (location, computeLocation,
// replicaLocations[], locations[].locationName).
func isLocationField(schema string) bool {
	name := strings.ToLower(strings.TrimSuffix(lastSegment(schema), "[]"))
	return strings.HasSuffix(name, "location") || strings.HasSuffix(name, "locations") || strings.HasSuffix(name, "locationname")
}

// sameDocument compares two strings holding JSON (an object or a list) or
// XML as documents: ARM returns them re-indented.
func sameDocument(a, b string) bool {
	ta, tb := strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case ta == "" || tb == "":
		return false
	case (ta[0] == '{' || ta[0] == '[') && ta[0] == tb[0]:
		var da, db any
		return json.Unmarshal([]byte(ta), &da) == nil && json.Unmarshal([]byte(tb), &db) == nil && reflect.DeepEqual(da, db)
	case ta[0] == '<' && tb[0] == '<':
		xa, errA := xmlTokens(ta)
		xb, errB := xmlTokens(tb)
		return errA == nil && errB == nil && reflect.DeepEqual(xa, xb)
	}
	return false
}

// xmlTokens is an XML document as its tokens, without the whitespace between
// elements (indentation) and comments.
func xmlTokens(s string) ([]xml.Token, error) {
	dec := xml.NewDecoder(strings.NewReader(s))
	var out []xml.Token
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			out = append(out, xml.CharData(bytes.Clone(bytes.TrimSpace(t))))
		case xml.Comment:
			continue
		default:
			out = append(out, xml.CopyToken(tok))
		}
	}
}

// isUUID reports a GUID, which ARM compares (and often returns) case-insensitively.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// NormalLocation is a location's canonical name: "West US 2" is "westus2".
func NormalLocation(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
