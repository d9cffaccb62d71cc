package middleware

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/faults"
)

// HeaderRemainingResource names what is left of the resource provider's
// throttling counters that counted a request: "{counter};{remaining}",
// comma-separated.
const HeaderRemainingResource = "x-ms-ratelimit-remaining-resource"

// ProviderThrottle throttles as resource providers do, besides ARM (see
// faults.ProviderLimit): a request takes a token from every counter that
// covers it, or from none when one is empty, and is then answered 429 with
// the time until that counter has a token again. Every answer to a covered
// request, 429 or not, carries the counters' remaining counts. It sits
// after ARM's throttling: ARM counts a request before a provider sees it.
// compression is the emulator's time compression, for the Retry-After it gives.
func ProviderThrottle(fs *faults.State, compression float64) armcore.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t, _ := armcore.TargetOf(r)
			if throttleByProvider(fs, compression, w, r, t) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// throttleByProvider takes the request's tokens from its provider counters,
// sets their remaining counts on the answer and answers 429 when one is
// empty; it reports whether it did.
func throttleByProvider(fs *faults.State, compression float64, w http.ResponseWriter, r *http.Request, t armpath.Target) bool {
	var covering []faults.ProviderLimit
	for _, l := range fs.Get().ProviderLimits {
		if l.Limit.Burst > 0 && l.Covers(r.Method, t) {
			covering = append(covering, l)
		}
	}
	if len(covering) == 0 {
		return false
	}
	limits := make([]faults.RateLimit, len(covering))
	names := make([]string, len(covering))
	for i, l := range covering {
		limits[i] = l.Limit
		names[i] = "provider:" + strings.ToLower(l.Counter) + ":" + strings.ToLower(t.Sub)
		if l.PerResource {
			names[i] += ":" + armpath.Key(t.ID)
		}
	}
	remaining, wait, ok := fs.TakeAll(limits, names)
	counts := make([]string, len(covering))
	var empty []string
	for i, l := range covering {
		counts[i] = l.Counter + ";" + strconv.Itoa(remaining[i])
		if remaining[i] == 0 && !ok {
			empty = append(empty, l.Counter)
		}
	}
	w.Header().Set(HeaderRemainingResource, strings.Join(counts, ","))
	if ok {
		return false
	}
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if compression > 1 {
		w.Header().Set("retry-after-ms", strconv.FormatInt(max(wait.Milliseconds(), 1), 10))
	}
	armcore.WriteError(w, http.StatusTooManyRequests, "OperationNotAllowed",
		"The server rejected the request because too many requests have been received for this subscription (throttling policy %s). Please try again after '%d' seconds.",
		strings.Join(empty, ", "), secs)
	return true
}
