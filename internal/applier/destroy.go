package applier

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// DestroyAction is what destroy does to one resource.
type DestroyAction string

const (
	DestroyDelete  DestroyAction = "delete"       // DELETE sent by azk
	DestroyCascade DestroyAction = "cascade"      // removed by ARM with a parent azk deletes
	DestroyDetach  DestroyAction = "detach"       // detach-on-delete: released, left in Azure
	DestroySkip    DestroyAction = "skip"         // reconcile-policy skip: untouched
	DestroyGone    DestroyAction = "already-gone" // not in Azure: nothing to do
)

// Deletion is destroy's decision for one input resource.
type Deletion struct {
	Address    string
	ARMID      string
	APIVersion string
	Action     DestroyAction
	// Policy is the reconcile policy that decided, and where it came from.
	Policy planner.Policy
	// CascadedBy is the address of the deleted ancestor that takes a
	// DestroyCascade resource with it.
	CascadedBy string
	// ETag is the resource's entity tag when the plan read it: the DELETE
	// carries it (If-Match), so that a resource changed since is not
	// deleted unseen. "" sends none.
	ETag string
	// CannotDelete marks a DestroyDetach of a kind Azure cannot delete on
	// its own (planner.ReasonCannotDelete), whatever its policy.
	CannotDelete bool

	node *graph.Node
	// gone: the DELETE found it already gone (404, or a 412 then a 404).
	gone bool
}

// Cascade is something a deletion would remove that destroy must not remove
// silently (see planner.Cascade).
type Cascade = planner.Cascade

// DestroyPlan is what destroy would do, in the order deletions may happen
// (reverse dependency order).
type DestroyPlan struct {
	Deletions []*Deletion
	// Cascades need --allow-cascade: deleting would remove them too, or
	// a listing of what it would remove failed (Cascade.Unverified).
	Cascades []Cascade
}

// PlanDestroy decides what destroying the input does, as planner.PlanRemovals
// decides for resources taken out of the manifests: each resource's policy,
// whether it still exists, which resources ARM removes with their parent, and
// which resources outside the input (found by listing the children of every
// resource to delete, and resource group contents) would go with them.
func PlanDestroy(ctx context.Context, g *graph.Graph, client *arm.Client) (*DestroyPlan, error) {
	rm, err := planner.PlanRemovals(ctx, client, g, planner.DestroyNodes(g), planner.RemovalOptions{})
	if err != nil {
		return nil, err
	}
	return destroyPlanOf(g, rm.Resources), nil
}

// DestroyPlanOf is destroy's form of a destroy plan made of g
// (planner.MakeDestroy, made again to apply a saved one): its decisions,
// and the resources of g it does not list as already gone.
func DestroyPlanOf(g *graph.Graph, p *planner.Plan) (*DestroyPlan, error) {
	if !p.Destroy {
		return nil, fmt.Errorf("not a destroy plan")
	}
	for _, r := range p.Resources {
		if r.Node == nil {
			return nil, fmt.Errorf("%s: the plan was not made of these inputs", r.Address)
		}
	}
	return destroyPlanOf(g, p.Resources), nil
}

// destroyPlanOf orders the decisions made for g's resources (PlanRemovals)
// for destroy: reverse dependency order, those Azure does not have as
// already gone.
func destroyPlanOf(g *graph.Graph, resources []*planner.Resource) *DestroyPlan {
	nodes := planner.DestroyNodes(g)
	decided := make(map[*graph.Node]*planner.Resource, len(resources))
	for _, r := range resources {
		decided[r.Node] = r
	}
	p := &DestroyPlan{}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		r := decided[n]
		if r == nil {
			policy, _ := planner.ResolvePolicy(g, n, true, "")
			p.Deletions = append(p.Deletions, &Deletion{Address: n.Address(), ARMID: n.ID, APIVersion: n.Kind.APIVersion, Action: DestroyGone, Policy: policy, node: n})
			continue
		}
		p.Deletions = append(p.Deletions, deletionOf(r))
		p.Cascades = append(p.Cascades, r.Cascades...)
	}
	return p
}

