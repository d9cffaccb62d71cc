package emulator

import (
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"time"
)

// faultState decides faults. Each decision hashes the seed, the kind of
// fault, the request's method and path, and how many times that triple was
// decided before; so the outcome for a client's n-th identical request does
// not depend on how other requests interleave with it.
type faultState struct {
	mu      sync.Mutex
	seed    int64
	faults  Faults
	counts  map[string]uint64
	buckets map[string]*bucket // see bucketKey
}

func newFaultState(seed int64, f Faults) *faultState {
	return &faultState{seed: seed, faults: f, counts: map[string]uint64{}, buckets: map[string]*bucket{}}
}

func (fs *faultState) get() Faults {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.faults
}

func (fs *faultState) set(f Faults) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.faults = f
	fs.buckets = map[string]*bucket{}
}

// chance returns a repeatable number in [0,1) for the next decision of kind on subject.
func (fs *faultState) chance(kind, subject string) float64 {
	fs.mu.Lock()
	k := kind + "\x00" + strings.ToLower(subject)
	n := fs.counts[k]
	fs.counts[k] = n + 1
	fs.mu.Unlock()
	h := fnv.New64a()
	h.Write([]byte(k))
	x := h.Sum64() ^ uint64(fs.seed)*0x9e3779b97f4a7c15 ^ (n+1)*0xbf58476d1ce4e5b9
	// splitmix64 finaliser
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

func (fs *faultState) hit(rate float64, kind, subject string) bool {
	return rate > 0 && fs.chance(kind, subject) < rate
}

// injectRequestFaults answers the request with a throttling or transient
// error when a fault says so, and reports whether it did.
func (s *Server) injectRequestFaults(w http.ResponseWriter, r *http.Request, sub string) bool {
	f := s.faults.get()
	subject := r.Method + " " + r.URL.Path
	if s.throttle(w, r, sub, f) {
		return true
	}
	if s.faults.hit(f.ThrottleRate, "throttle", subject) {
		writeThrottled(w, classOf(r.Method), sub, time.Second, 1)
		return true
	}
	if s.faults.hit(f.TransientRate, "transient", subject) {
		if s.faults.chance("transient-kind", subject) < 0.5 {
			writeError(w, http.StatusInternalServerError, "InternalServerError", "Encountered an internal server error.")
		} else {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, "ServiceUnavailable", "The server is currently unable to handle the request.")
		}
		return true
	}
	return false
}

// failureFor returns the failure rule for a write of typ, if any.
func (f Faults) failureFor(typ string) (FailureRule, bool) {
	for _, r := range f.Failures {
		if globMatch(r.Type, typ) {
			return r, true
		}
	}
	return FailureRule{}, false
}

func (f Faults) conflicts(typ string) bool {
	for _, g := range f.ConflictTypes {
		if globMatch(g, typ) {
			return true
		}
	}
	return false
}
