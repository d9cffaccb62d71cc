package registry

import "time"

// versionDate is the ARM api-version date an ASO version carries
// (v1api20201101, v20250301, v1api20200801preview) and whether it is a
// preview; ok is false for versions without a date (v1).
func versionDate(version string) (date time.Time, preview bool, ok bool) {
	k := versionKey(version)
	if k == "" {
		return time.Time{}, false, false
	}
	d, err := time.Parse("20060102", k[:8])
	return d, k[8] == '0', err == nil
}

// Newest picks, of the served versions of a kind, the one with the latest
// api-version date, stable before preview (as asoctl picks the version it
// imports into): the newest stable version, else the newest preview.
func Newest(versions []string) string {
	best, bestStable := "", false
	for _, v := range versions {
		stable := isStable(v)
		if best == "" || stable && !bestStable || stable == bestStable && versionLess(best, v) {
			best, bestStable = v, stable
		}
	}
	return best
}

func isStable(v string) bool {
	_, preview, ok := versionDate(v)
	return ok && !preview
}

// NearestVersion picks the served version whose api-version date is
// closest to the one want carries, stable before preview on equal
// distance; the newest when want carries no date.
func NearestVersion(want string, served []string) string {
	wantDate, _, ok := versionDate(want)
	if !ok {
		return Newest(served)
	}
	best, bestDistance := "", time.Duration(0)
	for _, v := range served {
		d, _, ok := versionDate(v)
		if !ok {
			continue
		}
		distance := d.Sub(wantDate)
		if distance < 0 {
			distance = -distance
		}
		if best == "" || distance < bestDistance || distance == bestDistance && isStable(v) && !isStable(best) {
			best, bestDistance = v, distance
		}
	}
	if best == "" {
		return Newest(served)
	}
	return best
}
