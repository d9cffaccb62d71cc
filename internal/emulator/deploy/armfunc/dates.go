package armfunc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func init() {
	register("dateTimeAdd", dateTimeAdd)
	register("dateTimeFromEpoch", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		seconds, err := intArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return isoUTC(time.Unix(seconds, 0)), nil
	})
	register("dateTimeToEpoch", func(name string, args []any) (any, error) {
		if err := count(name, args, 1, 1); err != nil {
			return nil, err
		}
		s, err := stringArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		t, err := parseDateTime(name, s)
		if err != nil {
			return nil, err
		}
		return t.Unix(), nil
	})
}

// isoUTC writes a time as ARM writes date results: ISO 8601 in UTC, fractions only when present.
func isoUTC(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// dateTimeLayouts are the ISO 8601 shapes ARM reads dates in, utcNow's default among them.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
	"20060102T150405Z",
}

func parseDateTime(name, s string) (time.Time, error) {
	trimmed := strings.TrimSpace(s)
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, trimmed); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("The template language function '%s' expects an ISO 8601 date and time, not '%s'.", name, s)
}

// isoDuration is ISO 8601's duration: an optional sign, P, then date and time parts.
var isoDuration = regexp.MustCompile(`^([-+])?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// parseDuration reads an ISO 8601 duration with ARM's fixed units: a year is 365 days and a month
// 30 days, leap years or not.
func parseDuration(name, s string) (time.Duration, error) {
	m := isoDuration.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || strings.HasSuffix(s, "T") || s == "P" || s == "-P" || s == "+P" {
		return 0, fmt.Errorf("The template language function '%s' expects an ISO 8601 duration, not '%s'.", name, s)
	}
	units := []time.Duration{365 * 24 * time.Hour, 30 * 24 * time.Hour, 7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute}
	var total time.Duration
	for i, unit := range units {
		if m[i+2] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[i+2], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("The template language function '%s' expects an ISO 8601 duration, not '%s'.", name, s)
		}
		total += time.Duration(n) * unit
	}
	if m[8] != "" {
		seconds, _ := strconv.ParseFloat(m[8], 64)
		total += time.Duration(seconds * float64(time.Second))
	}
	if m[1] == "-" {
		total = -total
	}
	return total, nil
}

func dateTimeAdd(name string, args []any) (any, error) {
	if err := count(name, args, 2, 3); err != nil {
		return nil, err
	}
	parts, err := stringsArgs(name, args)
	if err != nil {
		return nil, err
	}
	base, err := parseDateTime(name, parts[0])
	if err != nil {
		return nil, err
	}
	d, err := parseDuration(name, parts[1])
	if err != nil {
		return nil, err
	}
	result := base.Add(d)
	if len(parts) == 3 {
		return FormatDateTime(result, parts[2])
	}
	return isoUTC(result), nil
}

// FormatDateTime writes a UTC time under a .NET date and time format string (standard, such as
// "u" or "o", or custom, such as "yyyyMMddTHHmmssZ") with the invariant culture, as utcNow and
// dateTimeAdd do.
func FormatDateTime(t time.Time, format string) (string, error) {
	t = t.UTC()
	if len(format) == 1 {
		standard, ok := map[byte]string{
			'd': "MM/dd/yyyy", 'D': "dddd, dd MMMM yyyy", 'f': "dddd, dd MMMM yyyy HH:mm",
			'F': "dddd, dd MMMM yyyy HH:mm:ss", 'g': "MM/dd/yyyy HH:mm", 'G': "MM/dd/yyyy HH:mm:ss",
			'm': "MMMM dd", 'M': "MMMM dd", 'o': "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK",
			'O': "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'fffffffK", 'r': "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'",
			'R': "ddd, dd MMM yyyy HH':'mm':'ss 'GMT'", 's': "yyyy'-'MM'-'dd'T'HH':'mm':'ss",
			't': "HH:mm", 'T': "HH:mm:ss", 'u': "yyyy'-'MM'-'dd HH':'mm':'ss'Z'", 'U': "dddd, dd MMMM yyyy HH:mm:ss",
			'y': "yyyy MMMM", 'Y': "yyyy MMMM",
		}[format[0]]
		if !ok {
			return "", fmt.Errorf("The date and time format string '%s' is not valid.", format)
		}
		format = standard
	}
	var b strings.Builder
	for i := 0; i < len(format); {
		c := format[i]
		run := 1
		for i+run < len(format) && format[i+run] == c {
			run++
		}
		switch c {
		case 'y':
			switch {
			case run == 1:
				b.WriteString(strconv.Itoa(t.Year() % 100))
			case run == 2:
				fmt.Fprintf(&b, "%02d", t.Year()%100)
			default:
				fmt.Fprintf(&b, "%0*d", run, t.Year())
			}
		case 'M':
			switch run {
			case 1:
				b.WriteString(strconv.Itoa(int(t.Month())))
			case 2:
				fmt.Fprintf(&b, "%02d", int(t.Month()))
			case 3:
				b.WriteString(t.Month().String()[:3])
			default:
				b.WriteString(t.Month().String())
			}
		case 'd':
			switch run {
			case 1:
				b.WriteString(strconv.Itoa(t.Day()))
			case 2:
				fmt.Fprintf(&b, "%02d", t.Day())
			case 3:
				b.WriteString(t.Weekday().String()[:3])
			default:
				b.WriteString(t.Weekday().String())
			}
		case 'H':
			fmt.Fprintf(&b, "%0*d", min(run, 2), t.Hour())
		case 'h':
			hour := t.Hour() % 12
			if hour == 0 {
				hour = 12
			}
			fmt.Fprintf(&b, "%0*d", min(run, 2), hour)
		case 'm':
			fmt.Fprintf(&b, "%0*d", min(run, 2), t.Minute())
		case 's':
			fmt.Fprintf(&b, "%0*d", min(run, 2), t.Second())
		case 'f', 'F':
			digits := fmt.Sprintf("%09d", t.Nanosecond())[:min(run, 7)]
			if c == 'F' {
				digits = strings.TrimRight(digits, "0")
			}
			b.WriteString(digits)
		case 't':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			b.WriteString(ampm[:min(run, 2)])
		case 'K':
			b.WriteString("Z")
		case 'z':
			b.WriteString([]string{"+0", "+00", "+00:00"}[min(run, 3)-1])
		case '\'', '"':
			end := strings.IndexByte(format[i+1:], c)
			if end < 0 {
				return "", fmt.Errorf("The date and time format string '%s' has an unclosed quote.", format)
			}
			b.WriteString(format[i+1 : i+1+end])
			i += end + 2
			continue
		case '\\':
			if i+1 < len(format) {
				b.WriteByte(format[i+1])
			}
			i += 2
			continue
		default:
			b.WriteString(format[i : i+run])
		}
		i += run
	}
	return b.String(), nil
}
