package deployment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/azkcli/azk/internal/applier"
	"github.com/azkcli/azk/internal/arm"
	"github.com/azkcli/azk/internal/graph"
	"github.com/azkcli/azk/internal/planner"
)

// StacksAPIVersion is the Microsoft.Resources api-version of deployment stacks.
const StacksAPIVersion = "2024-03-01"

// RunOptions configure Apply. Client is required.
type RunOptions struct {
	Client *arm.Client
	// Prefix names the run's deployments (see Name).
	Prefix string
	// Stack deploys the one template as this deployment stack (build the
	// set with Options.Unchanged).
	Stack string
	// Events receives progress, one call at a time; nil discards it.
	Events func(applier.Event)
	// Drain, once closed, stops azk following: deployments already
	// submitted go on in Azure, the others are not submitted.
	Drain <-chan struct{}
	// Poll is how often a deployment's operations are read; 0 means 1s.
	Poll time.Duration
	// Unreadable bounds how long a deployment may not be read (every read
	// failing, or ARM answering 404 for a deployment it lists as started)
	// before azk stops following it; 0 means DefaultUnreadable.
	Unreadable time.Duration
}

// DefaultUnreadable is how long azk keeps reading a deployment it cannot
// read before it stops following it: ARM may answer 404 for a deployment it
// has just started (a nested deployment in its parent's operations, or one
// azk has just submitted) until the deployment is replicated, and a
// connection may be lost for a while.
const DefaultUnreadable = 2 * time.Minute

// Submitted is a deployment (or stack) Apply handed to ARM.
type Submitted struct {
	Template *Template
	Name     string
	Stack    bool
	// Running is set when azk stopped following before it ended.
	Running bool
	// Err is why azk could not follow it to its end.
	Err error
	// Deleted and Detached are the resources a stack no longer names and
	// deleted or detached (actionOnUnmanage).
	Deleted, Detached []string
}

// Follow is how to follow a submitted deployment with the Azure CLI.
func (s Submitted) Follow() []string {
	sc := s.Template.Scope
	switch {
	case s.Stack && sc.ResourceGroup != "":
		return []string{fmt.Sprintf("az stack group show --subscription %s --resource-group %s --name %s", sc.Subscription, sc.ResourceGroup, s.Name)}
	case s.Stack:
		return []string{fmt.Sprintf("az stack sub show --subscription %s --name %s", sc.Subscription, s.Name)}
	case sc.ResourceGroup != "":
		return []string{
			fmt.Sprintf("az deployment group show --subscription %s --resource-group %s --name %s --query properties.provisioningState", sc.Subscription, sc.ResourceGroup, s.Name),
			fmt.Sprintf("az deployment operation group list --subscription %s --resource-group %s --name %s", sc.Subscription, sc.ResourceGroup, s.Name),
		}
	case sc.Subscription != "":
		return []string{
			fmt.Sprintf("az deployment sub show --subscription %s --name %s --query properties.provisioningState", sc.Subscription, s.Name),
			fmt.Sprintf("az deployment operation sub list --subscription %s --name %s", sc.Subscription, s.Name),
		}
	}
	return []string{fmt.Sprintf("az deployment tenant show --name %s --query properties.provisioningState", s.Name)}
}

// ActionOnUnmanage is what a stack of these resources does with one it no
// longer names, from their reconcile policies: detach when any is
// detach-on-delete (the operator leaves such a resource in Azure), else
// delete, as the operator deletes a managed resource whose object is
// deleted. Management groups are always detached.
func ActionOnUnmanage(rs []*planner.Resource) map[string]string {
	resources, groups := "delete", "delete"
	for _, r := range rs {
		if r.Policy.Value != "detach-on-delete" {
			continue
		}
		resources = "detach"
		if strings.EqualFold(r.ARMType, "Microsoft.Resources/resourceGroups") {
			groups = "detach"
		}
	}
	if resources == "detach" {
		groups = "detach"
	}
	return map[string]string{"resources": resources, "resourceGroups": groups, "managementGroups": "detach"}
}

