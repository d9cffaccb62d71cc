// Package applier carries out plans against Azure: it applies resources in
// dependency order, each as soon as what it depends on succeeded and the
// longest work first, and destroys them in reverse order with cascade
// safety. Each resource is one step; a failed step stops only what depends on it.
package applier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/convert"
	"github.com/azkcli/azk/internal/exported"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// Options configure Apply and Destroy. Client is required; the zero value of
// every other field is usable.
type Options struct {
	Client *arm.Client
	// Graph is the resolved input the plan was made from. It is needed to
	// re-convert a body whose values become known only during the apply
	// (config maps exported by other resources, built-in role IDs).
	Graph *graph.Graph
	// Parallelism bounds the resources being worked on at once; 0 sets no
	// bound (the client's rate budget paces the requests).
	Parallelism int
	// Heartbeat is how often a long operation reports that it is still
	// running (EventStill); zero means never.
	Heartbeat time.Duration
	// Events receives progress, one call at a time; nil discards it.
	Events func(Event)
	// Drain, once closed, stops new work from starting; work in flight goes on
	// until it ends or the context passed to Apply or Destroy is cancelled.
	Drain <-chan struct{}
	// LookupEnv reads secrets when a body is re-converted; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// WaitTimeout bounds each wait for a state in Azure the operator waits
	// out before or after a write (a cluster still upgrading, a backup
	// instance being protected); zero means an hour.
	WaitTimeout time.Duration
	// Redact receives every secret value fetched from Azure during the run
	// (the keys resources export to others), so that the run's redaction
	// knows them before anything could print them; nil discards them.
	Redact func(values ...string)
}

