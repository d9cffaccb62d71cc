// Package deploy is the emulator's deployment engine: ARM template
// deployments, what-if and deployment stacks. It is a client of the ARM
// core: it sends its writes and reads through the core's HTTP handler and
// asks the core (the Core interface) only what a request cannot tell; it
// never touches the store. The core routes the deployment paths to it as an
// armcore.Router.
package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/azkcli/azk/internal/deployment/armtemplate"
	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
)

// This file runs ARM deployments: a template's resources PUT in dependency
// order through the emulator's own handler (so every type behaves as it
// does when a client writes it), with deployment operations to follow them,
// nested deployments, and what-if. Deployment stacks are in stacks.go,
// template expressions in template.go.
//
// What the emulator runs: incremental deployments of inline templates, with
// parameters (secure ones never stored or shown), variables, dependsOn,
// nested deployments with inner expression scope, and outputs. Copy loops,
// conditions, linked templates and complete mode are refused as
// InvalidTemplate. Deployments are kept with the emulator's state (without
// their templates or parameter values); one that was running when the
// emulator stopped is failed on restart.

const (
	typeDeployments = "microsoft.resources/deployments"
	typeStacks      = "microsoft.resources/deploymentstacks"
	deploymentsFile = "deployments.json"
	// historyPerScope is how many deployments ARM keeps per scope.
	historyPerScope = 800
	// keptOperations is how many of the latest deployments keep their
	// operations across restarts.
	keptOperations = 100
	// templateResourceLimit is ARM's limit on resources per template.
	templateResourceLimit = 800
	// keptTemplates is how many of the latest deployments keep their
	// template for exportTemplate; no template is ever written to disk.
	keptTemplates = 100
	// keptDeletes is how many deployment deletions' results are kept for
	// their Location to answer.
	keptDeletes = 1000
)

// deployScope is where a deployment runs.
type deployScope struct {
	sub, rg  string
	location string // the resource group's, for resourceGroup().location
}

func (d deployScope) id() string { return armtemplate.ScopeID(d.sub, d.rg) }

// deploymentRun is one deployment, running or finished. Its fields are
// guarded by deployments.mu.
type deploymentRun struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Sub             string            `json:"sub,omitempty"`
	RG              string            `json:"rg,omitempty"`
	Location        string            `json:"location,omitempty"`
	Mode            string            `json:"mode"`
	TemplateHash    string            `json:"templateHash"`
	Parameters      map[string]any    `json:"parameters,omitempty"` // as shown: secure ones without value
	CorrelationID   string            `json:"correlationId"`
	State           string            `json:"state"`
	Started         time.Time         `json:"started"`
	Ended           time.Time         `json:"ended,omitzero"`
	Ops             []*deployOp       `json:"ops,omitempty"`
	Outputs         map[string]any    `json:"outputs,omitempty"`
	OutputResources []string          `json:"outputResources,omitempty"`
	Error           *deploymentError  `json:"error,omitempty"`
	StatusID        string            `json:"statusId"`
	Tags            map[string]string `json:"tags,omitempty"`

	done   chan struct{}
	cancel context.CancelFunc
	// template is the template as submitted, for exportTemplate: kept in
	// memory only, for the latest deployments (keptTemplates).
	template json.RawMessage
}

// deployOp is one deployment operation: the write of one template resource.
type deployOp struct {
	OperationID string         `json:"operationId"`
	Target      string         `json:"target"`
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	APIVersion  string         `json:"apiVersion"`
	State       string         `json:"state"`
	StatusCode  string         `json:"statusCode,omitempty"`
	Started     time.Time      `json:"started"`
	Ended       time.Time      `json:"ended,omitzero"`
	Error       *armcore.Error `json:"error,omitempty"`
}

// deploymentError is ARM's error of a failed deployment, with the failed
// operations' errors as details.
type deploymentError struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Details []deploymentError `json:"details,omitempty"`
}

// deployments is the emulator's deployment engine.
type deployments struct {
	mu      sync.Mutex
	runs    map[string]*deploymentRun // by key of the deployment ID
	stacks  map[string]*stack         // by key of the stack ID
	whatIfs map[string][]byte         // finished what-if results, by ID
	order   []string                  // what-if result IDs, oldest first
	deletes []string                  // IDs of the latest deployment deletions, oldest first
	file    string
	ctx     context.Context
	stop    context.CancelFunc
	stopped bool     // the emulator closed: nothing more is written
	journal *os.File // the operations journal, once opened (see resume.go)
	wg      sync.WaitGroup
}

// Core is what the engine needs of the ARM core besides its HTTP surface:
// reads the engine makes without a request (which would count against the
// faults and rate limits), and the core's ID generator, so that a seeded
// emulator's IDs stay repeatable.
type Core interface {
	// NewUUID is a new UUID from the core's generator.
	NewUUID() string
	// Location is the location of the live resource id, and whether it exists.
	Location(id string) (location string, exists bool)
	// ChildrenOf lists the IDs of the live resources directly under id.
	ChildrenOf(id string) []string
	// OperationEnds is when the stored long-running operation id ends.
	OperationEnds(id string) (time.Time, bool)
	// PageSize is the number of items per list page.
	PageSize() int
}

