package main

import (
	"strings"
	"testing"
)

// TestRateLimitAndParallelismFlags: --rate-limit takes ARM's buckets as
// KIND=BURST:PER_SECOND, --parallelism 0 (the default) sets no bound, and
// bad values are refused before anything is sent.
func TestRateLimitAndParallelismFlags(t *testing.T) {
	_, flags := emulatorAt(t)
	dir := "../../examples/quickstart"
	if out, errOut, code := azk(t, "", append([]string{"plan", "--rate-limit", "writes=1000:50,reads=2000:100", "--parallelism", "0", dir}, flags...)...); code != 0 {
		t.Fatalf("plan with --rate-limit: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--rate-limit", "writes=10", "--rate-limit: rate limit \"writes=10\": want KIND=BURST:PER_SECOND"},
		{"--rate-limit", "puts=10:1", "the kind is reads, writes or deletes"},
		{"--parallelism", "-1", "--parallelism -1: must be 0 (no bound) or more"},
	} {
		_, errOut, code := azk(t, "", append([]string{"plan", tc.flag, tc.value, dir}, flags...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %s: exit %d, stderr %q; want it refused with %q", tc.flag, tc.value, code, errOut, tc.want)
		}
	}
}