// deletionOf is destroy's form of a plan's delete or detach decision.
func deletionOf(r *planner.Resource) *Deletion {
	d := &Deletion{Address: r.Address, ARMID: r.ARMID, APIVersion: r.APIVersion, Policy: r.Policy, CascadedBy: r.CascadedBy, CannotDelete: r.Reason == planner.ReasonCannotDelete, ETag: r.ETag(), node: r.Node}
	switch {
	case r.Action == planner.ActionDelete && r.CascadedBy != "":
		d.Action = DestroyCascade
	case r.Action == planner.ActionDelete:
		d.Action = DestroyDelete
	case r.Policy.Value == graph.PolicySkip:
		d.Action = DestroySkip
	default:
		d.Action = DestroyDetach
	}
	return d
}

// Counts returns how many resources each action applies to.
func (p *DestroyPlan) Counts() map[DestroyAction]int {
	out := map[DestroyAction]int{}
	for _, d := range p.Deletions {
		out[d.Action]++
	}
	return out
}

// WriteText shows the destroy plan and anything that needs --allow-cascade.
func (p *DestroyPlan) WriteText(w io.Writer) {
	for _, d := range p.Deletions {
		switch d.Action {
		case DestroyDelete:
			fmt.Fprintf(w, "  - %s will be deleted\n", d.Address)
		case DestroyCascade:
			fmt.Fprintf(w, "  - %s will be deleted by cascade with %s\n", d.Address, d.CascadedBy)
		case DestroyDetach:
			if d.CannotDelete {
				fmt.Fprintf(w, "  ~ %s will be left in Azure: Azure cannot delete it on its own, only with its parent\n", d.Address)
			} else {
				fmt.Fprintf(w, "  ~ %s will be released and left in Azure (%s, %s)\n", d.Address, d.Policy.Value, d.Policy.Source)
			}
		case DestroySkip:
			fmt.Fprintf(w, "  = %s is left untouched (skip, %s)\n", d.Address, d.Policy.Source)
		case DestroyGone:
			fmt.Fprintf(w, "    %s does not exist\n", d.Address)
		}
	}
	if len(p.Cascades) > 0 {
		fmt.Fprintf(w, "\nDeleting would also remove:\n")
		for _, c := range p.Cascades {
			name := c.ID
			if c.Address != "" {
				name = c.Address
			}
			fmt.Fprintf(w, "  ! %s (%s; removed with %s)\n", name, c.Reason, c.By)
		}
	}
	c := p.Counts()
	fmt.Fprintf(w, "\nDestroy: %d to delete, %d deleted by cascade, %d to detach, %d untouched, %d already gone.\n",
		c[DestroyDelete], c[DestroyCascade], c[DestroyDetach], c[DestroySkip], c[DestroyGone])
}

// Destroy carries out the plan: each DELETE starts once everything that
// depends on the resource, or on anything it takes with it, is gone.
// Deleting something already gone succeeds.
func Destroy(ctx context.Context, p *DestroyPlan, opts Options) *Report {
	results := deleteAll(ctx, p.Deletions, opts, serialized(opts.Events))
	return &Report{Operation: OperationDestroy, Results: results, Interrupted: interrupted(ctx, opts.Drain)}
}