// runner is one Apply.
type runner struct {
	opts RunOptions
	emit func(applier.Event)

	templates []*Template
	// deps are the plan resources each plan resource waits for.
	deps map[*planner.Resource][]*planner.Resource

	mu      sync.Mutex
	results map[string]*applier.Result // by address
	seen    map[string]string          // operation state seen, by lower-cased target ID
	// unseen is when a deployment ARM lists as started first answered 404,
	// by lower-cased deployment ID; it is dropped once the deployment reads.
	unseen map[string]time.Time
}

// Apply submits the set's templates, each once those it waits for have
// succeeded, follows their operations and reports per resource of the plan:
// created or updated, failed with ARM's code and message, not attempted;
// resources outside the templates as the plan says (unchanged, skipped).
func Apply(ctx context.Context, p *planner.Plan, set *Set, opts RunOptions) (*applier.Report, []Submitted) {
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Unreadable <= 0 {
		opts.Unreadable = DefaultUnreadable
	}
	rn := &runner{opts: opts, emit: serialized(opts.Events), templates: set.Templates, deps: planDependencies(p), results: map[string]*applier.Result{}, seen: map[string]string{}, unseen: map[string]time.Time{}}
	inTemplate := map[string]bool{}
	for _, t := range set.Templates {
		for _, r := range t.Resources {
			inTemplate[r.Address] = true
		}
	}
	for _, r := range p.Resources {
		res := &applier.Result{Address: r.Address, ARMID: r.ARMID, Action: string(r.Action)}
		rn.results[r.Address] = res
		switch {
		case inTemplate[r.Address]:
		case set.Held[r.Address] != "":
			res.Outcome, res.BlockedBy = applier.OutcomeNotAttempted, set.Held[r.Address]
		case r.Action == planner.ActionNoChange:
			res.Outcome = applier.OutcomeUnchanged
			rn.record(r, res)
		case r.Action == planner.ActionSkip:
			res.Outcome = applier.OutcomeSkipped
			rn.record(r, res)
		default:
			err := fmt.Errorf("the plan says %s", r.Action)
			if len(r.Reasons) > 0 {
				err = fmt.Errorf("the plan says %s: %s", r.Action, strings.Join(r.Reasons, "; "))
			}
			res.Outcome, res.Err = applier.OutcomeFailed, err
		}
	}
	submitted := make([]Submitted, len(set.Templates))
	done := make([]chan bool, len(set.Templates))
	for i := range done {
		done[i] = make(chan bool, 1)
	}
	index := map[*Template]int{}
	for i, t := range set.Templates {
		index[t] = i
	}
	var wg sync.WaitGroup
	for i, t := range set.Templates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok := true
			for _, a := range t.After {
				ok = ok && rn.wait(done[index[a]])
			}
			if !ok || rn.draining() || ctx.Err() != nil {
				rn.notAttempted(t)
				done[i] <- false
				return
			}
			name := Name(opts.Prefix, i)
			if opts.Stack != "" {
				name = opts.Stack
			}
			sub := Submitted{Template: t, Name: name, Stack: opts.Stack != ""}
			succeeded := rn.run(ctx, p, &sub)
			rn.mu.Lock()
			submitted[i] = sub
			rn.mu.Unlock()
			done[i] <- succeeded
		}()
	}
	wg.Wait()
	report := &applier.Report{Operation: applier.OperationApply, Interrupted: rn.draining() || ctx.Err() != nil}
	for _, r := range p.Resources {
		report.Results = append(report.Results, rn.results[r.Address])
	}
	var out []Submitted
	for _, s := range submitted {
		if s.Template != nil {
			out = append(out, s)
		}
	}
	return report, out
}

// wait reports whether the template behind done succeeded, keeping the
// answer for other waiters.
func (rn *runner) wait(done chan bool) bool {
	ok := <-done
	done <- ok
	return ok
}

func (rn *runner) draining() bool {
	select {
	case <-rn.opts.Drain:
		return true
	default:
		return false
	}
}

// notAttempted marks the resources of a template that was not submitted.
func (rn *runner) notAttempted(t *Template) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, r := range t.Resources {
		res := rn.results[r.Address]
		res.Outcome = applier.OutcomeNotAttempted
		res.BlockedBy = rn.failedDependencyLocked(r, map[*planner.Resource]bool{})
	}
}

