package applier

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/arm"
)

// Outcome is what happened to one resource.
type Outcome string

const (
	OutcomeCreated      Outcome = "created"
	OutcomeUpdated      Outcome = "updated"
	OutcomeReplaced     Outcome = "replaced" // deleted, then created again
	OutcomeUnchanged    Outcome = "unchanged"
	OutcomeSkipped      Outcome = "skipped"  // reconcile-policy skip: never written or deleted
	OutcomeDeleted      Outcome = "deleted"  // DELETE sent and finished
	OutcomeCascaded     Outcome = "cascaded" // deleted by ARM with the parent deleted in the same run
	OutcomeDetached     Outcome = "detached" // detach-on-delete: released, left in Azure
	OutcomeAlreadyGone  Outcome = "already-gone"
	OutcomeFailed       Outcome = "failed"
	OutcomeNotAttempted Outcome = "not-attempted" // a dependency failed, or an interrupt stopped new work
	// OutcomeInProgress: handed to ARM's deployment engine, which was still
	// running it when azk stopped following.
	OutcomeInProgress Outcome = "in-progress"
)

func (o Outcome) succeeded() bool {
	return o != "" && o != OutcomeFailed && o != OutcomeNotAttempted && o != OutcomeInProgress
}

// Operation names what a Report is about.
type Operation string

const (
	OperationApply   Operation = "apply"
	OperationDestroy Operation = "destroy"
)

// Result is what happened to one resource.
type Result struct {
	Address string
	ARMID   string
	// Action is the plan's action (apply) or the destroy action.
	Action  string
	Outcome Outcome
	// Err is why the resource failed; an *arm.ResponseError when ARM said so.
	Err error
	// BlockedBy is the failed resource a not-attempted one waited for; empty
	// when an interrupt stopped it.
	BlockedBy string
	// CascadedBy is the resource whose deletion took this one with it.
	CascadedBy string
	// DeletedFirst marks a not-attempted replacement whose DELETE went
	// before what it waited for (readerDeletes): Azure lacks it until a
	// run creates it again.
	DeletedFirst bool
	// RecordErr is why the reconcile-policy the plan said apply records
	// could not be written into the manifest.
	RecordErr error
}

// Report is the end state of an apply or destroy, in plan order.
type Report struct {
	Operation Operation
	Results   []*Result
	// Interrupted is set when the run was stopped before it finished.
	Interrupted bool
}

// Count returns how many resources ended with outcome o.
func (r *Report) Count(o Outcome) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == o {
			n++
		}
	}
	return n
}

// Failed reports whether anything failed or was left undone, a policy
// record included.
func (r *Report) Failed() bool {
	return r.Count(OutcomeFailed) > 0 || r.Count(OutcomeNotAttempted) > 0 || r.Count(OutcomeInProgress) > 0 || len(r.unrecorded()) > 0
}

func (r *Report) unrecorded() []*Result {
	var out []*Result
	for _, res := range r.Results {
		if res.RecordErr != nil {
			out = append(out, res)
		}
	}
	return out
}

