package emulator

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// stack is a deployment stack: a deployment whose resources the stack
// manages. When an update no longer names a resource it managed, the stack
// deletes or detaches it, as actionOnUnmanage says. Deny settings are kept
// and shown, not enforced.
type stack struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Sub              string            `json:"sub,omitempty"`
	RG               string            `json:"rg,omitempty"`
	Location         string            `json:"location,omitempty"`
	ActionOnUnmanage map[string]string `json:"actionOnUnmanage"`
	DenySettings     map[string]any    `json:"denySettings"`
	State            string            `json:"state"`
	DeploymentID     string            `json:"deploymentId,omitempty"`
	Managed          []string          `json:"managed,omitempty"`
	Deleted          []string          `json:"deleted,omitempty"`
	Detached         []string          `json:"detached,omitempty"`
	Failed           []stackFailure    `json:"failed,omitempty"`
	Error            *deploymentError  `json:"error,omitempty"`
	StatusID         string            `json:"statusId"`
	Started          time.Time         `json:"started"`
	Ended            time.Time         `json:"ended,omitzero"`
}

type stackFailure struct {
	ID    string    `json:"id"`
	Error *armError `json:"error"`
}

func stackTerminal(state string) bool {
	return state == "succeeded" || state == "failed" || state == "canceled"
}

func (s *Server) serveStacks(w http.ResponseWriter, r *http.Request, t target, body []byte) error {
	lt := strings.ToLower(t.typ)
	switch {
	case lt == typeStacks && t.kind == targetResource && r.Method == http.MethodPut:
		return s.putStack(w, r, t, body)
	case lt == typeStacks && t.kind == targetResource && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		d := s.engine()
		d.mu.Lock()
		defer d.mu.Unlock()
		st := d.stacks[key(t.id)]
		if st == nil {
			return errorf(http.StatusNotFound, "DeploymentStackNotFound", "The deployment stack '%s' could not be found.", t.name)
		}
		writeJSON(w, http.StatusOK, st.view())
		return nil
	case lt == typeStacks && t.kind == targetResource && r.Method == http.MethodDelete:
		return s.deleteStack(w, r, t)
	case lt == typeStacks+"/operationstatuses" && r.Method == http.MethodGet:
		d := s.engine()
		d.mu.Lock()
		defer d.mu.Unlock()
		st := d.stacks[key(t.parent)]
		if st == nil || !strings.EqualFold(st.StatusID, t.name) {
			return errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", t.name)
		}
		status := map[string]any{"status": "Running"}
		switch {
		case st.State == "succeeded":
			status["status"] = stateSucceeded
		case st.State == "failed":
			status["status"], status["error"] = stateFailed, st.Error
		case st.State == "canceled":
			status["status"] = "Canceled"
		default:
			w.Header().Set("Retry-After", "1")
		}
		writeJSON(w, http.StatusOK, status)
		return nil
	}
	return errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, t.typ)
}

type stackRequest struct {
	Location   string `json:"location"`
	Properties struct {
		Template         map[string]any    `json:"template"`
		Parameters       map[string]any    `json:"parameters"`
		ActionOnUnmanage map[string]string `json:"actionOnUnmanage"`
		DenySettings     map[string]any    `json:"denySettings"`
	} `json:"properties"`
}