// failedDependencyLocked finds a failed resource r waits for, directly or not.
func (rn *runner) failedDependencyLocked(r *planner.Resource, seen map[*planner.Resource]bool) string {
	for _, d := range rn.deps[r] {
		if seen[d] {
			continue
		}
		seen[d] = true
		if res := rn.results[d.Address]; res != nil && res.Outcome == applier.OutcomeFailed {
			return d.Address
		}
		if a := rn.failedDependencyLocked(d, seen); a != "" {
			return a
		}
	}
	return ""
}

// client is the client that acts for the template's resources: the one a
// credential-from annotation routes them to, the same for all of them.
func (rn *runner) client(t *Template) (*arm.Client, error) {
	var c *arm.Client
	for _, r := range t.Resources {
		rc := rn.opts.Client.For(r.ARMID)
		if c != nil && rc != c {
			return nil, fmt.Errorf("the resources of %s act as different identities (serviceoperator.azure.com/credential-from), and a deployment runs as one: apply with the default engine", t.File)
		}
		c = rc
	}
	if c == nil {
		c = rn.opts.Client
	}
	return c, nil
}

// run submits one template and follows it to its end, or until azk stops
// following (sub.Running), and reports whether all its resources succeeded.
// Every resource's outcome is read from the deployment operations, nested
// deployments' included; a deployment ARM lists as started but answers 404
// for is taken as not started yet, for up to RunOptions.Unreadable.
func (rn *runner) run(ctx context.Context, p *planner.Plan, sub *Submitted) bool {
	t := sub.Template
	client, err := rn.client(t)
	if err != nil {
		rn.failAll(t, err)
		return false
	}
	var deploymentID string
	if rn.opts.Stack != "" {
		err = rn.submitStack(ctx, client, t)
	} else {
		deploymentID = t.Scope.DeploymentID(sub.Name)
		err = rn.submit(ctx, client, t, deploymentID)
	}
	if err != nil {
		rn.failAll(t, err)
		return false
	}
	tick := time.NewTicker(rn.opts.Poll)
	defer tick.Stop()
	var failingSince time.Time
	for {
		state, err := rn.read(ctx, client, deploymentID, t)
		pending := false
		if err == nil && state.id != "" {
			pending, err = rn.operations(ctx, client, p, state.id, state.correlationID, map[string]bool{})
		}
		var lost *unreadableError
		if err != nil && failingSince.IsZero() {
			failingSince = time.Now()
		}
		switch {
		case err != nil && (errors.As(err, &lost) || time.Since(failingSince) >= rn.opts.Unreadable):
			sub.Err = err
			if state != nil && state.terminal() {
				// ARM ended the deployment, and what a nested one did
				// cannot be read: those resources failed to be followed.
				state.unread = err
				return rn.settle(t, state, false)
			}
			rn.stopFollowing(t, sub)
			return false
		case err != nil:
		case state.terminal() && !pending:
			sub.Deleted, sub.Detached = state.deleted, state.detached
			return rn.settle(t, state, false)
		default:
			failingSince = time.Time{}
		}
		select {
		case <-tick.C:
			continue
		case <-rn.opts.Drain:
		case <-ctx.Done():
		}
		rn.stopFollowing(t, sub)
		return false
	}
}

// stopFollowing leaves the template's unfinished resources running in Azure.
func (rn *runner) stopFollowing(t *Template, sub *Submitted) {
	sub.Running = true
	rn.settle(t, nil, true)
}

// unreadableError is a deployment ARM lists as started and still answers
// 404 for after RunOptions.Unreadable.
type unreadableError struct {
	id    string
	since time.Duration
}

func (e *unreadableError) Error() string {
	return fmt.Sprintf("ARM lists the deployment %s as started, yet has answered 404 for it for %s: its resources' outcome cannot be read", e.id, e.since.Round(time.Second))
}