// Apply carries out the plan's resources: create, adopt and update are PUT
// and followed to the end, then read back to confirm the resource converged
// and to capture its status for the resources that consume it; a replace is
// a DELETE (unless ARM deletes it with its replaced owner) before its PUT.
// Resources with nothing to do are read only when another resource needs
// their status. The resources removed from the manifests (delete, detach)
// go last, as destroy deletes them, once every other resource succeeded.
func Apply(ctx context.Context, resources []*planner.Resource, opts Options) *Report {
	a := &applier{opts: opts, status: map[*graph.Node]map[string]any{}, recordErrs: map[string]error{}, emit: serialized(opts.Events)}
	first := map[string]bool{} // removals a write waits for (Resource.After)
	for _, r := range resources {
		for _, addr := range r.After {
			first[addr] = true
		}
	}
	var removals, early []*Deletion
	kept := resources[:0:0]
	for _, r := range resources {
		switch {
		case r.Removed() && first[r.Address] && r.Deletes():
			early = append(early, deletionOf(r))
		case r.Removed():
			removals = append(removals, deletionOf(r))
		default:
			kept = append(kept, r)
		}
	}
	resources = kept
	steps := make([]*step, len(resources), len(resources)+len(early))
	byAddress := make(map[string]*step, len(resources))
	byNode := make(map[*graph.Node]*step, len(resources))
	for i, r := range resources {
		steps[i] = &step{index: i, cost: applyCost(r), lane: laneOf(r.ID()), method: firstWrite(r)}
		byAddress[r.Address] = steps[i]
		if r.Node != nil {
			byNode[r.Node] = steps[i]
		}
	}
	deletedFirst := map[string]*step{}
	for i, d := range early {
		s := &step{index: len(resources) + i, cost: deleteCost(d.ARMID), lane: laneOf(d.ARMID), method: http.MethodDelete}
		steps = append(steps, s)
		deletedFirst[d.Address] = s
	}
	for i, r := range resources {
		steps[i].deps = dependencies(r, byNode, byAddress)
		for _, addr := range r.After {
			if s := deletedFirst[addr]; s != nil {
				steps[i].deps = append(steps[i].deps, s)
			}
		}
	}
	a.guarded = map[*planner.Resource]bool{}
	for i, r := range resources {
		if !slices.ContainsFunc(steps[i].deps, func(d *step) bool { return d.method != "" }) {
			a.guarded[r] = true
		}
	}
	added, deletedBefore := readerDeletes(resources, steps, byAddress, len(steps))
	steps = append(steps, added...)
	a.deletedBefore = map[*planner.Resource]bool{}
	for _, r := range deletedBefore {
		a.deletedBefore[r] = true
	}
	a.producers = producers(resources)
	a.statusRead = statusReaders(resources, a.producers)
	a.exports = exported.New(exported.Options{Client: opts.Client, Status: a.statusOf, Redact: opts.Redact})
	flight := trackProgress(opts, a.emit, steps)
	run(ctx, opts.Drain, steps, opts.Parallelism, admission(opts.Client), func(ctx context.Context, s *step) (Outcome, error) {
		defer flight.enter(s)()
		if r := deletedBefore[s]; r != nil {
			if err := a.deleteFirst(ctx, r); err != nil {
				return OutcomeFailed, err
			}
			return OutcomeDeleted, nil
		}
		if s.index >= len(resources) {
			d := early[s.index-len(resources)]
			if err := deleteOne(ctx, d, opts, a.emit); err != nil {
				return OutcomeFailed, err
			}
			if d.gone {
				return OutcomeAlreadyGone, nil
			}
			return OutcomeDeleted, nil
		}
		return a.apply(ctx, resources[s.index])
	})
	flight.stop()
	report := &Report{Operation: OperationApply, Interrupted: interrupted(ctx, opts.Drain)}
	addressOf := func(s *step) string {
		if r := deletedBefore[s]; r != nil {
			return r.Address
		}
		if s.index >= len(resources) {
			return early[s.index-len(resources)].Address
		}
		return resources[s.index].Address
	}
	deleteStepOf := map[*planner.Resource]*step{}
	for d, r := range deletedBefore {
		deleteStepOf[r] = d
	}
	for i, s := range steps {
		if deletedBefore[s] != nil {
			continue // reported with its resource's step
		}
		res := &Result{Outcome: s.outcome, Err: s.err}
		if i < len(resources) {
			r := resources[i]
			res.Address, res.ARMID, res.Action, res.RecordErr = r.Address, r.ARMID, string(r.Action), a.recordErrs[r.Address]
			if d := deleteStepOf[r]; d != nil && d.outcome == OutcomeFailed {
				s.blockedBy, res.Outcome, res.Err = nil, OutcomeFailed, d.err // its own DELETE failed
			} else if d != nil && d.outcome.succeeded() && s.outcome == OutcomeNotAttempted {
				res.DeletedFirst = true
			}
		} else {
			d := early[i-len(resources)]
			res.Address, res.ARMID, res.Action = d.Address, d.ARMID, string(d.Action)
		}
		if s.blockedBy != nil {
			res.BlockedBy = addressOf(s.blockedBy)
		}
		report.Results = append(report.Results, res)
	}
	if len(removals) > 0 {
		report.Results = append(report.Results, a.remove(ctx, removals, report)...)
		report.Interrupted = interrupted(ctx, opts.Drain)
	}
	return report
}

// remove carries out the plan's removals once the rest of the apply
// succeeded; otherwise none is attempted, as a deletion may rest on a write
// that did not happen (a reference moved away from what is deleted).
func (a *applier) remove(ctx context.Context, removals []*Deletion, applied *Report) []*Result {
	held := ""
	for _, res := range applied.Results {
		if !res.Outcome.succeeded() {
			held = res.Address
			break
		}
	}
	if held == "" && !applied.Interrupted {
		for _, res := range applied.Results {
			if res.Outcome != OutcomeUnchanged && res.Outcome != OutcomeSkipped {
				// A write of this run may have changed what is removed (a
				// subnet that no longer refers to a security group changes
				// the group): its ETag is not the plan's any more.
				for _, d := range removals {
					d.ETag = ""
				}
				break
			}
		}
		return deleteAll(ctx, removals, a.opts, a.emit)
	}
	out := make([]*Result, len(removals))
	for i, d := range removals {
		out[i] = &Result{Address: d.Address, ARMID: d.ARMID, Action: string(d.Action), Outcome: OutcomeNotAttempted, BlockedBy: held}
	}
	return out
}

