package applier

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/armid"
	"github.com/azkcli/azk/internal/extensions"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
	"github.com/azkcli/azk/internal/registry"
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

	node *graph.Node
}

// Cascade is something a deletion would remove that destroy must not remove
// silently: an Azure resource that is not in the input, or an input resource
// whose policy (detach-on-delete, skip) says it must stay.
type Cascade struct {
	// By is the address of the resource whose deletion removes it.
	By string
	// ID is the ARM ID removed; Address is set when it is in the input.
	ID, Address string
	// Reason says why it matters.
	Reason string
}

// DestroyPlan is what destroy would do, in the order deletions may happen
// (reverse dependency order).
type DestroyPlan struct {
	Deletions []*Deletion
	// Cascades need --allow-cascade: deleting would remove them too.
	Cascades []Cascade
	// Warnings are children destroy could not list; it cannot vouch for them.
	Warnings []string
}

// PlanDestroy decides what destroying the input does: each resource's policy,
// whether it still exists, which resources ARM removes with their parent, and
// which resources outside the input (found by listing the children of every
// resource to delete, and resource group contents) would go with them.
func PlanDestroy(ctx context.Context, g *graph.Graph, client *arm.Client) (*DestroyPlan, error) {
	var nodes []*graph.Node
	for _, n := range g.Nodes {
		if n.Kind != nil && n.Kind.IsARM() && n.ID != "" {
			nodes = append(nodes, n)
		}
	}
	exists, err := existence(ctx, client, nodes)
	if err != nil {
		return nil, err
	}
	dels := make(map[*graph.Node]*Deletion, len(nodes))
	p := &DestroyPlan{}
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		d := &Deletion{Address: n.Address(), ARMID: n.ID, APIVersion: n.Kind.APIVersion, Policy: destroyPolicy(g, n), node: n}
		switch {
		case !exists[n]:
			d.Action = DestroyGone
		case d.Policy.Value == graph.PolicySkip:
			d.Action = DestroySkip
		case d.Policy.Value == graph.PolicyDetachOnDelete:
			d.Action = DestroyDetach
		default:
			d.Action = DestroyDelete
		}
		dels[n] = d
		p.Deletions = append(p.Deletions, d)
	}
	// A resource whose ancestor is deleted goes with it, whatever its own policy.
	for _, d := range p.Deletions {
		if d.Action == DestroyGone {
			continue
		}
		for a := d.node.Owner; a != nil; a = a.Owner {
			if ad := dels[a]; ad != nil && (ad.Action == DestroyDelete || ad.Action == DestroyCascade) && exists[a] {
				d.CascadedBy = ad.Address
			}
		}
		if d.CascadedBy == "" {
			continue
		}
		if d.Action != DestroyDelete {
			p.Cascades = append(p.Cascades, Cascade{By: d.CascadedBy, ID: d.ARMID, Address: d.Address,
				Reason: "marked " + d.Policy.Value + ", which deleting its parent defeats"})
		}
		d.Action = DestroyCascade
	}
	inInput := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		inInput[strings.ToLower(n.ID)] = true
	}
	l := &childLister{client: client, inInput: inInput}
	for _, d := range p.Deletions {
		if d.Action == DestroyDelete {
			l.walk(ctx, d.Address, d.ARMID, d.node.Kind.ARMType)
		}
	}
	p.Cascades = append(p.Cascades, l.unmanaged...)
	p.Warnings = l.warnings
	return p, nil
}

// destroyPolicy is the policy destroy honours, resolved as for a resource
// that exists (planner.ResolvePolicy): azk keeps no state, so it cannot tell
// whether it created the resource or adopted it under
// reconcile-policy-if-exists, and assumes adopted.
func destroyPolicy(g *graph.Graph, n *graph.Node) planner.Policy {
	p, _ := planner.ResolvePolicy(g, n, true, "")
	return p
}

// existence reads every resource at once: the client paces the reads by the
// subscription's read budget and bounds them by --parallelism.
func existence(ctx context.Context, client *arm.Client, nodes []*graph.Node) (map[*graph.Node]bool, error) {
	out := make(map[*graph.Node]bool, len(nodes))
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.Get(ctx, n.ID, n.Kind.APIVersion)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				out[n] = true
			case !arm.IsNotFound(err) && firstErr == nil:
				firstErr = fmt.Errorf("%s: %w", n.Address(), err)
			}
		}()
	}
	wg.Wait()
	return out, firstErr
}

// childLister finds what deleting a resource would take with it.
type childLister struct {
	client    *arm.Client
	inInput   map[string]bool
	unmanaged []Cascade
	warnings  []string
}

// resourceGroupsAPIVersion lists a resource group's contents.
const resourceGroupsAPIVersion = "2021-04-01"