func (s *Server) putStack(w http.ResponseWriter, r *http.Request, t target, body []byte) error {
	var req stackRequest
	if err := decodeTemplateRequest(body, &req); err != nil {
		return err
	}
	p := req.Properties
	switch {
	case p.Template == nil:
		return errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: properties.template is required.")
	case !oneOf(p.ActionOnUnmanage["resources"], "delete", "detach"):
		return errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.actionOnUnmanage.resources must be delete or detach.")
	case p.ActionOnUnmanage["resourceGroups"] != "" && !oneOf(p.ActionOnUnmanage["resourceGroups"], "delete", "detach"):
		return errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.actionOnUnmanage.resourceGroups must be delete or detach.")
	case p.DenySettings == nil || !oneOf(fmt.Sprint(p.DenySettings["mode"]), "none", "denyDelete", "denyWriteAndDelete"):
		return errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.denySettings.mode must be none, denyDelete or denyWriteAndDelete.")
	}
	scope, err := s.deploymentScope(t, req.Location)
	if err != nil {
		return err
	}
	d := s.engine()
	d.mu.Lock()
	prev := d.stacks[key(t.id)]
	if prev != nil && !stackTerminal(prev.State) {
		d.mu.Unlock()
		return errorf(http.StatusConflict, "DeploymentStackInNonTerminalState", "The deployment stack '%s' is being changed; try again when it ends.", t.name)
	}
	st := &stack{ID: t.id, Name: t.name, Sub: scope.sub, RG: scope.rg, Location: req.Location, ActionOnUnmanage: p.ActionOnUnmanage,
		DenySettings: p.DenySettings, State: "deploying", Started: time.Now()}
	if prev != nil {
		st.Managed = prev.Managed
	}
	d.mu.Unlock()
	st.StatusID = s.lockedUUID()
	depName := fmt.Sprintf("%s-%s", t.name, time.Now().UTC().Format("20060102150405.000"))
	depName = strings.ReplaceAll(depName, ".", "")
	dt, _ := parseTarget(scope.id() + "/providers/Microsoft.Resources/deployments/" + depName)
	dreq := &deploymentRequest{Location: req.Location}
	dreq.Properties.Mode, dreq.Properties.Template, dreq.Properties.Parameters = "Incremental", p.Template, p.Parameters
	run, err := s.startDeployment(dt, scope, dreq, r.Header.Get("x-ms-correlation-request-id"))
	if err != nil {
		return err
	}
	d.mu.Lock()
	st.DeploymentID = run.ID
	d.stacks[key(t.id)] = st
	d.saveLocked()
	view := st.view()
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		s.settleStack(d.ctx, st, run)
	}()
	w.Header().Set("Azure-AsyncOperation", followURL(r, t.id, "operationStatuses", st.StatusID))
	w.Header().Set("Retry-After", "1")
	writeJSON(w, http.StatusCreated, view)
	return nil
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return true
		}
	}
	return false
}