// Summary is the closing line, e.g.
// "Apply complete! Resources: 3 created, 1 adopted, 2 updated, 0 failed."
func (r *Report) Summary() string {
	var counts string
	if r.Operation == OperationDestroy {
		counts = fmt.Sprintf("%d deleted, %d deleted by cascade, %d detached, %d failed", r.Count(OutcomeDeleted), r.Count(OutcomeCascaded), r.Count(OutcomeDetached), r.Count(OutcomeFailed))
	} else {
		counts = fmt.Sprintf("%d created, %d updated, ", r.Count(OutcomeCreated), r.Count(OutcomeUpdated))
		for _, o := range []struct {
			outcome Outcome
			what    string
		}{{OutcomeReplaced, "replaced"}, {OutcomeDeleted, "deleted"}, {OutcomeCascaded, "deleted by cascade"}, {OutcomeDetached, "detached"}} {
			if n := r.Count(o.outcome); n > 0 {
				counts += fmt.Sprintf("%d %s, ", n, o.what)
			}
		}
		counts += fmt.Sprintf("%d failed", r.Count(OutcomeFailed))
	}
	if n := r.Count(OutcomeNotAttempted); n > 0 {
		counts += fmt.Sprintf(", %d not attempted", n)
	}
	if n := r.Count(OutcomeInProgress); n > 0 {
		counts += fmt.Sprintf(", %d still running in Azure", n)
	}
	verb := map[Operation]string{OperationApply: "Apply", OperationDestroy: "Destroy"}[r.Operation]
	switch {
	case r.Interrupted:
		return fmt.Sprintf("%s interrupted! Resources: %s.", verb, counts)
	case r.Failed():
		return fmt.Sprintf("%s failed! Resources: %s.", verb, counts)
	}
	return fmt.Sprintf("%s complete! Resources: %s.", verb, counts)
}

// WriteText writes the end report: failures with ARM's code, message and
// correlation ID, what was not attempted and why, then the summary line.
func (r *Report) WriteText(w io.Writer) {
	var failed, skipped, running []string
	for _, res := range r.Results {
		switch res.Outcome {
		case OutcomeInProgress:
			running = append(running, "  "+res.Address)
		case OutcomeFailed:
			failed = append(failed, fmt.Sprintf("  %s: %s", res.Address, describe(res.Err)))
		case OutcomeNotAttempted:
			why := "stopped by the interrupt"
			if res.BlockedBy != "" {
				why = "waits for " + res.BlockedBy
			}
			if res.DeletedFirst {
				why = "deleted, not created again: " + why
			}
			skipped = append(skipped, fmt.Sprintf("  %s (%s)", res.Address, why))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "\nFailed:\n%s\n", strings.Join(failed, "\n"))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nNot attempted:\n%s\n", strings.Join(skipped, "\n"))
	}
	if len(running) > 0 {
		fmt.Fprintf(w, "\nStill running in Azure (the deployment goes on without azk):\n%s\n", strings.Join(running, "\n"))
	}
	if un := r.unrecorded(); len(un) > 0 {
		fmt.Fprintf(w, "\nApplied, but the reconcile-policy could not be recorded: nothing was written, each manifest is as it was (add it yourself, or the next run takes the resource for one it finds):\n")
		for _, res := range un {
			fmt.Fprintf(w, "  %s: %v\n", res.Address, res.RecordErr)
		}
	}
	fmt.Fprintf(w, "\n%s\n", r.Summary())
}

// describe prints an error with ARM's code, message and correlation ID first.
func describe(err error) string { return describeFailure(failureOf(err)) }

// EventType says what an Event reports.
type EventType string

const (
	EventStart   EventType = "start"   // work on a resource began
	EventStill   EventType = "still"   // a long operation is still running
	EventEnd     EventType = "end"     // work on a resource ended (see Outcome)
	EventRecord  EventType = "record"  // a reconcile-policy was recorded in a manifest, or could not be
	EventWait    EventType = "wait"    // waiting for a state in Azure, or to retry an error the operator retries (see Message)
	EventSummary EventType = "summary" // the run ended; written by WriteJSONSummary
)

// Event is one line of progress.
type Event struct {
	Type    EventType `json:"type"`
	Address string    `json:"address,omitempty"`
	ARMID   string    `json:"armId,omitempty"`
	Action  string    `json:"action,omitempty"`
	// Method is the ARM request of a start event: PUT or DELETE.
	Method  string   `json:"method,omitempty"`
	Outcome Outcome  `json:"outcome,omitempty"`
	Elapsed Seconds  `json:"elapsedSeconds,omitempty"`
	Error   *Failure `json:"error,omitempty"`
	// CascadedBy names the deleted parent of a resource removed with it.
	CascadedBy string `json:"cascadedBy,omitempty"`
	// Message says what a record event recorded, or what a wait event waits for.
	Message string `json:"message,omitempty"`
	// Progress is a progress event's counts.
	Progress *Progress `json:"progress,omitempty"`
}