// deleteAll carries out deletions (destroy's, or the removals of a plan)
// and returns the result of each, in their order.
func deleteAll(ctx context.Context, dels []*Deletion, opts Options, emit func(Event)) []*Result {
	byNode := map[*graph.Node]*Deletion{}
	byAddress := map[string]*Deletion{}
	for _, d := range dels {
		byNode[d.node] = d
		byAddress[d.Address] = d
	}
	// alias is the deletion that removes d: itself, or the ancestor it cascades with.
	alias := func(d *Deletion) *Deletion {
		switch d.Action {
		case DestroyDelete:
			return d
		case DestroyCascade:
			return byAddress[d.CascadedBy]
		}
		return nil
	}
	stepOf := map[*Deletion]*step{}
	var steps []*step
	var deleting []*Deletion
	for _, d := range dels {
		if d.Action == DestroyDelete {
			s := &step{index: len(steps), cost: deleteCost(d.ARMID), lane: laneOf(d.ARMID), method: http.MethodDelete}
			steps = append(steps, s)
			deleting = append(deleting, d)
			stepOf[d] = s
		}
	}
	dependents := dependentsOf(dels)
	for _, d := range dels {
		root := alias(d)
		if root == nil {
			continue
		}
		s := stepOf[root]
		for _, dep := range dependents[d.node] {
			dd := byNode[dep]
			if dd == nil {
				continue
			}
			if other := alias(dd); other != nil && other != root && !contains(s.deps, stepOf[other]) {
				s.deps = append(s.deps, stepOf[other])
			}
		}
	}
	for _, d := range deleting {
		if len(stepOf[d].deps) > 0 {
			// What this run deletes before it may change it (a deleted
			// network interface changes its subnet): its ETag is not the
			// plan's any more, by this run's own doing.
			d.ETag = ""
		}
	}
	flight := trackProgress(opts, emit, steps)
	defer flight.stop()
	run(ctx, opts.Drain, steps, opts.Parallelism, admission(opts.Client), func(ctx context.Context, s *step) (Outcome, error) {
		defer flight.enter(s)()
		d := deleting[s.index]
		if err := deleteOne(ctx, d, opts, emit); err != nil {
			return OutcomeFailed, err
		}
		outcome := OutcomeDeleted
		if d.gone {
			outcome = OutcomeAlreadyGone
		}
		for _, c := range dels {
			if c.Action == DestroyCascade && c.CascadedBy == d.Address {
				ev := Event{Type: EventEnd, Address: c.Address, ARMID: c.ARMID, Action: "delete", Outcome: OutcomeCascaded, CascadedBy: d.Address}
				if d.gone {
					ev.Outcome, ev.CascadedBy = OutcomeAlreadyGone, ""
				}
				emit(ev)
			}
		}
		return outcome, nil
	})
	var results []*Result
	for _, d := range dels {
		res := &Result{Address: d.Address, ARMID: d.ARMID, Action: string(d.Action), CascadedBy: d.CascadedBy}
		switch d.Action {
		case DestroyDelete, DestroyCascade:
			s := stepOf[alias(d)]
			res.Outcome, res.Err = s.outcome, s.err
			if s.blockedBy != nil {
				res.BlockedBy = deleting[s.blockedBy.index].Address
			}
			if d.Action == DestroyCascade {
				switch s.outcome {
				case OutcomeDeleted:
					res.Outcome = OutcomeCascaded
				case OutcomeFailed:
					res.Outcome, res.Err, res.BlockedBy = OutcomeNotAttempted, nil, d.CascadedBy
				}
			}
		case DestroyDetach:
			res.Outcome = OutcomeDetached
		case DestroySkip:
			res.Outcome = OutcomeSkipped
		case DestroyGone:
			res.Outcome = OutcomeAlreadyGone
		}
		results = append(results, res)
	}
	return results
}

// deleteOne sends d's DELETE and follows it to its end, retrying what the
// operator retries, with start and end events; deleting what is already
// gone succeeds.
func deleteOne(ctx context.Context, d *Deletion, opts Options, emit func(Event)) error {
	started := time.Now()
	ev := Event{Address: d.Address, ARMID: d.ARMID, Action: "delete"}
	start := ev
	start.Type, start.Method = EventStart, "DELETE"
	emit(start)
	stop := heartbeat(opts.Heartbeat, emit, ev, started)
	etag := d.ETag // the first attempt's: a failed one may have changed it
	err := retrying(ctx, opts.Client, d.node, emit, ev, func() error {
		defer func() { etag = "" }()
		return wait(ctx, func() (*arm.Operation, error) { return deleteOf(ctx, opts.Client, d, etag) })
	})
	if arm.IsPreconditionFailed(err) {
		// Gone since the plan read it: what the DELETE was for.
		if _, gerr := opts.Client.Get(ctx, d.ARMID, d.APIVersion); arm.IsNotFound(gerr) {
			err = gerr
		}
	}
	stop()
	end := ev
	end.Type, end.Outcome, end.Elapsed = EventEnd, OutcomeDeleted, Seconds(time.Since(started))
	if err != nil && !arm.IsNotFound(err) {
		end.Outcome, end.Error = OutcomeFailed, failureOf(err)
		emit(end)
		return err
	}
	if err != nil {
		// Nothing was deleted by this run: say so rather than "Deletion complete".
		d.gone, end.Outcome = true, OutcomeAlreadyGone
	}
	emit(end)
	return nil
}

// dependentsOf maps each node to the input nodes that depend on it.
func dependentsOf(dels []*Deletion) map[*graph.Node][]*graph.Node {
	out := map[*graph.Node][]*graph.Node{}
	for _, d := range dels {
		for _, dep := range d.node.DependsOn() {
			out[dep] = append(out[dep], d.node)
		}
	}
	return out
}

func contains(list []*step, s *step) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