// notVisible records that the deployment id, which ARM lists as started, is not
// visible yet; it fails once that has lasted RunOptions.Unreadable.
func (rn *runner) notVisible(id string) error {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	key := strings.ToLower(id)
	first, ok := rn.unseen[key]
	if !ok {
		rn.unseen[key] = time.Now()
		return nil
	}
	if since := time.Since(first); since >= rn.opts.Unreadable {
		return &unreadableError{id: id, since: since}
	}
	return nil
}

func (rn *runner) visible(id string) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	delete(rn.unseen, strings.ToLower(id))
}

// read reads the deployment (or stack). A deployment azk submitted that ARM
// answers 404 for is not visible yet: it reads as accepted, with no
// operations to read.
func (rn *runner) read(ctx context.Context, client *arm.Client, deploymentID string, t *Template) (*deploymentState, error) {
	if rn.opts.Stack != "" {
		return rn.readStack(ctx, client, t)
	}
	state, err := rn.readDeployment(ctx, client, deploymentID)
	if arm.IsNotFound(err) {
		if err := rn.notVisible(deploymentID); err != nil {
			return nil, err
		}
		return &deploymentState{state: "Accepted"}, nil
	}
	if err == nil {
		rn.visible(deploymentID)
	}
	return state, err
}

// deploymentRequest is the body of a deployment or what-if request.
func deploymentRequest(t *Template) map[string]any {
	return requestBody(t, map[string]any{"mode": "Incremental", "template": t.Document(), "parameters": t.Parameters()})
}

// requestBody is the body of a request deploying t with these properties:
// outside a resource group, with the location ARM keeps its metadata in.
func requestBody(t *Template, properties map[string]any) map[string]any {
	body := map[string]any{"properties": properties}
	if t.Scope.ResourceGroup == "" {
		body["location"] = t.Location
	}
	return body
}

// submit sends the deployment. When the request fails in a way that leaves
// unsaid whether ARM took it (a lost connection, a server error after the
// retries, or a refusal to replace a deployment of this name that is
// running: an earlier try of this very request), the deployment is read:
// if ARM has it, it is followed. Its name is this run's own.
func (rn *runner) submit(ctx context.Context, client *arm.Client, t *Template, id string) error {
	_, err := client.Put(ctx, id, APIVersion, deploymentRequest(t))
	var re *arm.ResponseError
	if err == nil || (errors.As(err, &re) && re.StatusCode < 500 && !strings.EqualFold(re.Code, "DeploymentActive")) {
		return err
	}
	if _, rerr := client.Get(ctx, id, APIVersion); rerr == nil {
		return nil
	}
	return err
}

func (rn *runner) submitStack(ctx context.Context, client *arm.Client, t *Template) error {
	body := requestBody(t, map[string]any{
		"template":         t.Document(),
		"parameters":       t.Parameters(),
		"actionOnUnmanage": ActionOnUnmanage(t.Resources),
		"denySettings":     map[string]any{"mode": "none"},
	})
	_, err := client.Put(ctx, t.Scope.StackID(rn.opts.Stack), StacksAPIVersion, body)
	return err
}

// deploymentState is what a read of a deployment (or stack) says.
type deploymentState struct {
	id            string // the deployment whose operations to read
	state         string
	correlationID string
	err           *arm.ResponseError
	// deleted and detached are what a stack no longer manages.
	deleted, detached []string
	// unread is why the operations of a nested deployment could not be
	// read, for the resources they would have described.
	unread error
}

func (s *deploymentState) terminal() bool {
	switch strings.ToLower(s.state) {
	case "succeeded", "failed", "canceled":
		return true
	}
	return false
}

type armErrorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details []armErrorBody `json:"details"`
}

// responseError is the error e describes, its message scrubbed as client
// scrubs ARM's error messages (a nested error can quote the template's
// request, parameters included).
func (e *armErrorBody) responseError(client *arm.Client, method, id, correlation string) *arm.ResponseError {
	if e == nil || e.Code == "" {
		return nil
	}
	msg := e.Message
	for _, d := range e.Details {
		msg += " " + d.Code + ": " + d.Message
	}
	return &arm.ResponseError{Method: method, ID: id, Code: e.Code, Message: client.Redacted(msg), CorrelationID: correlation}
}