// dependencies maps what r waits for to steps: the graph's edges when r has
// its node, else the plan's addresses. Dependencies outside the plan (kinds
// that are not ARM resources) do not hold r back.
func dependencies(r *planner.Resource, byNode map[*graph.Node]*step, byAddress map[string]*step) []*step {
	var deps []*step
	if r.Node != nil {
		for _, d := range r.Node.DependsOn() {
			if s := byNode[d]; s != nil {
				deps = append(deps, s)
			}
		}
		return deps
	}
	for _, addr := range r.DependsOn {
		if s := byAddress[addr]; s != nil {
			deps = append(deps, s)
		}
	}
	return deps
}

// producers are the nodes whose status another resource reads through a
// config map or a Secret it exports.
func producers(resources []*planner.Resource) map[*graph.Node]bool {
	out := map[*graph.Node]bool{}
	for _, r := range resources {
		if r.Node == nil {
			continue
		}
		for _, e := range r.Node.Edges {
			if (e.Kind == graph.EdgeConfigMap || e.Kind == graph.EdgeSecret) && e.To != nil {
				out[e.To] = true
			}
		}
	}
	return out
}

// statusReaders are the nodes whose status applying the resources reads:
// the producers, and the resources another's Azure name comes from.
func statusReaders(resources []*planner.Resource, producers map[*graph.Node]bool) map[*graph.Node]bool {
	out := maps.Clone(producers)
	for _, r := range resources {
		if r.Node == nil {
			continue
		}
		if src := r.Node.NameSource(); src != nil && src.To != nil {
			out[src.To] = true
		}
	}
	return out
}

func interrupted(ctx context.Context, drain <-chan struct{}) bool {
	if ctx.Err() != nil {
		return true
	}
	select {
	case <-drain:
		return true
	default:
		return false
	}
}

type applier struct {
	opts      Options
	emit      func(Event)
	producers map[*graph.Node]bool
	// statusRead are the nodes whose status another resource reads: the
	// producers and the sources of names.
	statusRead map[*graph.Node]bool
	// exports fetches the Secrets producers export, once each.
	exports *exported.Fetcher
	// deletedBefore are the replacements whose DELETE is a step of its own,
	// before what they read from is deleted (readerDeletes).
	deletedBefore map[*planner.Resource]bool
	// recordErrs are the policy records that could not be written, by address.
	recordErrs map[string]error
	// guarded are the resources whose first write carries what the plan
	// read (see precondition): nothing this run writes before them can
	// have changed them.
	guarded map[*planner.Resource]bool

	mu     sync.Mutex
	status map[*graph.Node]map[string]any // read back after each write, for config-map chaining

	// naming serializes Graph.NameFromStatus, which sets the IDs of a
	// named resource's children too.
	naming sync.Mutex
	// recording serializes the policy records written into manifests,
	// several of which may share a file.
	recording sync.Mutex
}

// record writes the reconcile-policy the plan says apply records for r
// into its manifest (see planner.PolicyRecord).
func (a *applier) record(r *planner.Resource) {
	rec := r.RecordPolicy
	if rec == nil || r.Node == nil {
		return
	}
	ev := Event{Type: EventRecord, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action)}
	if !rec.Writable {
		ev.Message = fmt.Sprintf("%s: %s not recorded: %s is not a plain file (--allow-unrecorded-policy)", graph.AnnotationReconcilePolicy, rec.Value, rec.Source)
		a.emit(ev)
		return
	}
	a.recording.Lock()
	err := WritePolicy(r.Node.Object, rec.Value)
	a.recording.Unlock()
	if err != nil {
		a.mu.Lock()
		a.recordErrs[r.Address] = err
		a.mu.Unlock()
		ev.Error = failureOf(fmt.Errorf("recording %s: %s in %s: %w", graph.AnnotationReconcilePolicy, rec.Value, rec.Source, err))
	} else {
		ev.Message = fmt.Sprintf("recorded %s: %s in %s", graph.AnnotationReconcilePolicy, rec.Value, rec.Source)
	}
	a.emit(ev)
}