// Progress counts the operations in flight, the requests waiting for ARM's
// rate budget, and the answers so far that were 429. Every count is always
// written, zeros too, so a script reads each as a number.
type Progress struct {
	InFlight  int `json:"inFlight"`
	Queued    int `json:"queued"`
	Throttled int `json:"throttled"`
	// Subscriptions are the same counts for each subscription, when the
	// run acts in more than one, in the order of their IDs.
	Subscriptions []SubscriptionProgress `json:"subscriptions,omitempty"`
}

// SubscriptionProgress is one subscription's counts, with how many of the
// resources azk acts on there are done (whatever the outcome) of how many.
type SubscriptionProgress struct {
	Subscription string `json:"subscription"`
	InFlight     int    `json:"inFlight"`
	Queued       int    `json:"queued"`
	Throttled    int    `json:"throttled"`
	Done         int    `json:"done"`
	Total        int    `json:"total"`
}

// Failure is an error as reported: ARM's code, message and correlation ID
// when ARM answered, else the message alone.
type Failure struct {
	Code          string `json:"code,omitempty"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId,omitempty"`
	// ReplaceRequired is set when ARM refused an update for changing a
	// property it accepts only at creation.
	ReplaceRequired *ReplaceRequired `json:"replaceRequired,omitempty"`
}

func failureOf(err error) *Failure {
	if err == nil {
		return nil
	}
	var re *arm.ResponseError
	if errors.As(err, &re) {
		msg := re.Message
		if conflict := re.Conflict(); conflict != "" {
			msg = conflict + ": nothing was overwritten; make a new plan"
		}
		f := &Failure{Code: re.Code, Message: msg, CorrelationID: re.CorrelationID}
		if rr := (*replaceRequiredError)(nil); errors.As(err, &rr) {
			f.ReplaceRequired = &rr.what
		}
		return f
	}
	return &Failure{Message: err.Error()}
}

// Seconds is a duration that marshals as seconds.
type Seconds time.Duration

// MarshalJSON writes seconds with millisecond precision.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(s).Round(time.Millisecond).Seconds())
}

// String rounds to seconds from one second on, like Terraform's "after 2s".
func (s Seconds) String() string {
	d := time.Duration(s)
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

func serialized(f func(Event)) func(Event) {
	if f == nil {
		return func(Event) {}
	}
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		f(e)
	}
}

// TextProgress returns an Events function printing one line per event:
//
//	resources.azure.com/ResourceGroup/default/rg: Creating...
//	resources.azure.com/ResourceGroup/default/rg: Still creating... [30s elapsed]
//	resources.azure.com/ResourceGroup/default/rg: Creation complete after 2s
func TextProgress(w io.Writer) func(Event) {
	return func(e Event) {
		verb := verbs[e.Action]
		if verb.doing == "" {
			verb = verbs["default"]
		}
		switch e.Type {
		case EventStart:
			fmt.Fprintf(w, "%s: %s...\n", e.Address, verb.doing)
		case EventStill:
			fmt.Fprintf(w, "%s: Still %s... [%s elapsed]\n", e.Address, strings.ToLower(verb.doing), time.Duration(e.Elapsed).Round(time.Second))
		case EventWait:
			fmt.Fprintf(w, "%s: Waiting: %s\n", e.Address, e.Message)
		case EventProgress:
			fmt.Fprintf(w, "Progress: %d in flight, %d requests waiting for ARM's rate budget, %d throttled (429) so far\n", e.Progress.InFlight, e.Progress.Queued, e.Progress.Throttled)
			for _, s := range e.Progress.Subscriptions {
				fmt.Fprintf(w, "Progress: subscription %s: %d of %d done, %d in flight, %d requests waiting, %d throttled\n", s.Subscription, s.Done, s.Total, s.InFlight, s.Queued, s.Throttled)
			}
		case EventRecord:
			if e.Error != nil {
				fmt.Fprintf(w, "%s: %s\n", e.Address, describeFailure(e.Error))
			} else {
				fmt.Fprintf(w, "%s: %s\n", e.Address, e.Message)
			}
		case EventEnd:
			switch e.Outcome {
			case OutcomeFailed:
				fmt.Fprintf(w, "%s: %s failed after %s: %s\n", e.Address, verb.done, e.Elapsed, describeFailure(e.Error))
			case OutcomeCascaded:
				fmt.Fprintf(w, "%s: Deleted with %s\n", e.Address, e.CascadedBy)
			case OutcomeAlreadyGone:
				fmt.Fprintf(w, "%s: Already gone\n", e.Address)
			case OutcomeDetached:
				fmt.Fprintf(w, "%s: Detached (left in Azure)\n", e.Address)
			default:
				fmt.Fprintf(w, "%s: %s complete after %s\n", e.Address, verb.done, e.Elapsed)
			}
		}
	}
}