func (rn *runner) readDeployment(ctx context.Context, client *arm.Client, id string) (*deploymentState, error) {
	resp, err := client.Get(ctx, id, APIVersion)
	if err != nil {
		return nil, err
	}
	var body struct {
		Properties struct {
			ProvisioningState string        `json:"provisioningState"`
			CorrelationID     string        `json:"correlationId"`
			Error             *armErrorBody `json:"error"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", id, err)
	}
	pr := body.Properties
	return &deploymentState{id: id, state: pr.ProvisioningState, correlationID: pr.CorrelationID, err: pr.Error.responseError(client, "PUT", id, pr.CorrelationID)}, nil
}

func (rn *runner) readStack(ctx context.Context, client *arm.Client, t *Template) (*deploymentState, error) {
	id := t.Scope.StackID(rn.opts.Stack)
	resp, err := client.Get(ctx, id, StacksAPIVersion)
	if err != nil {
		return nil, err
	}
	var body struct {
		Properties struct {
			ProvisioningState string        `json:"provisioningState"`
			DeploymentID      string        `json:"deploymentId"`
			Error             *armErrorBody `json:"error"`
			DeletedResources  []struct {
				ID string `json:"id"`
			} `json:"deletedResources"`
			DetachedResources []struct {
				ID string `json:"id"`
			} `json:"detachedResources"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", id, err)
	}
	pr := body.Properties
	st := &deploymentState{id: pr.DeploymentID, state: pr.ProvisioningState, correlationID: resp.CorrelationID, err: pr.Error.responseError(client, "PUT", id, resp.CorrelationID)}
	for _, r := range pr.DeletedResources {
		st.deleted = append(st.deleted, r.ID)
	}
	for _, r := range pr.DetachedResources {
		st.detached = append(st.detached, r.ID)
	}
	return st, nil
}

// operation is one deployment operation as ARM lists it.
type operation struct {
	Properties struct {
		ProvisioningState string `json:"provisioningState"`
		Duration          string `json:"duration"`
		StatusMessage     struct {
			Error *armErrorBody `json:"error"`
		} `json:"statusMessage"`
		TargetResource struct {
			ID           string `json:"id"`
			ResourceType string `json:"resourceType"`
		} `json:"targetResource"`
	} `json:"properties"`
}

// operations reads a deployment's operations, and those of its nested
// deployments, and reports each resource that started or ended since the
// last read. correlation is the deployment's correlation ID, which its
// operations' errors are quoted with. pending is set when a nested
// deployment ARM lists as started or succeeded cannot be read yet (404): it
// is taken as not started, and the tree is not done.
func (rn *runner) operations(ctx context.Context, client *arm.Client, p *planner.Plan, deploymentID, correlation string, visited map[string]bool) (pending bool, err error) {
	if visited[strings.ToLower(deploymentID)] {
		return false, nil
	}
	visited[strings.ToLower(deploymentID)] = true
	items, err := client.List(ctx, deploymentID+"/operations", APIVersion)
	if err != nil {
		return false, err
	}
	rn.mu.Lock()
	byID := resourcesByID(p) // IDs of resources named after apply are set as they are found
	rn.mu.Unlock()
	for _, raw := range items {
		var op operation
		if err := json.Unmarshal(raw, &op); err != nil {
			return false, fmt.Errorf("GET %s/operations: %w", deploymentID, err)
		}
		pr := op.Properties
		target := pr.TargetResource.ID
		if target == "" {
			continue
		}
		if strings.EqualFold(pr.TargetResource.ResourceType, "Microsoft.Resources/deployments") {
			more, err := rn.operations(ctx, client, p, target, correlation, visited)
			switch {
			case arm.IsNotFound(err) && failedState(pr.ProvisioningState):
				// ARM could not start it: its resources are not deployed,
				// and the deployment's error says why.
			case arm.IsNotFound(err):
				if err := rn.notVisible(target); err != nil {
					return false, err
				}
				pending = true
			case err != nil:
				return false, err
			default:
				rn.visible(target)
				pending = pending || more
			}
			continue
		}
		r := byID[strings.ToLower(target)]
		if r == nil {
			r = rn.namedNow(target)
		}
		if r == nil {
			continue
		}
		rn.observe(r, pr.ProvisioningState, parseDuration(pr.Duration), pr.StatusMessage.Error.responseError(client, "PUT", target, correlation))
	}
	return pending, nil
}

// failedState reports whether an operation's provisioning state says it failed or was cancelled.
func failedState(state string) bool {
	return strings.EqualFold(state, "Failed") || strings.EqualFold(state, "Canceled")
}

func resourcesByID(p *planner.Plan) map[string]*planner.Resource {
	out := make(map[string]*planner.Resource, len(p.Resources))
	for _, r := range p.Resources {
		if r.ARMID != "" {
			out[strings.ToLower(r.ARMID)] = r
		}
	}
	return out
}

// namedNow finds the resource named after apply that a deployment
// operation wrote, and gives it its ARM ID, as the direct engine does once
// it has named it.
func (rn *runner) namedNow(target string) *planner.Resource {
	lower := strings.ToLower(target)
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, t := range rn.templates {
		for r, prefix := range t.namedLater {
			if rest, ok := strings.CutPrefix(lower, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
				r.ARMID = target
				rn.results[r.Address].ARMID = target
				return r
			}
		}
	}
	return nil
}

// observe records an operation's state and reports what changed.
func (rn *runner) observe(r *planner.Resource, state string, elapsed time.Duration, opErr *arm.ResponseError) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	key := strings.ToLower(r.ARMID)
	prev := rn.seen[key]
	if prev == state || prev == "Succeeded" || prev == "Failed" {
		return
	}
	rn.seen[key] = state
	ev := applier.Event{Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Method: "PUT"}
	if prev == "" {
		ev.Type = applier.EventStart
		rn.emit(ev)
	}
	res := rn.results[r.Address]
	switch state {
	case "Succeeded":
		res.Outcome = succeededOutcome(r)
	case "Failed":
		res.Outcome = applier.OutcomeFailed
		res.Err = opErr
		if opErr == nil {
			res.Err = errors.New("the deployment operation failed without an error")
		}
	default:
		return
	}
	ev.Type, ev.Outcome, ev.Elapsed = applier.EventEnd, res.Outcome, applier.Seconds(elapsed)
	if res.Err != nil {
		ev.Error = failureOf(res.Err)
	}
	rn.emit(ev)
	if res.Outcome != applier.OutcomeFailed {
		rn.recordLocked(r, res)
	}
}