// walk lists the children of id, reports those not in the input and walks
// into those that are (they go too, and so do their children).
func (l *childLister) walk(ctx context.Context, by, id, armType string) {
	type child struct{ id, typ string }
	var kids []child
	collect := func(path, apiVersion string) {
		items, err := l.client.List(ctx, path, apiVersion)
		if err != nil {
			if !arm.IsNotFound(err) {
				l.warnings = append(l.warnings, fmt.Sprintf("could not list %s: %v", path, err))
			}
			return
		}
		for _, raw := range items {
			var item struct{ ID, Type string }
			if json.Unmarshal(raw, &item) == nil && item.ID != "" {
				kids = append(kids, child{item.ID, item.Type})
			}
		}
	}
	if strings.EqualFold(armType, "Microsoft.Resources/resourceGroups") {
		collect(id+"/resources", resourceGroupsAPIVersion)
	} else {
		for _, c := range childTypes()[strings.ToLower(armType)] {
			collect(id+"/"+c.segment, c.apiVersion)
		}
	}
	createdWith := map[string]bool{}
	for _, c := range extensions.ChildrenCreatedWith(armType) {
		createdWith[strings.ToLower(id+"/"+c)] = true
	}
	for _, k := range kids {
		if !l.inInput[strings.ToLower(k.id)] {
			if !createdWith[strings.ToLower(k.id)] { // ARM made it with its parent and removes it with it
				l.unmanaged = append(l.unmanaged, Cascade{By: by, ID: k.id, Reason: "not in the input"})
			}
			continue
		}
		typ := k.typ
		if id, err := armid.Parse(k.id); typ == "" && err == nil {
			typ = id.Type() // listed without its type
		}
		l.walk(ctx, by, k.id, typ)
	}
}

type childType struct{ segment, apiVersion string }

// childTypes maps a lower-cased ARM type to the child collections ASO knows
// for it, from the registry (the newest api-version of each).
var childTypes = sync.OnceValue(func() map[string][]childType {
	reg := registry.Default()
	newest := map[string]string{} // child type -> api-version
	for _, gvk := range reg.All() {
		k, ok := reg.Lookup(gvk.Group, gvk.Version, gvk.Kind)
		if !ok || !k.IsARM() || k.Scope == registry.ScopeExtension || strings.Count(k.ARMType, "/") < 2 {
			continue
		}
		t := strings.ToLower(k.ARMType)
		if k.APIVersion > newest[t] {
			newest[t] = k.APIVersion
		}
	}
	out := map[string][]childType{}
	for t, v := range newest {
		i := strings.LastIndexByte(t, '/')
		out[t[:i]] = append(out[t[:i]], childType{segment: t[i+1:], apiVersion: v})
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool { return list[i].segment < list[j].segment })
	}
	return out
})

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
			fmt.Fprintf(w, "  ~ %s will be released and left in Azure (%s, %s)\n", d.Address, d.Policy.Value, d.Policy.Source)
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
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", warn)
	}
	c := p.Counts()
	fmt.Fprintf(w, "\nDestroy: %d to delete, %d deleted by cascade, %d to detach, %d untouched, %d already gone.\n",
		c[DestroyDelete], c[DestroyCascade], c[DestroyDetach], c[DestroySkip], c[DestroyGone])
}

// Destroy carries out the plan: each DELETE starts once everything that
// depends on the resource, or on anything it takes with it, is gone.
// Deleting something already gone succeeds.
func Destroy(ctx context.Context, p *DestroyPlan, opts Options) *Report {
	emit := serialized(opts.Events)
	byNode := map[*graph.Node]*Deletion{}
	byAddress := map[string]*Deletion{}
	for _, d := range p.Deletions {
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
	for _, d := range p.Deletions {
		if d.Action == DestroyDelete {
			s := &step{index: len(steps), cost: deleteCost(d.ARMID)}
			steps = append(steps, s)
			deleting = append(deleting, d)
			stepOf[d] = s
		}
	}
	dependents := dependentsOf(p.Deletions)
	for _, d := range p.Deletions {
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
	flight := trackProgress(opts, emit)
	defer flight.stop()
	run(ctx, opts.Drain, steps, opts.Parallelism, func(ctx context.Context, s *step) (Outcome, error) {
		defer flight.enter()()
		d := deleting[s.index]
		started := time.Now()
		emit(Event{Type: EventStart, Address: d.Address, ARMID: d.ARMID, Action: "delete", Method: "DELETE"})
		stop := heartbeat(opts.Heartbeat, emit, Event{Address: d.Address, ARMID: d.ARMID, Action: "delete"}, started)
		err := retrying(ctx, opts.Client, d.node, emit, Event{Address: d.Address, ARMID: d.ARMID, Action: "delete"}, func() error {
			return wait(ctx, func() (*arm.Operation, error) { return deleteOf(ctx, opts.Client, d) })
		})
		stop()
		ev := Event{Type: EventEnd, Address: d.Address, ARMID: d.ARMID, Action: "delete", Outcome: OutcomeDeleted, Elapsed: Seconds(time.Since(started))}
		if err != nil && !arm.IsNotFound(err) {
			ev.Outcome, ev.Error = OutcomeFailed, failureOf(err)
			emit(ev)
			return OutcomeFailed, err
		}
		emit(ev)
		for _, c := range p.Deletions {
			if c.Action == DestroyCascade && c.CascadedBy == d.Address {
				emit(Event{Type: EventEnd, Address: c.Address, ARMID: c.ARMID, Action: "delete", Outcome: OutcomeCascaded, CascadedBy: d.Address})
			}
		}
		return OutcomeDeleted, nil
	})
	report := &Report{Operation: OperationDestroy, Interrupted: interrupted(ctx, opts.Drain)}
	for _, d := range p.Deletions {
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
		report.Results = append(report.Results, res)
	}
	return report
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