// Engine runs deployments and stacks. It is a client of the ARM core: it
// writes and reads resources by requests to the core's handler, as ARM's
// deployment engine calls resource providers, and is registered with the
// core as the armcore.Router of the deployment and stack paths.
type Engine struct {
	core Core
	// handler serves ARM requests, faults and throttling included.
	handler  http.Handler
	stateDir string

	// endpoint is the emulator's address as its clients last reached it,
	// for environment().
	endpoint atomic.Pointer[string]

	// deploys is the engine's state, made on first use.
	deploys    *deployments
	deployOnce sync.Once
}

// New returns an engine that sends its requests to handler (the emulator's
// ARM surface) and keeps its state in stateDir (none when empty).
func New(core Core, handler http.Handler, stateDir string) *Engine {
	return &Engine{core: core, handler: handler, stateDir: stateDir}
}

// engine returns the deployment engine's state, loading what the state
// directory keeps of it on first use and resuming the deployments that were
// running when the emulator stopped.
func (e *Engine) engine() *deployments {
	e.deployOnce.Do(func() {
		ctx, stop := context.WithCancel(context.Background())
		d := &deployments{runs: map[string]*deploymentRun{}, stacks: map[string]*stack{}, whatIfs: map[string][]byte{}, ctx: ctx, stop: stop}
		var interrupted []*deploymentRun
		if e.stateDir != "" {
			d.file = filepath.Join(e.stateDir, deploymentsFile)
			interrupted = d.load()
		}
		e.deploys = d
		for _, run := range interrupted {
			runCtx, cancel := context.WithCancel(ctx)
			run.cancel = cancel
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				defer cancel()
				e.resume(runCtx, d, run)
			}()
		}
	})
	return e.deploys
}

// Stop stops the running deployments and stacks and saves the engine's
// state: a deployment still running is left as it is, for the next start
// to resume (see resume). Call it before closing the core, whose lock the
// runs need.
func (e *Engine) Stop() {
	if e.deploys == nil {
		return
	}
	d := e.deploys
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	d.stopped = true
	d.mu.Unlock()
	d.stop()
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.saveLocked()
	d.closeJournalLocked()
}

type persisted struct {
	Deployments []*deploymentRun `json:"deployments"`
	Stacks      []*stack         `json:"stacks"`
}

// load reads the engine's state, the operations journal on top of it, and
// returns the deployments that were running when the emulator stopped.
func (d *deployments) load() []*deploymentRun {
	data, err := os.ReadFile(d.file)
	if err != nil {
		return nil
	}
	var p persisted
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	for _, r := range p.Deployments {
		d.runs[armpath.Key(r.ID)] = r
	}
	d.replayJournal()
	var interrupted []*deploymentRun
	for _, r := range p.Deployments {
		r.done = make(chan struct{})
		if terminal(r.State) {
			close(r.done)
		} else {
			interrupted = append(interrupted, r)
		}
	}
	for _, st := range p.Stacks {
		if !stackTerminal(st.State) {
			st.State = "failed"
			st.Error = &deploymentError{Code: "EmulatorStopped", Message: "The emulator stopped while the stack was being deployed."}
		}
		d.stacks[armpath.Key(st.ID)] = st
	}
	return interrupted
}

// saveLocked writes the engine's state beside the emulator's, replacing the file atomically.
func (d *deployments) saveLocked() {
	if d.file == "" {
		return
	}
	p := persisted{Deployments: []*deploymentRun{}, Stacks: []*stack{}}
	for _, r := range d.runs {
		p.Deployments = append(p.Deployments, r)
	}
	for _, st := range d.stacks {
		p.Stacks = append(p.Stacks, st)
	}
	sort.Slice(p.Deployments, func(i, j int) bool { return p.Deployments[i].Started.Before(p.Deployments[j].Started) })
	// Operations are kept for the latest deployments only, so that the file
	// stays small however long the history.
	for i := range max(len(p.Deployments)-keptOperations, 0) {
		r := *p.Deployments[i]
		r.Ops = nil
		p.Deployments[i] = &r
	}
	sort.Slice(p.Stacks, func(i, j int) bool { return p.Stacks[i].ID < p.Stacks[j].ID })
	data, err := json.Marshal(p)
	if err != nil {
		return
	}
	tmp := d.file + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil && os.Rename(tmp, d.file) == nil {
		d.truncateJournalLocked() // the state written holds every operation
	}
}

func terminal(state string) bool {
	return state == armcore.StateSucceeded || state == armcore.StateFailed || state == "Canceled"
}