func (a *applier) apply(ctx context.Context, r *planner.Resource) (Outcome, error) {
	if r.ARMID == "" && r.Node != nil {
		r.ARMID = r.Node.ID // named by its owner's step (see name)
	}
	switch r.Action {
	case planner.ActionRecreate:
		if r.CascadedBy == "" && !a.deletedBefore[r] {
			if err := a.deleteFirst(ctx, r); err != nil {
				return OutcomeFailed, err
			}
		}
		outcome, err := a.write(ctx, r)
		if err == nil {
			a.record(r)
		}
		return outcome, err
	case planner.ActionCreate, planner.ActionUpdate:
		outcome, err := a.write(ctx, r)
		if err == nil {
			a.record(r)
		}
		return outcome, err
	case planner.ActionNoChange, planner.ActionSkip:
		outcome := OutcomeUnchanged
		if r.Action == planner.ActionSkip {
			outcome = OutcomeSkipped
		}
		if r.Node != nil && a.producers[r.Node] {
			if _, err := a.readBack(ctx, r, r.ID()); err != nil && !arm.IsNotFound(err) {
				return OutcomeFailed, err
			}
		}
		a.record(r)
		return outcome, nil
	default:
		err := fmt.Errorf("the plan says %s", r.Action)
		if len(r.Reasons) > 0 {
			err = fmt.Errorf("the plan says %s: %s", r.Action, strings.Join(r.Reasons, "; "))
		}
		a.emit(Event{Type: EventEnd, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Outcome: OutcomeFailed, Error: failureOf(err)})
		return OutcomeFailed, err
	}
}

// write PUTs the resource, follows the operation and reads the result back.
func (a *applier) write(ctx context.Context, r *planner.Resource) (Outcome, error) {
	started := time.Now()
	outcome := map[planner.Action]Outcome{planner.ActionCreate: OutcomeCreated, planner.ActionUpdate: OutcomeUpdated, planner.ActionRecreate: OutcomeReplaced}[r.Action]
	a.emit(Event{Type: EventStart, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Method: "PUT"})
	stop := heartbeat(a.opts.Heartbeat, a.emit, Event{Address: r.Address, ARMID: r.ARMID, Action: string(r.Action)}, started)
	err := replaceRequiredBy(r, a.put(ctx, r))
	stop()
	ev := Event{Type: EventEnd, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Outcome: outcome, Elapsed: Seconds(time.Since(started))}
	if err != nil {
		ev.Outcome, ev.Error = OutcomeFailed, failureOf(err)
		outcome = OutcomeFailed
	}
	a.emit(ev)
	return outcome, err
}

// deleteFirst sends the DELETE of a replacement as destroy deletes, and
// follows it to its end: ARM deletes the resource's children with it.
func (a *applier) deleteFirst(ctx context.Context, r *planner.Resource) error {
	d := &Deletion{Address: r.Address, ARMID: r.ARMID, APIVersion: apiVersionOf(r), Action: DestroyDelete, node: r.Node}
	if a.guarded[r] {
		d.ETag = r.ETag()
	}
	if err := deleteOne(ctx, d, a.opts, a.emit); err != nil {
		return fmt.Errorf("deleting it before creating it again: %w", err)
	}
	return nil
}