func succeededOutcome(r *planner.Resource) applier.Outcome {
	switch r.Action {
	case planner.ActionCreate:
		return applier.OutcomeCreated
	case planner.ActionUpdate:
		return applier.OutcomeUpdated
	}
	return applier.OutcomeUnchanged // a stack deploys what it manages again
}

// settle gives every resource of the template its end state once the
// deployment ended (or azk stopped following it) and reports whether all
// of them succeeded.
func (rn *runner) settle(t *Template, state *deploymentState, stopped bool) bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	ok := true
	var undescribed []*applier.Result
	for _, r := range t.Resources {
		res := rn.results[r.Address]
		switch {
		case res.Outcome == applier.OutcomeFailed:
			ok = false
		case res.Outcome != "":
		case stopped:
			res.Outcome, ok = applier.OutcomeInProgress, false
		default:
			ok = false
			if blocker := rn.failedDependencyLocked(r, map[*planner.Resource]bool{}); blocker != "" {
				res.Outcome, res.BlockedBy = applier.OutcomeNotAttempted, blocker
				continue
			}
			undescribed = append(undescribed, res)
		}
	}
	if state != nil && !strings.EqualFold(state.state, "Succeeded") {
		ok = false
	}
	for _, res := range undescribed {
		// The deployment ended without running it, for a reason of its own
		// (validation, a nested deployment, outputs): ARM's error says why.
		res.Outcome = applier.OutcomeFailed
		switch {
		case state != nil && state.unread != nil:
			res.Err = state.unread
		case state != nil && state.err != nil:
			res.Err = state.err
		case state != nil:
			res.Err = fmt.Errorf("the deployment ended %s without deploying it", state.state)
		default:
			res.Err = errors.New("the deployment ended without deploying it")
		}
	}
	return ok
}

