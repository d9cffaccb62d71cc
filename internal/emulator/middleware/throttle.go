package middleware

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/faults"
)

// classOf is the kind of request ARM counts a method as.
func classOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

func limitOf(f faults.Config, class string) faults.RateLimit {
	switch class {
	case "reads":
		return f.ReadLimit
	case "deletes":
		return f.DeleteLimit
	}
	return f.WriteLimit
}

// throttle takes the request's token from its subscription's bucket and
// from the subscription's global bucket, sets both remaining counts on the
// answer, and answers 429 when either is empty; it reports whether it did.
func throttle(fs *faults.State, compression float64, w http.ResponseWriter, r *http.Request, sub string, f faults.Config) bool {
	class := classOf(r.Method)
	limit := limitOf(f, class)
	if limit.Burst <= 0 {
		return false
	}
	global := faults.RateLimit{Burst: limit.Burst * faults.GlobalFactor, PerSecond: limit.PerSecond * faults.GlobalFactor}
	remaining, wait, ok := fs.Take(limit, class+":"+sub)
	globalRemaining, globalWait, globalOK := fs.Take(global, "global-"+class+":"+sub)
	h := w.Header()
	h.Set("x-ms-ratelimit-remaining-subscription-"+class, strconv.Itoa(remaining))
	h.Set("x-ms-ratelimit-remaining-subscription-global-"+class, strconv.Itoa(globalRemaining))
	if ok && globalOK {
		return false
	}
	writeThrottled(w, class, sub, max(wait, globalWait), compression)
	return true
}

// writeThrottled answers 429 with ARM's Retry-After, in whole seconds; a
// time-compressed emulator adds retry-after-ms, which the Azure SDKs read
// first, since its waits are fractions of a second.
func writeThrottled(w http.ResponseWriter, class, sub string, wait time.Duration, compression float64) {
	secs := max(int(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if compression > 1 {
		w.Header().Set("retry-after-ms", strconv.FormatInt(max(wait.Milliseconds(), 1), 10))
	}
	armcore.WriteError(w, http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
		"Number of '%s' requests for subscription '%s' exceeded. Please try again after '%d' seconds.", class[:len(class)-1], sub, secs)
}