// Route answers the Microsoft.Resources deployment and deployment stack
// paths; handled is false for every other path.
func (e *Engine) Route(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) (handled bool, err error) {
	lt := strings.ToLower(t.Type)
	if strings.HasPrefix(lt, typeDeployments) && r.Host != selfHost {
		base := armcore.BaseURL(r)
		e.endpoint.Store(&base)
	}
	switch {
	case lt == typeDeployments && t.Kind == armpath.Resource:
		switch r.Method {
		case http.MethodPut:
			return true, e.putDeployment(w, r, t, body)
		case http.MethodGet, http.MethodHead:
			return true, e.getDeployment(w, r, t)
		case http.MethodDelete:
			return true, e.deleteDeployment(w, r, t)
		}
		return true, armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on deployments.", r.Method)
	case lt == typeDeployments && t.Kind == armpath.Collection && r.Method == http.MethodGet:
		return true, e.listDeployments(w, t)
	case lt == typeDeployments+"/operations" && r.Method == http.MethodGet:
		return true, e.listOperations(w, r, t)
	case lt == typeDeployments+"/operationstatuses" && r.Method == http.MethodGet:
		return true, e.deploymentStatus(w, t)
	case lt == typeDeployments+"/validate" && r.Method == http.MethodPost:
		return true, e.validate(w, r, t, body)
	case lt == typeDeployments+"/whatif" && r.Method == http.MethodPost:
		return true, e.whatIf(w, r, t, body)
	case lt == typeDeployments+"/whatifresults" && r.Method == http.MethodGet:
		return true, e.whatIfResult(w, t)
	case lt == typeDeployments+"/cancel" && r.Method == http.MethodPost:
		return true, e.cancelDeployment(w, t)
	case lt == typeDeployments+"/exporttemplate" && r.Method == http.MethodPost:
		return true, e.exportTemplate(w, t)
	case lt == typeDeployments+"/operationresults" && t.Kind == armpath.Resource && r.Method == http.MethodGet:
		return true, e.deleteResult(w, t)
	case strings.HasPrefix(lt, typeStacks):
		return true, e.serveStacks(w, r, t, body)
	}
	return false, nil
}

// deploymentScope checks that a deployment's scope exists and, outside a
// resource group, that the request gives the deployment a location; it
// returns the scope.
func (e *Engine) deploymentScope(t armpath.Target, location string) (deployScope, error) {
	sc := deployScope{sub: t.Sub, rg: t.RG}
	if t.RG == "" {
		if location == "" {
			return sc, armcore.Errorf(http.StatusBadRequest, "LocationRequired", "The location property is required for this definition.")
		}
		return sc, nil
	}
	loc, ok := e.groupLocation(sc)
	if !ok {
		return sc, armcore.Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.RG)
	}
	sc.location = loc
	return sc, nil
}

// groupLocation is the location of the resource group sc names; ok is
// false when the group does not exist.
func (e *Engine) groupLocation(sc deployScope) (location string, ok bool) {
	return e.core.Location(sc.id())
}

// deploymentRequest is the body of a deployment (or what-if, or stack) request.
type deploymentRequest struct {
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags"`
	Properties struct {
		Mode                        string         `json:"mode"`
		Template                    map[string]any `json:"template"`
		TemplateLink                any            `json:"templateLink"`
		ParametersLink              any            `json:"parametersLink"`
		Parameters                  map[string]any `json:"parameters"`
		ExpressionEvaluationOptions struct {
			Scope string `json:"scope"`
		} `json:"expressionEvaluationOptions"`
	} `json:"properties"`
}

// decodeTemplateRequest reads a deployment's or a stack's request with its
// numbers exact: a template's integers must reach the resources as sent, and
// float64 holds them exactly only up to 2^53.
func decodeTemplateRequest(body []byte, req any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(req); err != nil {
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %v.", err)
	}
	return nil
}

func decodeDeploymentRequest(body []byte) (*deploymentRequest, error) {
	var req deploymentRequest
	if err := decodeTemplateRequest(body, &req); err != nil {
		return nil, err
	}
	if req.Properties.TemplateLink != nil {
		return nil, templateLinkRefused("")
	}
	if req.Properties.ParametersLink != nil {
		return nil, invalidTemplate("the deployment has a parametersLink: the emulator fetches no linked parameters; give them inline")
	}
	if req.Properties.Template == nil {
		return nil, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: properties.template is required.")
	}
	switch {
	case req.Properties.Mode == "":
		return nil, armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: properties.mode is required.")
	case !strings.EqualFold(req.Properties.Mode, "Incremental"):
		return nil, armcore.Errorf(http.StatusBadRequest, "InvalidDeploymentMode", "The emulator runs Incremental deployments only, not '%s'.", req.Properties.Mode)
	}
	return &req, nil
}

func (e *Engine) putDeployment(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	req, err := decodeDeploymentRequest(body)
	if err != nil {
		return err
	}
	scope, err := e.deploymentScope(t, req.Location)
	if err != nil {
		return err
	}
	run, err := e.startDeployment(t, scope, req, r.Header.Get("x-ms-correlation-request-id"))
	if err != nil {
		return err
	}
	// Most emulated deployments end within moments: a short wait lets the
	// client's first poll, right away, find it done.
	retry := "1"
	select {
	case <-run.done:
		retry = "0"
	case <-time.After(100 * time.Millisecond):
	}
	h := w.Header()
	h.Set("Azure-AsyncOperation", followURL(r, run.ID, "operationStatuses", run.StatusID))
	h.Set("Retry-After", retry)
	d := e.engine()
	d.mu.Lock()
	view := run.view()
	d.mu.Unlock()
	armcore.WriteJSON(w, http.StatusCreated, view)
	return nil
}