// settleStack waits for the stack's deployment, then takes the resources it
// deployed as the managed set and deletes or detaches those it no longer names.
func (s *Server) settleStack(ctx context.Context, st *stack, run *deploymentRun) {
	select {
	case <-run.done:
	case <-ctx.Done():
		return
	}
	d := s.engine()
	d.mu.Lock()
	state, deployed := run.State, append([]string(nil), run.OutputResources...)
	var runErr *deploymentError
	if run.Error != nil {
		e := *run.Error
		runErr = &e
	}
	prev := st.Managed
	d.mu.Unlock()
	if state != stateSucceeded {
		d.mu.Lock()
		st.State, st.Error, st.Ended = "failed", runErr, time.Now()
		d.saveLocked()
		d.mu.Unlock()
		return
	}
	var managed []string
	now := map[string]bool{}
	for _, id := range deployed {
		t, ok := parseTarget(id)
		if ok && strings.EqualFold(t.typ, "Microsoft.Resources/deployments") {
			continue // nested deployments are how, not what, the stack deploys
		}
		if !now[key(id)] {
			now[key(id)] = true
			managed = append(managed, id)
		}
	}
	var gone []string
	for _, id := range prev {
		if !now[key(id)] {
			gone = append(gone, id)
		}
	}
	// Children before parents, so each delete is its own.
	sort.Slice(gone, func(i, j int) bool { return len(gone[i]) > len(gone[j]) })
	var deleted, detached []string
	var failed []stackFailure
	for _, id := range gone {
		t, _ := parseTarget(id)
		action := st.ActionOnUnmanage["resources"]
		if strings.EqualFold(t.typ, typeResourceGroup) {
			action = st.ActionOnUnmanage["resourceGroups"]
		}
		if !strings.EqualFold(action, "delete") {
			detached = append(detached, id)
			continue
		}
		if err := s.deleteManaged(ctx, id); err != nil {
			failed = append(failed, stackFailure{ID: id, Error: err})
			continue
		}
		deleted = append(deleted, id)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st.Managed, st.Deleted, st.Detached, st.Failed, st.Ended = managed, deleted, detached, failed, time.Now()
	st.State = "succeeded"
	if len(failed) > 0 {
		st.State = "failed"
		st.Error = &deploymentError{Code: "DeploymentStackDeleteResourcesFailed", Message: "One or more resources could not be deleted."}
	}
	d.saveLocked()
}

// deleteManaged deletes a resource the stack no longer names and waits for it.
func (s *Server) deleteManaged(ctx context.Context, id string) *armError {
	t, ok := parseTarget(id)
	if !ok {
		return &armError{Code: "InvalidResourceId", Message: id}
	}
	apiVersion := "2021-04-01"
	if f := factsOf(t.typ); f.arm != nil && len(f.arm.APIVersions) > 0 {
		apiVersion = f.arm.APIVersions[len(f.arm.APIVersions)-1]
	}
	rec, err := s.sendWithRetry(ctx, http.MethodDelete, id, apiVersion, nil, "")
	if err == nil && rec.Code == http.StatusAccepted {
		err = s.follow(ctx, rec.Header().Get("Location"), true)
	}
	if err == nil {
		return nil
	}
	if ae, ok := err.(*armError); ok {
		return ae
	}
	return &armError{Code: "InternalServerError", Message: err.Error()}
}

// deleteStack deletes the stack; its resources are detached unless the
// request's unmanageAction.Resources says delete.
func (s *Server) deleteStack(w http.ResponseWriter, r *http.Request, t target) error {
	d := s.engine()
	d.mu.Lock()
	st := d.stacks[key(t.id)]
	if st == nil {
		d.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if !stackTerminal(st.State) {
		d.mu.Unlock()
		return errorf(http.StatusConflict, "DeploymentStackInNonTerminalState", "The deployment stack '%s' is being changed; try again when it ends.", t.name)
	}
	managed := append([]string(nil), st.Managed...)
	delete(d.stacks, key(t.id))
	d.saveLocked()
	d.mu.Unlock()
	if strings.EqualFold(r.URL.Query().Get("unmanageAction.Resources"), "delete") {
		sort.Slice(managed, func(i, j int) bool { return len(managed[i]) > len(managed[j]) })
		for _, id := range managed {
			if err := s.deleteManaged(r.Context(), id); err != nil {
				return err
			}
		}
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// view is the stack as ARM returns it.
func (st *stack) view() map[string]any {
	ids := func(list []string) []any {
		out := []any{}
		for _, id := range list {
			out = append(out, map[string]any{"id": id})
		}
		return out
	}
	resources := []any{}
	for _, id := range st.Managed {
		resources = append(resources, map[string]any{"id": id, "status": "managed", "denyStatus": "none"})
	}
	failed := []any{}
	for _, f := range st.Failed {
		failed = append(failed, map[string]any{"id": f.ID, "error": f.Error})
	}
	props := map[string]any{
		"actionOnUnmanage":  st.ActionOnUnmanage,
		"denySettings":      st.DenySettings,
		"provisioningState": st.State,
		"deploymentId":      st.DeploymentID,
		"resources":         resources,
		"deletedResources":  ids(st.Deleted),
		"detachedResources": ids(st.Detached),
		"failedResources":   failed,
	}
	props["duration"] = isoDuration(st.Started, st.Ended)
	if st.Error != nil {
		props["error"] = st.Error
	}
	v := map[string]any{"id": st.ID, "name": st.Name, "type": "Microsoft.Resources/deploymentStacks", "properties": props}
	if st.Location != "" {
		v["location"] = st.Location
	}
	return v
}