// failAll fails every resource of a template that could not be submitted.
func (rn *runner) failAll(t *Template, err error) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, r := range t.Resources {
		res := rn.results[r.Address]
		res.Outcome, res.Err = applier.OutcomeFailed, err
		rn.emit(applier.Event{Type: applier.EventEnd, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action), Outcome: applier.OutcomeFailed, Error: failureOf(err)})
	}
}

// record writes the reconcile-policy the plan says apply records for r into
// its manifest, as the default engine does once r is applied.
func (rn *runner) record(r *planner.Resource, res *applier.Result) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.recordLocked(r, res)
}

func (rn *runner) recordLocked(r *planner.Resource, res *applier.Result) {
	rec := r.RecordPolicy
	if rec == nil || r.Node == nil {
		return
	}
	ev := applier.Event{Type: applier.EventRecord, Address: r.Address, ARMID: r.ARMID, Action: string(r.Action)}
	if !rec.Writable {
		ev.Message = fmt.Sprintf("%s: %s not recorded: %s is not a plain file (--allow-unrecorded-policy)", graph.AnnotationReconcilePolicy, rec.Value, rec.Source)
	} else if err := applier.WritePolicy(r.Node.Object, rec.Value); err != nil {
		res.RecordErr = fmt.Errorf("recording %s: %s in %s: %w", graph.AnnotationReconcilePolicy, rec.Value, rec.Source, err)
		ev.Error = failureOf(res.RecordErr)
	} else {
		ev.Message = fmt.Sprintf("recorded %s: %s in %s", graph.AnnotationReconcilePolicy, rec.Value, rec.Source)
	}
	rn.emit(ev)
}

func failureOf(err error) *applier.Failure {
	var re *arm.ResponseError
	if errors.As(err, &re) {
		return &applier.Failure{Code: re.Code, Message: re.Message, CorrelationID: re.CorrelationID}
	}
	return &applier.Failure{Message: err.Error()}
}

func serialized(f func(applier.Event)) func(applier.Event) {
	if f == nil {
		return func(applier.Event) {}
	}
	var mu sync.Mutex
	return func(e applier.Event) {
		mu.Lock()
		defer mu.Unlock()
		f(e)
	}
}

// parseDuration reads ARM's ISO 8601 duration ("PT1.5S", "PT2M3S").
func parseDuration(s string) time.Duration {
	s = strings.TrimPrefix(strings.ToUpper(s), "PT")
	var total time.Duration
	for _, unit := range []struct {
		suffix string
		d      time.Duration
	}{{"H", time.Hour}, {"M", time.Minute}, {"S", time.Second}} {
		i := strings.Index(s, unit.suffix)
		if i < 0 {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(s[:i], &v); err == nil {
			total += time.Duration(v * float64(unit.d))
		}
		s = s[i+1:]
	}
	return total
}

// StackLeavers are the resources the stack manages today that its new
// template no longer names: it deletes or detaches them.
func StackLeavers(ctx context.Context, client *arm.Client, t *Template, name string) ([]string, error) {
	resp, err := client.Get(ctx, t.Scope.StackID(name), StacksAPIVersion)
	if arm.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	managed, err := stackResources(resp.Body)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, r := range t.Resources {
		named[strings.ToLower(r.ARMID)] = true
	}
	var out []string
	for _, id := range managed {
		if !named[strings.ToLower(id)] && !strings.Contains(strings.ToLower(id), "/providers/microsoft.resources/deployments/") {
			out = append(out, id)
		}
	}
	return out, nil
}

// stackResources lists the resources a deployment stack (its body as ARM
// returns it) manages.
func stackResources(body []byte) ([]string, error) {
	var st struct {
		Properties struct {
			Resources []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"resources"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("reading the deployment stack: %w", err)
	}
	var out []string
	for _, r := range st.Properties.Resources {
		if r.Status == "" || strings.EqualFold(r.Status, "managed") {
			out = append(out, r.ID)
		}
	}
	return out, nil
}