func (a *applier) put(ctx context.Context, r *planner.Resource) error {
	req := r.Request
	if req == nil {
		return errors.New("the plan holds no request for this resource: make a new plan")
	}
	if r.Node != nil && r.Node.NameSource() != nil {
		if err := a.name(r); err != nil {
			return err
		}
	}
	if convert.HasUnknown(req.Body) {
		var err error
		if req, err = a.reconvert(ctx, r); err != nil {
			return err
		}
	}
	id, apiVersion, err := splitURL(req.URL)
	if err != nil {
		return err
	}
	waited, err := a.waitUntilWritable(ctx, r, id)
	if err != nil {
		return err
	}
	for _, w := range req.Before {
		if w.Method != http.MethodPost {
			return fmt.Errorf("%s %s before the PUT: azk sends only POST actions before a PUT", w.Method, w.Path)
		}
		if err := wait(ctx, func() (*arm.Operation, error) { return a.opts.Client.Post(ctx, w.Path, w.APIVersion, nil) }); err != nil {
			return fmt.Errorf("before the PUT: %w", err)
		}
	}
	body, err := convert.MarshalRequest(req.Body)
	if err != nil {
		return err
	}
	ev := Event{Address: r.Address, ARMID: id, Action: string(r.Action)}
	var final *arm.Response
	var pre []arm.WriteOption // the first attempt's: a failed one may have changed it
	if !waited {
		pre = a.precondition(r) // an operation waited out changed it, as the plan said it would
	}
	if err := retrying(ctx, a.opts.Client, r.Node, a.emit, ev, func() error {
		defer func() { pre = nil }()
		var err error
		final, err = waitResult(ctx, func() (*arm.Operation, error) {
			return a.opts.Client.Put(ctx, id, apiVersion, json.RawMessage(body), pre...)
		})
		return err
	}); err != nil {
		return err
	}
	got, err := a.settled(ctx, r, id, final)
	if err != nil {
		return fmt.Errorf("reading back after the write: %w", err)
	}
	if state := provisioningState(got); state != "" && !strings.EqualFold(state, "Succeeded") {
		return fmt.Errorf("did not converge: provisioningState is %s after the operation ended", state)
	}
	return a.checkAfterWrite(ctx, r, id, got)
}

// precondition is what r's PUT requires of Azure, so that a change made
// since the plan (another apply, a portal user) is reported, not
// overwritten: the ETag the plan read for an update (If-Match), and for a
// create of what the plan found absent, that it still is (If-None-Match).
// None for a resource something written before it in this run may have
// changed (its owner's PUT rewrites it), nor after this run's own DELETE.
func (a *applier) precondition(r *planner.Resource) []arm.WriteOption {
	switch {
	case !a.guarded[r]:
		return nil
	case r.Action == planner.ActionUpdate && r.ETag() != "":
		return []arm.WriteOption{arm.IfMatch(r.ETag())}
	case r.Action == planner.ActionCreate && r.Reason == planner.ReasonMissing:
		return []arm.WriteOption{arm.IfNoneMatch()}
	}
	return nil
}

func wait(ctx context.Context, start func() (*arm.Operation, error)) error {
	_, err := waitResult(ctx, start)
	return err
}

// waitResult starts an operation and follows it to its final answer.
func waitResult(ctx context.Context, start func() (*arm.Operation, error)) (*arm.Response, error) {
	op, err := start()
	if err != nil {
		return nil, err
	}
	return op.Wait(ctx)
}

// readBack GETs the resource and keeps its status for config-map chaining.
func (a *applier) readBack(ctx context.Context, r *planner.Resource, id string) (map[string]any, error) {
	resp, err := a.opts.Client.Get(ctx, id, apiVersionOf(r))
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("GET %s: reading body: %w", id, err)
	}
	a.keepStatus(r, body)
	return body, nil
}