// followURL is where an answer about the deployment or stack id sends the
// client to follow it: id's kind/name (operationStatuses, whatIfResults), at
// the request's api-version.
func followURL(r *http.Request, id, kind, name string) string {
	return fmt.Sprintf("%s%s/%s/%s?api-version=%s", armcore.BaseURL(r), id, kind, name, url.QueryEscape(r.URL.Query().Get("api-version")))
}

// startDeployment validates the template and starts running it.
func (e *Engine) startDeployment(t armpath.Target, scope deployScope, req *deploymentRequest, correlation string) (*deploymentRun, error) {
	name := t.Name
	prep, err := e.prepare(req.Properties.Template, req.Properties.Parameters, scope, t.ID, name)
	if err != nil {
		return nil, err
	}
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	if old := d.runs[armpath.Key(t.ID)]; old != nil && !terminal(old.State) {
		return nil, armcore.Errorf(http.StatusConflict, "DeploymentActive", "Unable to edit or replace deployment '%s': previous deployment from '%s' is still active (see deployment operations for details).", name, old.Started.UTC().Format(time.RFC3339))
	}
	if correlation == "" {
		correlation = e.core.NewUUID()
	}
	ctx, cancel := context.WithCancel(d.ctx)
	run := &deploymentRun{
		ID: t.ID, Name: name, Sub: scope.sub, RG: scope.rg, Location: req.Location, Mode: "Incremental",
		TemplateHash: prep.hash, Parameters: prep.shown, CorrelationID: correlation, State: armcore.StateAccepted,
		Started: time.Now(), StatusID: e.core.NewUUID(), Tags: req.Tags,
		done: make(chan struct{}), cancel: cancel,
	}
	if tmpl, err := json.Marshal(req.Properties.Template); err == nil {
		run.template = tmpl
	}
	d.runs[armpath.Key(t.ID)] = run
	d.pruneLocked(scope)
	d.dropTemplatesLocked()
	d.saveLocked()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer cancel()
		e.execute(ctx, run, prep)
	}()
	return run, nil
}

// pruneLocked drops the oldest finished deployments of a scope beyond ARM's history.
func (d *deployments) pruneLocked(scope deployScope) {
	var in []*deploymentRun
	for _, r := range d.runs {
		if r.Sub == scope.sub && strings.EqualFold(r.RG, scope.rg) && terminal(r.State) {
			in = append(in, r)
		}
	}
	if len(in) <= historyPerScope {
		return
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Started.Before(in[j].Started) })
	for _, r := range in[:len(in)-historyPerScope] {
		delete(d.runs, armpath.Key(r.ID))
	}
}

// dropTemplatesLocked forgets the templates of all but the latest keptTemplates deployments.
func (d *deployments) dropTemplatesLocked() {
	var kept []*deploymentRun
	for _, r := range d.runs {
		if r.template != nil {
			kept = append(kept, r)
		}
	}
	if len(kept) <= keptTemplates {
		return
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Started.Before(kept[j].Started) })
	for _, r := range kept[:len(kept)-keptTemplates] {
		r.template = nil
	}
}

// view is the deployment as ARM returns it.
func (r *deploymentRun) view() map[string]any {
	props := map[string]any{
		"templateHash":      r.TemplateHash,
		"mode":              r.Mode,
		"provisioningState": r.State,
		"timestamp":         r.Started.UTC().Format(time.RFC3339Nano),
		"correlationId":     r.CorrelationID,
		"providers":         []any{},
		"dependencies":      []any{},
	}
	if r.Parameters != nil {
		props["parameters"] = r.Parameters
	}
	if !r.Ended.IsZero() {
		props["timestamp"] = r.Ended.UTC().Format(time.RFC3339Nano)
	}
	props["duration"] = isoDuration(r.Started, r.Ended)
	if r.Outputs != nil {
		props["outputs"] = r.Outputs
	}
	if len(r.OutputResources) > 0 {
		var out []any
		for _, id := range r.OutputResources {
			out = append(out, map[string]any{"id": id})
		}
		props["outputResources"] = out
	}
	if r.Error != nil {
		props["error"] = r.Error
	}
	v := map[string]any{"id": r.ID, "name": r.Name, "type": "Microsoft.Resources/deployments", "properties": props}
	if r.Location != "" {
		v["location"] = r.Location
	}
	if r.Tags != nil {
		v["tags"] = r.Tags
	}
	return v
}

// isoDuration is how long something that started at start has run until
// end (until now while end is zero), as ARM's ISO 8601 duration, e.g. "PT1.5S".
func isoDuration(start, end time.Time) string {
	if end.IsZero() {
		end = time.Now()
	}
	d := end.Sub(start)
	return "PT" + strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "S"
}

// runLocked is the deployment id names, or ARM's DeploymentNotFound.
func (d *deployments) runLocked(id string) (*deploymentRun, error) {
	if run := d.runs[armpath.Key(id)]; run != nil {
		return run, nil
	}
	t, _ := armpath.Parse(id)
	return nil, armcore.Errorf(http.StatusNotFound, "DeploymentNotFound", "Deployment '%s' could not be found.", t.Name)
}

