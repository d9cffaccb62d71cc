package preflight

import (
	"fmt"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// DefaultSyncPeriod is how often the operator re-sends every resource's PUT
// when nothing changed: ASO's documented default of AZURE_SYNC_PERIOD (1h).
// The operator code in the corpus (../shared/aso/operator) reads it from its
// configuration and does not show the default, so it is stated here.
const DefaultSyncPeriod = time.Hour

// steadyState reports what keeping these resources under the operator costs
// in ARM's write budget: each resource it manages gets one PUT per sync
// period. It warns when that rate, on its own, is more than the bucket
// refills (SteadyStateExhaustsWrites), and when one sync of them all is
// more than the bucket holds at once (SteadyStateBurst).
func steadyState(r *run) []planner.Finding {
	period := r.opts.SyncPeriod
	if period <= 0 {
		period = DefaultSyncPeriod
	}
	bucket := r.opts.Writes
	if bucket.Burst == 0 {
		bucket = arm.DefaultRateLimits.Writes
	}
	n := 0
	for _, res := range r.plan.Resources {
		if res.ARMID == "" && res.Reason != planner.ReasonNameAfterApply || res.Policy.Value == graph.PolicySkip {
			continue
		}
		switch res.Action {
		case planner.ActionCreate, planner.ActionUpdate, planner.ActionNoChange, planner.ActionRecreate:
			n++
		}
	}
	perHour := float64(n) * float64(time.Hour) / float64(period)
	refill := bucket.PerSecond * 3600
	msg := fmt.Sprintf("the operator re-sends the PUT of each of the %d resources it would manage every %s: %.0f writes an hour, %.1f%% of ARM's write bucket (refilled at %g a second, %.0f an hour)",
		n, period, perHour, 100*perHour/refill, bucket.PerSecond, refill)
	var out []planner.Finding
	if perHour > refill {
		out = append(out, finding(nil, "steady-state", "SteadyStateExhaustsWrites", planner.SeverityWarning, "%s: more than the bucket refills, so the operator alone would be throttled; raise AZURE_SYNC_PERIOD or split the resources across subscriptions", msg))
	} else {
		out = append(out, finding(nil, "steady-state", "SteadyStateWrites", planner.SeverityInfo, "%s", msg))
	}
	if n > bucket.Burst {
		out = append(out, finding(nil, "steady-state", "SteadyStateBurst", planner.SeverityWarning,
			"a sync of all %d resources at once (when the operator starts) is more than the %d writes the bucket holds: expect throttling (429) then", n, bucket.Burst))
	}
	return out
}