// keepStatus keeps the status of r's resource as read, for the resources
// that consume it; of the others, nothing of what Azure answered is kept.
func (a *applier) keepStatus(r *planner.Resource, body map[string]any) {
	if r.Node != nil && r.Node.Kind != nil && a.statusRead[r.Node] {
		a.mu.Lock()
		a.status[r.Node] = convert.Status(r.Node.Kind, body)
		a.mu.Unlock()
	}
}

// name gives a resource whose Azure name is another resource's status value
// its name, now that the other resource was applied and read back.
func (a *applier) name(r *planner.Resource) error {
	src := r.Node.NameSource()
	status := a.statusOf(src.To)
	if status == nil {
		return fmt.Errorf("its Azure name comes from %s, whose status was not read", src.To.Address())
	}
	a.naming.Lock()
	defer a.naming.Unlock()
	named, err := a.opts.Graph.NameFromStatus(r.Node, status)
	switch {
	case err != nil:
		return err
	case !named:
		return fmt.Errorf("its Azure name comes from %s, whose status does not hold it", src.To.Address())
	}
	r.ARMID = r.Node.ID
	return nil
}

func (a *applier) statusOf(n *graph.Node) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status[n]
}

// reconvert builds the request again now that the resources it depends on
// exist: their read-back status fills exported config-map values, the
// secrets they export are fetched as the operator fetches them, and role
// names are looked up in Azure.
func (a *applier) reconvert(ctx context.Context, r *planner.Resource) (*convert.Request, error) {
	if r.Node == nil || a.opts.Graph == nil {
		return nil, errors.New("values are known only after apply, but the resolved input is not available to compute them")
	}
	var roleErr error
	src := convert.Sources{
		LookupEnv: a.opts.LookupEnv,
		Status:    a.statusOf,
		RoleDefinitionID: func(name string) (string, bool) {
			id, err := a.opts.Client.RoleDefinitionID(ctx, name)
			if err != nil {
				roleErr = err
				return "", false
			}
			return id, true
		},
		Get: func(id, apiVersion string) (map[string]any, error) {
			return a.current(ctx, id, apiVersion)
		},
		Secrets: func(from *graph.Node, name string) (map[string]string, bool, error) {
			return a.exports.Secret(ctx, from, name)
		},
		ManualConfig: func(from *graph.Node, name string) (string, bool, error) {
			return a.exports.ManualConfig(ctx, from, name)
		},
	}
	req, diags := convert.Convert(a.opts.Graph, r.Node, src)
	if err := diags.Err(); err != nil {
		return nil, err
	}
	r.CarryAzure(req.Body) // what the plan carries from Azure (ignore-changes, drift policy)
	if unknown := convert.HasUnknown(req.Body); unknown && roleErr != nil {
		return nil, roleErr
	}
	return req, nil
}

// heartbeat emits an EventStill copy of ev every interval until the returned
// func is called.
func heartbeat(interval time.Duration, emit func(Event), ev Event, started time.Time) func() {
	if interval <= 0 {
		return func() {}
	}
	ev.Type = EventStill
	return every(interval, func() {
		ev.Elapsed = Seconds(time.Since(started))
		emit(ev)
	})
}

// splitURL separates a request URL into ARM ID and api-version.
func splitURL(u string) (id, apiVersion string, err error) {
	path, query, _ := strings.Cut(u, "?")
	q, err := url.ParseQuery(query)
	if err != nil || q.Get("api-version") == "" {
		return "", "", fmt.Errorf("request URL %q has no api-version", u)
	}
	return path, q.Get("api-version"), nil
}

func apiVersionOf(r *planner.Resource) string {
	if r.APIVersion != "" {
		return r.APIVersion
	}
	if r.Node != nil && r.Node.Kind != nil {
		return r.Node.Kind.APIVersion
	}
	if r.Request != nil {
		if _, v, err := splitURL(r.Request.URL); err == nil {
			return v
		}
	}
	return ""
}

func provisioningState(body map[string]any) string {
	props, _ := body["properties"].(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}