func (e *Engine) getDeployment(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	run, err := d.runLocked(t.ID)
	if err != nil {
		return err
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	armcore.WriteJSON(w, http.StatusOK, run.view())
	return nil
}

// deleteDeployment removes a deployment from the history, as ARM does: 202
// with a Location that answers 204 once it is gone (at once, here), 204 for
// a deployment that does not exist, 409 for one still running.
func (e *Engine) deleteDeployment(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	run := d.runs[armpath.Key(t.ID)]
	if run == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if !terminal(run.State) {
		return armcore.Errorf(http.StatusConflict, "DeploymentActive", "The deployment '%s' is still running: cancel it first.", t.Name)
	}
	delete(d.runs, armpath.Key(t.ID))
	d.saveLocked()
	id := e.core.NewUUID()
	d.deletes = append(d.deletes, id)
	if len(d.deletes) > keptDeletes {
		d.deletes = d.deletes[len(d.deletes)-keptDeletes:]
	}
	w.Header().Set("Location", followURL(r, t.ID, "operationResults", id))
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// deleteResult answers the Location of a deployment's deletion.
func (e *Engine) deleteResult(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range d.deletes {
		if strings.EqualFold(id, t.Name) {
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
	}
	return armcore.Errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", t.Name)
}

// exportTemplate answers a deployment's template as it was submitted.
func (e *Engine) exportTemplate(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	run, err := d.runLocked(t.Parent)
	if err != nil {
		return err
	}
	if run.template == nil {
		return armcore.Errorf(http.StatusNotFound, "DeploymentTemplateNotKept", "The emulator keeps the templates of its latest %d deployments in memory only, and not across restarts: deployment '%s' has none to export.", keptTemplates, run.Name)
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"template": run.template})
	return nil
}

func (e *Engine) listDeployments(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	prefix := armpath.Key(t.Parent) + "/providers/microsoft.resources/deployments/"
	var keys []string
	for k := range d.runs {
		if strings.HasPrefix(k, prefix) && !strings.Contains(k[len(prefix):], "/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := []any{}
	for _, k := range keys {
		items = append(items, d.runs[k].view())
	}
	armcore.WriteJSON(w, http.StatusOK, map[string]any{"value": items})
	return nil
}

func (e *Engine) cancelDeployment(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	run, err := d.runLocked(t.Parent)
	if err != nil {
		return err
	}
	if terminal(run.State) {
		return armcore.Errorf(http.StatusConflict, "DeploymentCannotBeCancelled", "The deployment '%s' has ended; it cannot be cancelled.", run.Name)
	}
	run.cancel()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deploymentStatus answers a deployment's Azure-AsyncOperation URL.
func (e *Engine) deploymentStatus(w http.ResponseWriter, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	run := d.runs[armpath.Key(t.Parent)]
	if run == nil || !strings.EqualFold(run.StatusID, t.Name) {
		return armcore.Errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", t.Name)
	}
	status := map[string]any{"status": run.State}
	switch {
	case run.State == armcore.StateAccepted:
		status["status"] = "Running"
		w.Header().Set("Retry-After", "1")
	case !terminal(run.State):
		w.Header().Set("Retry-After", "1")
	case run.Error != nil:
		status["error"] = run.Error
	}
	armcore.WriteJSON(w, http.StatusOK, status)
	return nil
}

// listOperations lists a deployment's operations, a page at a time.
func (e *Engine) listOperations(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	defer d.mu.Unlock()
	if t.Kind == armpath.Resource {
		run := d.runs[armpath.Key(t.Parent)]
		if run != nil {
			for _, op := range run.Ops {
				if strings.EqualFold(op.OperationID, t.Name) {
					armcore.WriteJSON(w, http.StatusOK, op.view(run))
					return nil
				}
			}
		}
		return armcore.Errorf(http.StatusNotFound, "DeploymentOperationNotFound", "The deployment operation '%s' could not be found.", t.Name)
	}
	run, err := d.runLocked(t.Parent)
	if err != nil {
		return err
	}
	start := 0
	if skip := r.URL.Query().Get("$skiptoken"); skip != "" {
		n, err := strconv.Atoi(skip)
		if err != nil || n < 0 {
			return armcore.Errorf(http.StatusBadRequest, "InvalidSkipToken", "The skip token '%s' is not valid.", skip)
		}
		start = min(n, len(run.Ops))
	}
	end := min(start+e.core.PageSize(), len(run.Ops))
	items := []any{}
	for _, op := range run.Ops[start:end] {
		items = append(items, op.view(run))
	}
	page := map[string]any{"value": items}
	if end < len(run.Ops) {
		q := r.URL.Query()
		q.Set("$skiptoken", strconv.Itoa(end))
		page["nextLink"] = armcore.BaseURL(r) + r.URL.Path + "?" + q.Encode()
	}
	armcore.WriteJSON(w, http.StatusOK, page)
	return nil
}

func (op *deployOp) view(run *deploymentRun) map[string]any {
	props := map[string]any{
		"provisioningOperation": "Create",
		"provisioningState":     op.State,
		"timestamp":             op.Started.UTC().Format(time.RFC3339Nano),
		"trackingId":            op.OperationID,
		"targetResource":        map[string]any{"id": op.Target, "resourceType": op.Type, "resourceName": op.Name, "apiVersion": op.APIVersion},
	}
	props["duration"] = isoDuration(op.Started, op.Ended)
	if op.StatusCode != "" {
		props["statusCode"] = op.StatusCode
	}
	if op.Error != nil {
		props["statusMessage"] = map[string]any{"status": armcore.StateFailed, "error": op.Error}
	}
	return map[string]any{"id": run.ID + "/operations/" + op.OperationID, "operationId": op.OperationID, "properties": props}
}

// execute runs a prepared template: each resource starts once everything it
// depends on succeeded, all that are ready at once, as ARM's engine does.
func (e *Engine) execute(ctx context.Context, run *deploymentRun, p *prepared) {
	d := e.engine()
	d.mu.Lock()
	run.State = "Running"
	d.mu.Unlock()
	p.env.reference = func(id, apiVersion string, full bool) (any, error) {
		return e.reference(ctx, p, id, apiVersion, full)
	}
	p.env.invoke = func(id, apiVersion, action string, body any) (any, error) {
		return e.invoke(ctx, p, id, apiVersion, action, body)
	}
	type result struct {
		r  *templateResource
		ok bool
	}
	waiting := map[*templateResource]int{}
	dependents := map[*templateResource][]*templateResource{}
	for _, r := range p.resources {
		waiting[r] = len(r.deps)
		for _, dep := range r.deps {
			dependents[dep] = append(dependents[dep], r)
		}
	}
	results := make(chan result)
	running, started := 0, 0
	start := func(r *templateResource) {
		running++
		started++
		go func() { results <- result{r, e.deployResource(ctx, run, p, r)} }()
	}
	for _, r := range p.resources {
		// An existing resource is read by what refers to it, never written.
		if waiting[r] == 0 && !r.existing {
			start(r)
		}
	}
	failed := false
	for running > 0 {
		res := <-results
		running--
		if !res.ok {
			failed = true
			continue
		}
		for _, dep := range dependents[res.r] {
			if waiting[dep]--; waiting[dep] == 0 && ctx.Err() == nil {
				start(dep)
			}
		}
	}
	// Never a false success: a resource to write that never started (its
	// dependencies never all succeeded) fails the run.
	toWrite := 0
	for _, r := range p.resources {
		if !r.existing {
			toWrite++
		}
	}
	neverStarted := toWrite - started
	var outputs map[string]any
	var outErr error
	if !failed && ctx.Err() == nil && neverStarted == 0 {
		outputs, outErr = p.outputValues()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx.Err() != nil {
		// The emulator is stopping: the run stays as it is, for the next
		// start to resume.
		d.saveLocked()
		return
	}
	run.Ended = time.Now()
	switch {
	case ctx.Err() != nil:
		run.State = "Canceled"
	case failed:
		run.State = armcore.StateFailed
		run.Error = &deploymentError{Code: "DeploymentFailed", Message: "At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details."}
		for _, op := range run.Ops {
			if op.Error != nil {
				run.Error.Details = append(run.Error.Details, deploymentError{Code: op.Error.Code, Message: op.Error.Message})
			}
		}
	case neverStarted > 0:
		run.State = armcore.StateFailed
		run.Error = &deploymentError{Code: "DeploymentFailed", Message: fmt.Sprintf("%d of the template's %d resources never started: what they depend on did not all succeed.", neverStarted, toWrite)}
	case outErr != nil:
		run.State = armcore.StateFailed
		run.Error = &deploymentError{Code: "DeploymentOutputEvaluationFailed", Message: outErr.Error()}
	default:
		run.State = armcore.StateSucceeded
		run.Outputs = outputs
	}
	d.endLocked(run)
}

// endLocked records the resources a run that ended deployed, saves the
// state and tells whoever waits for the run.
func (d *deployments) endLocked(run *deploymentRun) {
	for _, op := range run.Ops {
		if op.State == armcore.StateSucceeded {
			run.OutputResources = append(run.OutputResources, op.Target)
			if strings.EqualFold(op.Type, "Microsoft.Resources/deployments") {
				if nested := d.runs[armpath.Key(op.Target)]; nested != nil {
					run.OutputResources = append(run.OutputResources, nested.OutputResources...)
				}
			}
		}
	}
	d.saveLocked()
	close(run.done)
}

// reference reads a resource for reference(): by ID, or by the symbolic
// name or name of a resource of the template; the properties, or with full
// the whole body.
func (e *Engine) reference(ctx context.Context, p *prepared, target, apiVersion string, full bool) (any, error) {
	id := target
	tr, err := p.find(target)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		id = tr.id
		if apiVersion == "" {
			apiVersion = tr.apiVersion
		}
	} else if !strings.HasPrefix(target, "/") {
		return nil, exprErrorf("the resource '%s' referenced by reference() is not defined in the template", target)
	}
	if apiVersion == "" {
		return nil, exprErrorf("reference('%s') needs an api-version for a resource outside the template", target)
	}
	rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodGet, target: requestURI(id, apiVersion), group: p.env.scope.rg})
	if err != nil {
		var ae *armcore.Error
		if !errors.As(err, &ae) {
			return nil, err
		}
		return nil, exprErrorf("the resource '%s' referenced by reference() could not be read: %s: %s", id, ae.Code, ae.Message)
	}
	var body map[string]any
	if err := jsonDecode(rec.Body.Bytes(), &body); err != nil {
		return nil, err
	}
	if full {
		return body, nil
	}
	return body["properties"], nil
}

// invoke runs a list* function: a POST of the action on the resource (by
// ID, or by name in the template), as ARM's engine makes it, answering the
// action's result.
func (e *Engine) invoke(ctx context.Context, p *prepared, id, apiVersion, action string, body any) (any, error) {
	if !strings.HasPrefix(id, "/") {
		// A resource of the template, by name (or symbolic name).
		tr, err := p.find(id)
		if err != nil {
			return nil, err
		}
		if tr == nil {
			return nil, exprErrorf("the resource '%s' of '%s' is not defined in the template", id, action)
		}
		id = tr.id
	}
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(plain(body)); err != nil {
			return nil, err
		}
	}
	rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodPost, target: requestURI(strings.TrimSuffix(id, "/")+"/"+action, apiVersion), body: data, group: p.env.scope.rg})
	if err != nil {
		var ae *armcore.Error
		if !errors.As(err, &ae) {
			return nil, err
		}
		return nil, exprErrorf("the template function '%s' on '%s' failed: %s: %s", action, id, ae.Code, ae.Message)
	}
	if rec.Body.Len() == 0 {
		return nil, nil
	}
	var out any
	if err := jsonDecode(rec.Body.Bytes(), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// selfHost is the Host of the engine's own requests.
const selfHost = "deployment-engine"

// endpointURL is the emulator's address as its clients reach it.
func (e *Engine) endpointURL() string {
	if p := e.endpoint.Load(); p != nil {
		return *p
	}
	return ""
}

// selfRequest sends a request through the emulator's own handler, as ARM's
// deployment engine calls resource providers.
func (e *Engine) selfRequest(ctx context.Context, method, id, apiVersion string, body []byte, correlation string) *httptest.ResponseRecorder {
	return e.selfURL(ctx, method, requestURI(id, apiVersion), body, correlation)
}

// requestURI is the path and query of a request on id at apiVersion.
func requestURI(id, apiVersion string) string {
	u := &url.URL{Path: id, RawQuery: "api-version=" + url.QueryEscape(apiVersion)}
	return u.String()
}

func (e *Engine) selfURL(ctx context.Context, method, target string, body []byte, correlation string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		armcore.WriteError(rec, http.StatusBadRequest, "InvalidRequest", "%v", err)
		return rec
	}
	req.Host = selfHost
	req.Header.Set("Authorization", "Bearer deployment-engine")
	if correlation != "" {
		req.Header.Set("x-ms-correlation-request-id", correlation)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	e.handler.ServeHTTP(rec, req)
	return rec
}

// responseError reads ARM's error out of a recorded answer.
func responseError(rec *httptest.ResponseRecorder) *armcore.Error {
	var body struct {
		Error *armcore.Error `json:"error"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &body) == nil && body.Error != nil && body.Error.Code != "" {
		return body.Error
	}
	return &armcore.Error{Code: http.StatusText(rec.Code), Message: strings.TrimSpace(rec.Body.String())}
}

// deployResource runs one template resource as a deployment operation and
// reports whether it succeeded.
func (e *Engine) deployResource(ctx context.Context, run *deploymentRun, p *prepared, r *templateResource) bool {
	d := e.engine()
	op := &deployOp{OperationID: strings.ToUpper(e.core.NewUUID()[:16]), Target: r.id, Type: r.typ, Name: r.name, APIVersion: r.apiVersion, State: "Running", Started: time.Now()}
	d.mu.Lock()
	run.Ops = append(run.Ops, op)
	d.noteOpLocked(run, op)
	d.mu.Unlock()
	status, err := e.writeResource(ctx, run, p, r)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil && d.ctx.Err() != nil {
		return false // the emulator is stopping: the next start resumes the operation
	}
	defer d.noteOpLocked(run, op)
	op.Ended = time.Now()
	if err != nil && ctx.Err() != nil {
		op.State = "Canceled"
		return false
	}
	if err != nil {
		op.State = armcore.StateFailed
		var ae *armcore.Error
		if !errors.As(err, &ae) {
			ae = &armcore.Error{Code: "InvalidTemplate", Message: err.Error()}
		}
		op.Error = &armcore.Error{Code: ae.Code, Message: ae.Message}
		if ae.Status != 0 {
			op.StatusCode = strings.ReplaceAll(http.StatusText(ae.Status), " ", "")
		}
		return false
	}
	op.State, op.StatusCode = armcore.StateSucceeded, status
	return true
}

// writeResource PUTs one template resource and follows the operation to its end.
func (e *Engine) writeResource(ctx context.Context, run *deploymentRun, p *prepared, r *templateResource) (string, error) {
	body := map[string]any{}
	for k, v := range r.raw {
		if !bodyKey(k) {
			continue
		}
		if r.nested && k == "properties" {
			props, err := nestedProperties(r.env, v)
			if err != nil {
				return "", err
			}
			body[k] = props
			continue
		}
		ev, err := r.env.evalValue(v)
		if err != nil {
			return "", err
		}
		body[k] = ev
	}
	data, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	if r.nested {
		return e.runNested(ctx, run, r, data)
	}
	rec, err := e.sendWithRetry(ctx, resourceRequest(http.MethodPut, r.id, r.apiVersion, data, run))
	if err != nil {
		return "", err
	}
	status := strings.ReplaceAll(http.StatusText(rec.Code), " ", "")
	if monitor := rec.Header().Get("Azure-AsyncOperation"); monitor != "" {
		return status, e.follow(ctx, monitor, false)
	}
	if loc := rec.Header().Get("Location"); loc != "" {
		return status, e.follow(ctx, loc, true)
	}
	return status, nil
}

// nestedProperties are a nested deployment's properties as sent. With
// inner scope its parameters are evaluated in the parent and its template
// left for the nested deployment to evaluate. With outer scope (ARM's
// default) the template's expressions read the parent's parameters and
// variables: the nested template is sent declaring the parent's
// parameters, with their values, and its variables as values (escaped, so
// that nothing is evaluated twice), which evaluates each expression as
// the parent would.
func nestedProperties(env *exprEnv, v any) (map[string]any, error) {
	props, _ := v.(map[string]any)
	if props == nil {
		return nil, invalidTemplate("a nested deployment needs properties")
	}
	opts, _ := props["expressionEvaluationOptions"].(map[string]any)
	sc, _ := opts["scope"].(string)
	outer := sc == "" || strings.EqualFold(sc, "outer")
	if !outer && !strings.EqualFold(sc, "inner") {
		return nil, invalidTemplate("the nested deployment's expressionEvaluationOptions.scope '%s' must be 'inner' or 'outer'", sc)
	}
	out := map[string]any{}
	for k, e := range props {
		if k == "template" {
			out[k] = e
			continue
		}
		ev, err := env.evalValue(e)
		if err != nil {
			return nil, err
		}
		out[k] = ev
	}
	if !outer {
		return out, nil
	}
	tmpl, _ := props["template"].(map[string]any)
	for _, k := range []string{"parameters", "variables"} {
		if !isEmpty(tmpl[k]) {
			return nil, invalidTemplate("a nested template with outer expression scope reads its parent's %s and declares none: it declares '%s' (use expressionEvaluationOptions.scope 'inner')", k, k)
		}
	}
	if !isEmpty(props["parameters"]) {
		return nil, invalidTemplate("a nested deployment with outer expression scope takes no parameters (use expressionEvaluationOptions.scope 'inner')")
	}
	inner := make(map[string]any, len(tmpl)+2)
	for k, e := range tmpl {
		inner[k] = e
	}
	declared, values := map[string]any{}, map[string]any{}
	for name, def := range env.paramTypes {
		spec, _ := def.(map[string]any)
		typ := spec["type"]
		if typ == nil {
			typ = parameterType(env.params[name])
		}
		declared[name] = map[string]any{"type": typ, "nullable": true}
		values[name] = map[string]any{"value": env.params[name]}
	}
	vars := map[string]any{}
	for name, v := range env.vars {
		vars[name] = escapeStrings(v)
	}
	inner["parameters"], inner["variables"] = declared, vars
	out["template"], out["parameters"] = inner, values
	out["expressionEvaluationOptions"] = map[string]any{"scope": "inner"}
	return out, nil
}

// parameterType is the template type of a value, for a parameter passed on
// whose declaration is a user-defined type.
func parameterType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "int"
}

// escapeStrings escapes every string of an evaluated value that would
// read as an expression, so that a template carrying it evaluates it to itself.
func escapeStrings(v any) any {
	switch t := v.(type) {
	case string:
		return armtemplate.Escape(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = escapeStrings(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = escapeStrings(e)
		}
		return out
	}
	return v
}

// runNested starts a nested deployment and waits for it.
func (e *Engine) runNested(ctx context.Context, parent *deploymentRun, r *templateResource, body []byte) (string, error) {
	if _, err := e.sendWithRetry(ctx, resourceRequest(http.MethodPut, r.id, "2022-09-01", body, parent)); err != nil {
		return "", err
	}
	d := e.engine()
	d.mu.Lock()
	nested := d.runs[armpath.Key(r.id)]
	d.mu.Unlock()
	if nested == nil {
		return "", armcore.Errorf(http.StatusInternalServerError, "InternalServerError", "the nested deployment '%s' was not started", r.id)
	}
	select {
	case <-nested.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if nested.State != armcore.StateSucceeded {
		e := &armcore.Error{Code: "DeploymentFailed", Message: fmt.Sprintf("The nested deployment '%s' ended %s.", nested.Name, nested.State), Status: http.StatusBadRequest}
		if nested.Error != nil {
			e.Code, e.Message = nested.Error.Code, nested.Error.Message
			for _, det := range nested.Error.Details {
				e.Message += " " + det.Code + ": " + det.Message
			}
		}
		return "", e
	}
	return "Created", nil
}
