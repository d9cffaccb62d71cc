package planner

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"

	"github.com/google/uuid"

	"github.com/azkcli/azk/internal/armjson"
)

// equal compares two scalars as ARM means them. The equivalences hold for
// every resource type:
//   - numbers by value;
//   - booleans by value, also as strings in any case ("True" is true);
//   - an enum value in any case, or as its index in the REST specification's
//     list of values; a one-word value (a mode, a charset) in any case;
//   - locations by canonical name ("West US 2" is "westus2");
//   - ARM IDs and GUIDs in any case, and a scope relative to the
//     subscription as the full ID ARM expands it to;
//   - URLs with or without a trailing slash;
//   - JSON and XML documents held in strings as documents (ARM re-indents them).
func (d *differ) equal(schema string, want, have any) bool {
	if wn, ok := number(want); ok {
		if hn, ok := number(have); ok {
			return wn == hn || math.Abs(wn-hn) <= 1e-9*math.Max(math.Abs(wn), math.Abs(hn))
		}
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
	switch {
	case ws == hs:
		return true
	case isLocationField(schema):
		return normalLocation(ws) == normalLocation(hs)
	case d.enums[schema], isUUID(ws) && isUUID(hs), isWord(ws) && !strings.HasSuffix(schema, "{}"):
		return strings.EqualFold(ws, hs)
	case armjson.IsID(ws) || armjson.IsID(hs):
		return sameScope(ws, hs)
	case isURL(ws) && isURL(hs):
		return strings.TrimSuffix(ws, "/") == strings.TrimSuffix(hs, "/")
	}
	return sameDocument(ws, hs)
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

// normalLocation is a location's canonical name: "West US 2" is "westus2".
func normalLocation(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