var verbs = map[string]struct{ doing, done string }{
	"create": {"Creating", "Creation"},
	"update": {"Updating", "Update"},
	"delete": {"Deleting", "Deletion"},
	// A replacement's PUT, once its DELETE is done.
	"replace": {"Creating again", "Creation"},
	// A deployment stack deploys the resources it manages again.
	"no-change": {"Redeploying unchanged", "Redeployment"},
	"default":   {"Working", "Work"},
}

func describeFailure(f *Failure) string {
	if f == nil {
		return "unknown error"
	}
	if f.Code == "" {
		return f.Message
	}
	s := f.Code + ": " + f.Message
	if f.CorrelationID != "" {
		s += " (correlation ID " + f.CorrelationID + ")"
	}
	if f.ReplaceRequired != nil {
		s += "; " + describeReplace(f.ReplaceRequired)
	}
	return s
}

// JSONProgress returns an Events function writing one JSON object per line.
func JSONProgress(w io.Writer) func(Event) {
	enc := json.NewEncoder(w)
	return func(e Event) { _ = enc.Encode(e) }
}

// WriteJSONSummary writes the closing event of a -o json run: the counts of
// every outcome and each resource that did not succeed.
func (r *Report) WriteJSONSummary(w io.Writer) error {
	type problem struct {
		Address   string   `json:"address"`
		Outcome   Outcome  `json:"outcome"`
		Error     *Failure `json:"error,omitempty"`
		BlockedBy string   `json:"blockedBy,omitempty"`
		// DeletedFirst: not attempted, after its DELETE went (see Result).
		DeletedFirst bool `json:"deletedFirst,omitempty"`
		// RecordError: applied, but the policy record failed.
		RecordError *Failure `json:"recordError,omitempty"`
	}
	out := struct {
		Type        EventType       `json:"type"`
		Operation   Operation       `json:"operation"`
		Complete    bool            `json:"complete"`
		Interrupted bool            `json:"interrupted,omitempty"`
		Counts      map[Outcome]int `json:"counts"`
		Problems    []problem       `json:"problems,omitempty"`
		Message     string          `json:"message"`
	}{Type: EventSummary, Operation: r.Operation, Complete: !r.Failed() && !r.Interrupted, Interrupted: r.Interrupted, Counts: map[Outcome]int{}, Message: r.Summary()}
	for _, res := range r.Results {
		out.Counts[res.Outcome]++
		if !res.Outcome.succeeded() || res.RecordErr != nil {
			out.Problems = append(out.Problems, problem{Address: res.Address, Outcome: res.Outcome, Error: failureOf(res.Err), BlockedBy: res.BlockedBy, DeletedFirst: res.DeletedFirst, RecordError: failureOf(res.RecordErr)})
		}
	}
	return json.NewEncoder(w).Encode(out)
}
