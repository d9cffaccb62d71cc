package corpusgen

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/azkcli/azk/internal/corpus"
	"github.com/azkcli/azk/internal/registry"
)

// opVerb says which of a type's timings a recorded operation counts for.
type opVerb int

const (
	verbCreate opVerb = iota
	verbUpdate
	verbDelete
)

// recordedOp is one long-running operation as a recording shows it: the
// Retry-After of each answer that found it running, the starting answer first
// (0 where none was given).
type recordedOp struct {
	hints []int
}

// seconds is the time a client honouring every hint (UnhintedPollSeconds
// where there was none) spends before the poll that saw the operation end.
func (o recordedOp) seconds() float64 {
	total := 0
	for _, h := range o.hints {
		if h <= 0 {
			h = registry.UnhintedPollSeconds
		}
		total += h
	}
	return float64(total)
}

// timings follows every PUT and DELETE that ARM answered with an operation
// to follow (Azure-AsyncOperation, else a 202's Location) through the polls of that
// URL, and keeps, per type and verb, the operations that succeeded.
func (t armTypeTable) timings(rec recording) {
	ins := rec.Interactions
	written := map[string]bool{}
	for i := range ins {
		in := &ins[i]
		method := in.Request.Method
		if (method != "PUT" && method != "DELETE") || in.Response.Code < 200 || in.Response.Code >= 300 {
			continue
		}
		path := strings.ToLower(in.Path())
		verb := verbDelete
		if method == "PUT" {
			verb = verbCreate
			if written[path] {
				verb = verbUpdate
			}
			written[path] = true
		}
		// A Location names an operation only on a 202: on a 201 it is the
		// created resource's own URL.
		monitor := header(in.Response.Headers, "Azure-AsyncOperation")
		if monitor == "" && in.Response.Code == 202 {
			monitor = header(in.Response.Headers, "Location")
		}
		typ := armTypeOfRecordedPath(in.Path())
		if monitor == "" || typ == "" {
			continue
		}
		if op, ok := followOperation(ins[i+1:], pathOf(monitor), retryAfterSeconds(in.Response.Headers)); ok {
			f := t.get(typ)
			f.ops[verb] = append(f.ops[verb], op)
		}
	}
}

// followOperation reads the polls of monitor after the answer that started
// the operation (whose Retry-After was first) until one shows it ended. It
// reports false when the operation failed or the recording stops first.
func followOperation(after []corpus.Interaction, monitor string, first int) (recordedOp, bool) {
	op := recordedOp{hints: []int{first}}
	for j := range after {
		in := &after[j]
		if in.Request.Method != "GET" || !strings.EqualFold(in.Path(), monitor) {
			continue
		}
		switch pollState(in.Response.Code, in.Response.Body) {
		case "running":
			op.hints = append(op.hints, retryAfterSeconds(in.Response.Headers))
		case "succeeded":
			return op, true
		default:
			return recordedOp{}, false
		}
	}
	return recordedOp{}, false
}

// pollState reads an operation's poll: a 202, or a status that is not
// terminal, is "running"; a success with a succeeded status (or none, as a
// Location answers with the resource) is "succeeded"; anything else "failed".
func pollState(code int, body string) string {
	if code == 202 {
		return "running"
	}
	if code < 200 || code >= 300 {
		return "failed"
	}
	var status struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal([]byte(body), &status)
	switch strings.ToLower(status.Status) {
	case "", "succeeded":
		return "succeeded"
	case "failed", "canceled", "cancelled":
		return "failed"
	}
	return "running"
}

// retryAfterSeconds is an answer's Retry-After in whole seconds, 0 when absent.
func retryAfterSeconds(h map[string][]string) int {
	n, err := strconv.Atoi(strings.TrimSpace(header(h, "Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// pathOf is a URL's path, without scheme, host or query.
func pathOf(u string) string {
	in := corpus.Interaction{}
	in.Request.URL = u
	return in.Path()
}

// timing is the type's timing for one verb: the operation of median
// duration, with how many operations were recorded; nil when none was.
func timing(ops []recordedOp) *registry.Timing {
	if len(ops) == 0 {
		return nil
	}
	sorted := append([]recordedOp(nil), ops...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].seconds() < sorted[j].seconds() })
	median := sorted[(len(sorted)-1)/2]
	out := &registry.Timing{Seconds: median.seconds(), Operations: len(ops)}
	for _, h := range median.hints {
		if h > 0 {
			out.RetryAfter = median.hints
			break
		}
	}
	return out
}
