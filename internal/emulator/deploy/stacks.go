package deploy

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armcore"
	"github.com/azkcli/azk/internal/emulator/armpath"
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
	ID    string         `json:"id"`
	Error *armcore.Error `json:"error"`
}

func stackTerminal(state string) bool {
	return state == "succeeded" || state == "failed" || state == "canceled"
}

func (e *Engine) serveStacks(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	lt := strings.ToLower(t.Type)
	switch {
	case lt == typeStacks && t.Kind == armpath.Resource && r.Method == http.MethodPut:
		return e.putStack(w, r, t, body)
	case lt == typeStacks && t.Kind == armpath.Resource && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		d := e.engine()
		d.mu.Lock()
		defer d.mu.Unlock()
		st := d.stacks[armpath.Key(t.ID)]
		if st == nil {
			return armcore.Errorf(http.StatusNotFound, "DeploymentStackNotFound", "The deployment stack '%s' could not be found.", t.Name)
		}
		armcore.WriteJSON(w, http.StatusOK, st.view())
		return nil
	case lt == typeStacks && t.Kind == armpath.Resource && r.Method == http.MethodDelete:
		return e.deleteStack(w, r, t)
	case lt == typeStacks+"/operationstatuses" && r.Method == http.MethodGet:
		d := e.engine()
		d.mu.Lock()
		defer d.mu.Unlock()
		st := d.stacks[armpath.Key(t.Parent)]
		if st == nil || !strings.EqualFold(st.StatusID, t.Name) {
			return armcore.Errorf(http.StatusNotFound, "OperationNotFound", "The operation '%s' was not found.", t.Name)
		}
		status := map[string]any{"status": "Running"}
		switch {
		case st.State == "succeeded":
			status["status"] = armcore.StateSucceeded
		case st.State == "failed":
			status["status"], status["error"] = armcore.StateFailed, st.Error
		case st.State == "canceled":
			status["status"] = "Canceled"
		default:
			w.Header().Set("Retry-After", "1")
		}
		armcore.WriteJSON(w, http.StatusOK, status)
		return nil
	}
	return armcore.Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method '%s' is not supported on '%s'.", r.Method, t.Type)
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

func (e *Engine) putStack(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte) error {
	var req stackRequest
	if err := decodeTemplateRequest(body, &req); err != nil {
		return err
	}
	p := req.Properties
	switch {
	case p.Template == nil:
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: properties.template is required.")
	case !oneOf(p.ActionOnUnmanage["resources"], "delete", "detach"):
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.actionOnUnmanage.resources must be delete or detach.")
	case p.ActionOnUnmanage["resourceGroups"] != "" && !oneOf(p.ActionOnUnmanage["resourceGroups"], "delete", "detach"):
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.actionOnUnmanage.resourceGroups must be delete or detach.")
	case p.DenySettings == nil || !oneOf(fmt.Sprint(p.DenySettings["mode"]), "none", "denyDelete", "denyWriteAndDelete"):
		return armcore.Errorf(http.StatusBadRequest, "InvalidRequestContent", "properties.denySettings.mode must be none, denyDelete or denyWriteAndDelete.")
	}
	scope, err := e.deploymentScope(t, req.Location)
	if err != nil {
		return err
	}
	d := e.engine()
	d.mu.Lock()
	prev := d.stacks[armpath.Key(t.ID)]
	if prev != nil && !stackTerminal(prev.State) {
		d.mu.Unlock()
		return armcore.Errorf(http.StatusConflict, "DeploymentStackInNonTerminalState", "The deployment stack '%s' is being changed; try again when it ends.", t.Name)
	}
	st := &stack{ID: t.ID, Name: t.Name, Sub: scope.sub, RG: scope.rg, Location: req.Location, ActionOnUnmanage: p.ActionOnUnmanage,
		DenySettings: p.DenySettings, State: "deploying", Started: time.Now()}
	if prev != nil {
		st.Managed = prev.Managed
	}
	d.mu.Unlock()
	st.StatusID = e.core.NewUUID()
	depName := fmt.Sprintf("%s-%s", t.Name, time.Now().UTC().Format("20060102150405.000"))
	depName = strings.ReplaceAll(depName, ".", "")
	dt, _ := armpath.Parse(scope.id() + "/providers/Microsoft.Resources/deployments/" + depName)
	dreq := &deploymentRequest{Location: req.Location}
	dreq.Properties.Mode, dreq.Properties.Template, dreq.Properties.Parameters = "Incremental", p.Template, p.Parameters
	run, err := e.startDeployment(dt, scope, dreq, r.Header.Get("x-ms-correlation-request-id"))
	if err != nil {
		return err
	}
	d.mu.Lock()
	st.DeploymentID = run.ID
	d.stacks[armpath.Key(t.ID)] = st
	d.saveLocked()
	view := st.view()
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		e.settleStack(d.ctx, st, run)
	}()
	w.Header().Set("Azure-AsyncOperation", followURL(r, t.ID, "operationStatuses", st.StatusID))
	w.Header().Set("Retry-After", "1")
	armcore.WriteJSON(w, http.StatusCreated, view)
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
func (e *Engine) settleStack(ctx context.Context, st *stack, run *deploymentRun) {
	select {
	case <-run.done:
	case <-ctx.Done():
		return
	}
	d := e.engine()
	d.mu.Lock()
	state, deployed := run.State, append([]string(nil), run.OutputResources...)
	var runErr *deploymentError
	if run.Error != nil {
		e := *run.Error
		runErr = &e
	}
	prev := st.Managed
	d.mu.Unlock()
	if state != armcore.StateSucceeded {
		d.mu.Lock()
		st.State, st.Error, st.Ended = "failed", runErr, time.Now()
		d.saveLocked()
		d.mu.Unlock()
		return
	}
	var managed []string
	now := map[string]bool{}
	for _, id := range deployed {
		t, ok := armpath.Parse(id)
		if ok && strings.EqualFold(t.Type, "Microsoft.Resources/deployments") {
			continue // nested deployments are how, not what, the stack deploys
		}
		if !now[armpath.Key(id)] {
			now[armpath.Key(id)] = true
			managed = append(managed, id)
		}
	}
	var gone []string
	for _, id := range prev {
		if !now[armpath.Key(id)] {
			gone = append(gone, id)
		}
	}
	// Children before parents, so each delete is its own.
	sort.Slice(gone, func(i, j int) bool { return len(gone[i]) > len(gone[j]) })
	var deleted, detached []string
	var failed []stackFailure
	for _, id := range gone {
		t, _ := armpath.Parse(id)
		action := st.ActionOnUnmanage["resources"]
		if strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
			action = st.ActionOnUnmanage["resourceGroups"]
		}
		if !strings.EqualFold(action, "delete") {
			detached = append(detached, id)
			continue
		}
		if err := e.deleteManaged(ctx, id); err != nil {
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
func (e *Engine) deleteManaged(ctx context.Context, id string) *armcore.Error {
	t, ok := armpath.Parse(id)
	if !ok {
		return &armcore.Error{Code: "InvalidResourceId", Message: id}
	}
	apiVersion := "2021-04-01"
	if arm := armcore.ARMType(t.Type); arm != nil && len(arm.APIVersions) > 0 {
		apiVersion = arm.APIVersions[len(arm.APIVersions)-1]
	}
	rec, err := e.sendWithRetry(ctx, innerRequest{method: http.MethodDelete, target: requestURI(id, apiVersion)})
	if err == nil && rec.Code == http.StatusAccepted {
		err = e.follow(ctx, rec.Header().Get("Location"), true)
	}
	if err == nil {
		return nil
	}
	if ae, ok := err.(*armcore.Error); ok {
		return ae
	}
	return &armcore.Error{Code: "InternalServerError", Message: err.Error()}
}

// deleteStack deletes the stack; its resources are detached unless the
// request's unmanageAction.Resources says delete.
func (e *Engine) deleteStack(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	d := e.engine()
	d.mu.Lock()
	st := d.stacks[armpath.Key(t.ID)]
	if st == nil {
		d.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if !stackTerminal(st.State) {
		d.mu.Unlock()
		return armcore.Errorf(http.StatusConflict, "DeploymentStackInNonTerminalState", "The deployment stack '%s' is being changed; try again when it ends.", t.Name)
	}
	managed := append([]string(nil), st.Managed...)
	delete(d.stacks, armpath.Key(t.ID))
	d.saveLocked()
	d.mu.Unlock()
	if strings.EqualFold(r.URL.Query().Get("unmanageAction.Resources"), "delete") {
		sort.Slice(managed, func(i, j int) bool { return len(managed[i]) > len(managed[j]) })
		for _, id := range managed {
			if err := e.deleteManaged(r.Context(), id); err != nil {
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
