package armcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/azkcli/azk/internal/emulator/armpath"
	"github.com/azkcli/azk/internal/emulator/faults"
	"github.com/azkcli/azk/internal/emulator/store"
	"github.com/azkcli/azk/internal/registry"
)

// ancestors checks that everything containing t exists, from the top down.
// Writes report a missing parent resource as ParentResourceNotFound, reads as
// ResourceNotFound naming the missing ancestor, as ARM does.
func (c *Core) ancestors(t armpath.Target, write bool) error {
	if t.RG != "" && !(t.Kind == armpath.Resource && strings.EqualFold(t.Type, armpath.TypeResourceGroup)) {
		if c.live(armpath.Key("/subscriptions/"+t.Sub+"/resourceGroups/"+t.RG)) == nil {
			return Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.RG)
		}
	}
	for _, a := range ancestorsOf(t) {
		if c.live(armpath.Key(a.ID)) != nil {
			continue
		}
		if write {
			return Errorf(http.StatusNotFound, "ParentResourceNotFound",
				"Can not perform requested operation on nested resource. Parent resource '%s' not found.", a.ID)
		}
		return NotFound(a, t.RG)
	}
	return nil
}

// NotFound is ARM's ResourceNotFound for t, naming the resource group rg when there is one.
func NotFound(t armpath.Target, rg string) *Error {
	if rg == "" {
		return Errorf(http.StatusNotFound, "ResourceNotFound", "The Resource '%s/%s' was not found.", t.Type, t.Name)
	}
	return Errorf(http.StatusNotFound, "ResourceNotFound",
		"The Resource '%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
		t.Type, t.Name, rg)
}

// ancestorsOf lists the resources containing t, outermost first (resource
// groups and subscriptions excluded).
func ancestorsOf(t armpath.Target) []armpath.Target {
	var out []armpath.Target
	for p := t; p.ParentIsResource; {
		pt, ok := armpath.Parse(p.Parent)
		if !ok || pt.Kind != armpath.Resource {
			break
		}
		out = append(out, pt)
		p = pt
	}
	slices.Reverse(out)
	return out
}

// live returns the record under k unless it is absent or its deletion has finished.
func (c *Core) live(k string) *store.Record {
	rec := c.st.Resource(k)
	if rec == nil || (rec.Pending != nil && rec.Pending.State == StateDeleting && !time.Now().Before(rec.Pending.Until)) {
		return nil
	}
	return rec
}

// Provisioning and operation states, as ARM spells them.
const (
	StateSucceeded = "Succeeded"
	StateFailed    = "Failed"
	StateAccepted  = "Accepted"
	StateCreating  = "Creating"
	StateUpdating  = "Updating"
	StateDeleting  = "Deleting"
)

// View renders a record's body as of now: while an operation runs the
// provisioningState is Accepted (first half of a create), then Creating,
// Updating or Deleting.
func View(rec *store.Record, now time.Time) []byte {
	p := rec.Pending
	if p == nil || !now.Before(p.Until) {
		return rec.Body
	}
	state := p.State
	if state == StateCreating && now.Before(p.Start.Add(p.Until.Sub(p.Start)/2)) {
		state = StateAccepted
	}
	return withProvisioningState(rec.Body, state)
}

func withProvisioningState(body []byte, state string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props["provisioningState"] = state
	out, _ := json.Marshal(m)
	return out
}

func (c *Core) get(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if err := c.ancestors(t, false); err != nil {
		return err
	}
	rec := c.live(armpath.Key(t.ID))
	if rec == nil {
		if strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
			return Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.Name)
		}
		return NotFound(t, t.RG)
	}
	if rec.ETag != "" {
		w.Header().Set("ETag", rec.ETag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, rec.ETag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent) // ARM's existence check: 204, or 404
		return nil
	}
	WriteRaw(w, http.StatusOK, c.render(rec, time.Now()))
	return nil
}

func etagMatches(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || part == etag || strings.TrimPrefix(part, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// readOnly are top-level fields the emulator owns; client values are ignored.
var readOnly = []string{"id", "name", "type", "etag", "systemData"}

func (c *Core) put(w http.ResponseWriter, r *http.Request, t armpath.Target, body []byte, patch bool) error {
	req, err := DecodeObject(body)
	if err != nil {
		return err
	}
	now := time.Now()
	f := c.faults.Get()
	c.mu.Lock()
	defer c.mu.Unlock()
	k := armpath.Key(t.ID)
	if err := c.ancestors(t, true); err != nil {
		return err
	}
	existing := c.live(k)
	if existing != nil && existing.Pending != nil && existing.Pending.State == StateDeleting {
		return Errorf(http.StatusConflict, "Conflict", "The resource '%s' is being deleted.", t.ID)
	}
	if err := checkPreconditions(r, existing); err != nil {
		return err
	}
	if err := c.replicationLag(t, f, now); err != nil {
		return err
	}
	if err := c.siblingConflict(t, k, f, now); err != nil {
		return err
	}
	if patch {
		if existing == nil {
			return NotFound(t, t.RG)
		}
		var cur map[string]any
		if err := json.Unmarshal(existing.Body, &cur); err != nil {
			return err
		}
		if _, ok := req["tags"]; ok {
			delete(cur, "tags") // ARM replaces tags whole on PATCH
		}
		req = mergePatch(cur, req).(map[string]any)
	}
	if strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
		if loc, _ := req["location"].(string); loc == "" {
			return Errorf(http.StatusBadRequest, "LocationRequired", "The location property is required for this definition.")
		}
	}
	for _, v := range c.hooks.validators {
		if err := v.ValidateWrite(Tx{c}, r, t, req, existing != nil); err != nil {
			return err
		}
	}
	var prev map[string]any
	if existing != nil {
		_ = json.Unmarshal(existing.Body, &prev)
		if err := locationUnchanged(t, prev, req); err != nil {
			return err
		}
	}
	parentID, parentType := t.ID, t.Type
	if existing != nil {
		parentID, parentType = existing.ID, existing.Type
	}
	children, err := c.planChildren(parentID, parentType, req, patch)
	if err != nil {
		return err
	}
	for _, p := range c.hooks.putPreparers {
		if prev, err = p.PreparePut(Tx{c}, t, req, prev); err != nil {
			return err
		}
	}

	kind := opCreate
	if existing != nil {
		kind = opUpdate
	}
	timing := c.cfg.timingFor(t.Type, kind)
	failure, fails := f.FailureFor(t.Type)
	duration := timing.duration
	if fails {
		duration, timing.hints = failure.After, nil
	}
	finalState := StateSucceeded
	var opErr *store.OperationError
	if fails {
		finalState = StateFailed
		code, msg := failure.Code, failure.Message
		if code == "" {
			code = "InternalServerError"
		}
		if msg == "" {
			msg = fmt.Sprintf("The operation on '%s' failed.", t.ID)
		}
		opErr = &store.OperationError{Code: code, Message: msg}
	}

	rec := &store.Record{ID: t.ID, Type: t.Type, Parent: armpath.Key(t.Parent), Created: now}
	if existing != nil {
		rec.ID, rec.Type, rec.Created = existing.ID, existing.Type, existing.Created
	}
	rec.ETag = fmt.Sprintf(`W/"%s"`, c.newUUID())
	out := c.buildBody(rec, req, prev, now, finalState)
	if p, ok := PrincipalOf(r); ok {
		stampSystemData(out, p, existing == nil)
	}
	for _, p := range writeOnly(rec.Type, r.URL.Query().Get("api-version")) {
		dropPath(out, p)
	}
	if rec.Body, err = json.Marshal(out); err != nil {
		return err
	}
	answer := putAnswerFor(rec.Type, existing != nil)
	async := duration > 0 || fails || answer.Async != ""
	var op *store.Operation
	if async {
		op = &store.Operation{ID: c.newUUID(), Resource: rec.ID, Method: http.MethodPut, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now.Add(duration), Error: opErr, Hints: timing.hints}
		state := StateCreating
		if existing != nil {
			state = StateUpdating
		}
		if duration > 0 || fails {
			rec.Pending = &store.Pending{Op: op.ID, State: state, Start: now, Until: op.Until}
			if err := c.st.PutOp(op); err != nil {
				return err
			}
		} else {
			// An operation of no duration is over as it starts: nothing to
			// settle or store, its URL names the resource it wrote.
			op.ID = instantOperationID(rec.ID)
		}
	}
	if err := c.st.PutResource(k, rec); err != nil {
		return err
	}
	if !fails {
		var before []byte
		if existing != nil {
			before = existing.Body
		}
		c.recordWrite(Write{Request: r, ID: rec.ID, Type: rec.Type, Before: before, After: rec.Body, At: now})
	}
	if err := c.applyChildren(children, k, now, finalState, rec.Pending); err != nil {
		return err
	}
	if existing == nil && !fails {
		if err := c.createWithParent(rec, now, finalState); err != nil {
			return err
		}
	}
	if rec.Pending != nil {
		c.noteDueLocked(op.Until)
	} else {
		c.scheduleDriftLocked(rec, f, now)
	}
	if err := c.st.MaybeCompact(now); err != nil {
		return err
	}

	h := w.Header()
	h.Set("ETag", rec.ETag)
	if async {
		if answer.Async != "Location" {
			h.Set("Azure-AsyncOperation", OperationURL(r, rec, op, false))
		}
		if answer.Async == "Location" || answer.Status == http.StatusAccepted {
			h.Set("Location", OperationURL(r, rec, op, true)) // a 202 always says where to look
		}
		c.answerHint(h, op, now)
	}
	if answer.Status == http.StatusAccepted {
		w.WriteHeader(http.StatusAccepted) // the resource is read once the operation ends
		return nil
	}
	WriteRaw(w, answer.Status, c.render(rec, now))
	return nil
}

// locationUnchanged refuses a PUT that moves an existing resource to
// another location, as ARM does: a resource's location is fixed at create
// (resources move between groups and subscriptions, never regions). Names
// compare as ARM normalizes them ("West US 2" is westus2).
func locationUnchanged(t armpath.Target, prev, req map[string]any) error {
	was, _ := prev["location"].(string)
	now, _ := req["location"].(string)
	if was == "" || now == "" || normalizeLocation(was) == normalizeLocation(now) {
		return nil
	}
	if strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
		return Errorf(http.StatusConflict, "InvalidResourceGroupLocation",
			"Invalid resource group location '%s'. The Resource group already exists in location '%s'.", now, was)
	}
	return Errorf(http.StatusConflict, "InvalidResourceLocation",
		"The resource '%s' already exists in location '%s' in resource group '%s'. A resource with the same name cannot be created in location '%s'. Please select a new resource name.",
		t.Name, was, t.RG, now)
}

func normalizeLocation(l string) string { return strings.ToLower(strings.ReplaceAll(l, " ", "")) }

// putAnswerFor is how ARM answers a successful PUT that creates (or
// updates) a resource of typ: as the recordings show for the type
// (registry.ARMType.Create/Update), else 200 with no polling header. 200 is
// what the REST specs allow most widely: the corpus has no per-operation
// status codes, and of the create operations of the newest Go SDK
// management modules for resources, network, storage, key vault, msi,
// authorization and container service, 130 of 135 accept 200 where 125
// accept 201 (web apps, storage queues and tables, management policies
// answer 200 or 202, never 201). A provider whose recorded creates all
// answer 201 answers so for its other types too (Microsoft.Authorization's
// policy definitions and assignments, whose specs allow only 201, like its
// role assignments). An update the recordings do not show answers 200 with
// the create's polling header, unless the create answers 202 (then the
// update is synchronous).
func putAnswerFor(typ string, update bool) registry.PutAnswer {
	a := factsOf(typ).arm
	switch {
	case a != nil && update && a.Update != nil:
		return *a.Update
	case a != nil && update && a.Create != nil && a.Create.Status != http.StatusAccepted:
		return registry.PutAnswer{Status: http.StatusOK, Async: a.Create.Async}
	case update:
		return registry.PutAnswer{Status: http.StatusOK}
	case a != nil && a.Create != nil:
		return *a.Create
	}
	return registry.PutAnswer{Status: providerCreateStatus(typ)}
}

// providerCreateStatus is how a create of a type the recordings do not show
// answers: 201 when every create recorded for its provider namespace
// answers 201, else 200.
func providerCreateStatus(typ string) int {
	namespace, _, _ := strings.Cut(typ, "/")
	created := 0
	for _, t := range registry.Default().ARMTypesIn(namespace) {
		switch {
		case t.Create == nil:
		case t.Create.Status == http.StatusCreated:
			created++
		default:
			return http.StatusOK
		}
	}
	if created > 0 {
		return http.StatusCreated
	}
	return http.StatusOK
}

// maxBodyDepth bounds how deeply a request body may nest. ARM's schemas stay
// far below it; a deeper body is refused before it is stored, since a journal
// line that deep could not be decoded again on restart.
const maxBodyDepth = 64

// DecodeObject reads a request body that must be one JSON object, its
// numbers exact, refusing it as ARM does (400 InvalidRequestContent).
func DecodeObject(body []byte) (map[string]any, error) {
	if depthExceeds(body, maxBodyDepth) {
		return nil, Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: it nests deeper than %d levels.", maxBodyDepth)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		msg := "the body is not a JSON object"
		if err != nil {
			msg = err.Error()
		}
		return nil, Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %s.", msg)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Errorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: trailing data after the JSON object.")
	}
	return m, nil
}

// depthExceeds reports whether the JSON text nests objects and arrays deeper than limit.
func depthExceeds(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

func checkPreconditions(r *http.Request, existing *store.Record) error {
	if im := r.Header.Get("If-Match"); im != "" {
		if existing == nil || !etagMatches(im, existing.ETag) {
			return Errorf(http.StatusPreconditionFailed, "PreconditionFailed", "The resource's ETag does not match the If-Match header.")
		}
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && existing != nil && etagMatches(inm, existing.ETag) {
		return Errorf(http.StatusPreconditionFailed, "PreconditionFailed", "The resource already exists and matches the If-None-Match header.")
	}
	return nil
}

// buildBody is the stored body: the request, with the fields ARM owns set
// and the read-only properties of the previous version kept.
func (c *Core) buildBody(rec *store.Record, req, prev map[string]any, now time.Time, state string) map[string]any {
	out := map[string]any{}
	for k, v := range req {
		if !slices.Contains(readOnly, k) {
			out[k] = v
		}
	}
	out["id"] = rec.ID
	out["name"] = rec.ID[strings.LastIndexByte(rec.ID, '/')+1:]
	out["type"] = rec.Type
	if _, ok := out["tags"]; !ok {
		out["tags"] = map[string]any{}
	}
	if _, ok := out["location"]; !ok {
		if loc := c.locationOf(rec.Parent); loc != "" && !strings.EqualFold(rec.Type, armpath.TypeResourceGroup) {
			out["location"] = loc
		}
	}
	out["etag"] = rec.ETag
	facts := factsOf(rec.Type)
	facts.fill(c, rec, out, prev, now)
	props, _ := out["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	var prevProps, prevSystem map[string]any
	if prev != nil {
		prevProps, _ = prev["properties"].(map[string]any)
		prevSystem, _ = prev["systemData"].(map[string]any)
	}
	guid, _ := prevProps["resourceGuid"].(string)
	if guid == "" {
		guid = c.newUUID()
	}
	props["resourceGuid"] = guid
	props["provisioningState"] = state
	out["properties"] = props
	b := &Body{Record: rec, Out: out, Props: props, Prev: prev, PrevProps: prevProps}
	for _, f := range c.hooks.fillers {
		f.FillBody(Tx{c}, b)
	}
	created := now.UTC().Format(time.RFC3339Nano)
	if at, ok := prevSystem["createdAt"].(string); ok {
		created = at
	}
	out["systemData"] = map[string]any{
		"createdBy": "emulator@example.com", "createdByType": "User", "createdAt": created,
		"lastModifiedBy": "emulator@example.com", "lastModifiedByType": "User", "lastModifiedAt": now.UTC().Format(time.RFC3339Nano),
	}
	facts.dropSecrets(out)
	return out
}

// stampSystemData names an application caller in systemData as ARM does:
// by its client ID, as an "Application"; on create as the creator too.
// Other callers stay the emulator's user.
func stampSystemData(out map[string]any, p Principal, created bool) {
	sd, _ := out["systemData"].(map[string]any)
	if sd == nil || p.AppID == "" {
		return
	}
	sd["lastModifiedBy"], sd["lastModifiedByType"] = p.AppID, "Application"
	if created {
		sd["createdBy"], sd["createdByType"] = p.AppID, "Application"
	}
}

// locationOf is the location of the nearest stored ancestor, for child
// resources whose body names none.
func (c *Core) locationOf(k string) string {
	for depth := 0; k != "" && depth < 64; depth++ {
		rec := c.st.Resource(k)
		if rec == nil {
			return ""
		}
		var m struct {
			Location string `json:"location"`
		}
		if json.Unmarshal(rec.Body, &m) == nil && m.Location != "" {
			return m.Location
		}
		k = rec.Parent
	}
	return ""
}

// mergePatch applies an RFC 7386 JSON merge patch.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

func (c *Core) replicationLag(t armpath.Target, f faults.Config, now time.Time) error {
	if f.ReplicationLag <= 0 || t.RG == "" || strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
		return nil
	}
	rg := c.st.Resource(armpath.Key("/subscriptions/" + t.Sub + "/resourceGroups/" + t.RG))
	if rg == nil || now.Sub(rg.Created) >= f.ReplicationLag {
		return nil
	}
	rate := f.ReplicationLagRate
	if rate == 0 {
		rate = 1
	}
	if c.faults.Hit(rate, "lag", "PUT "+t.ID) {
		return Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.RG)
	}
	return nil
}

// siblingConflict answers 409 AnotherOperationInProgress when a sibling of a
// conflict-prone child type has an operation in progress.
func (c *Core) siblingConflict(t armpath.Target, k string, f faults.Config, now time.Time) error {
	if !t.ParentIsResource || !f.Conflicts(t.Type) {
		return nil
	}
	for sib := range c.st.Children(armpath.Key(t.Parent)) {
		rec := c.st.Resource(sib)
		if sib == k || rec == nil || rec.Pending == nil || !now.Before(rec.Pending.Until) || !f.Conflicts(rec.Type) {
			continue
		}
		return Errorf(http.StatusConflict, "AnotherOperationInProgress",
			"Another operation on this or dependent resource is in progress. To retry later, please refer to the Azure-AsyncOperation of '%s'.", rec.ID)
	}
	return nil
}

func (c *Core) delete(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	if t := ARMType(t.Type); t != nil && t.NoDelete {
		// Its provider serves no DELETE (the operator's
		// DeleteNotPossibleInAzure): it goes only with its parent.
		return Errorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested resource does not support http method 'DELETE'.")
	}
	now := time.Now()
	f := c.faults.Get()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.ancestors(t, false); err != nil {
		return err
	}
	k := armpath.Key(t.ID)
	rec := c.live(k)
	if rec == nil {
		if strings.EqualFold(t.Type, armpath.TypeResourceGroup) {
			// ARM: deleting a group that does not exist is an error, unlike
			// deleting a resource that does not (204).
			return Errorf(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", t.Name)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err := checkPreconditions(r, rec); err != nil {
		return err
	}
	if rec.Pending != nil && rec.Pending.State == StateDeleting {
		op := c.st.Op(rec.Pending.Op)
		w.Header().Set("Location", OperationURL(r, rec, op, true))
		c.answerHint(w.Header(), op, now)
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	if err := c.siblingConflict(t, k, f, now); err != nil {
		return err
	}
	if err := c.subtreeInUse(k); err != nil {
		return err
	}
	// The delete is accepted: it records now, for the resource and
	// everything it takes with it, as ARM's change history does.
	for _, sk := range c.subtree(k) {
		if gone := c.st.Resource(sk); gone != nil {
			c.recordWrite(Write{Request: r, ID: gone.ID, Type: gone.Type, Before: gone.Body, At: now})
		}
	}
	timing := c.cfg.timingFor(rec.Type, opDelete)
	if timing.duration <= 0 {
		if err := c.removeSubtreeLocked(k, now); err != nil {
			return err
		}
		w.WriteHeader(http.StatusOK)
		return c.st.MaybeCompact(now)
	}
	op := &store.Operation{ID: c.newUUID(), Resource: rec.ID, APIVersion: r.URL.Query().Get("api-version"), Start: now, Until: now.Add(timing.duration), Hints: timing.hints}
	if err := c.st.PutOp(op); err != nil {
		return err
	}
	p := &store.Pending{Op: op.ID, State: StateDeleting, Start: now, Until: op.Until}
	if err := c.markSubtreeLocked(k, p); err != nil {
		return err
	}
	c.noteDueLocked(op.Until)
	w.Header().Set("Location", OperationURL(r, rec, op, true))
	c.answerHint(w.Header(), op, now)
	w.WriteHeader(http.StatusAccepted)
	return c.st.MaybeCompact(now)
}

// subtree lists k and everything under it (children and extension resources), parents first.
func (c *Core) subtree(k string) []string {
	out := []string{k}
	for i := 0; i < len(out); i++ {
		var kids []string
		for kid := range c.st.Children(out[i]) {
			kids = append(kids, kid)
		}
		sort.Strings(kids)
		out = append(out, kids...)
	}
	return out
}

func (c *Core) markSubtreeLocked(k string, p *store.Pending) error {
	for _, sk := range c.subtree(k) {
		rec := *c.st.Resource(sk)
		rec.Pending = p
		if err := c.st.PutResource(sk, &rec); err != nil {
			return err
		}
	}
	return nil
}

func (c *Core) removeSubtreeLocked(k string, now time.Time) error {
	keys := c.subtree(k)
	for i := len(keys) - 1; i >= 0; i-- {
		rec := c.st.Resource(keys[i])
		for _, rm := range c.hooks.removers {
			if err := rm.Removing(Tx{c}, rec, now); err != nil {
				return err
			}
		}
		if err := c.st.DeleteResource(keys[i]); err != nil {
			return err
		}
	}
	return nil
}

func (c *Core) list(w http.ResponseWriter, r *http.Request, t armpath.Target) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	resourceList := t.Kind == armpath.GroupResources || t.Kind == armpath.SubscriptionResources
	groupList := t.Kind == armpath.Collection && t.RG == "" && !t.ParentIsResource && strings.EqualFold(t.Type, armpath.TypeResourceGroup)
	if (resourceList || groupList) && !(Tx{c}).KnowsSubscription(t.Sub) {
		return SubscriptionNotFound(t.Sub)
	}
	filter, err := parseListFilter(r.URL.Query().Get("$filter"), groupList)
	if err != nil {
		return err
	}
	top, err := topOf(r)
	if err != nil {
		return err
	}
	var parents []string
	switch {
	case t.Kind == armpath.GroupResources:
		if err := c.ancestors(t, false); err != nil {
			return err
		}
		parents = []string{armpath.Key(t.Parent)}
	case t.Kind == armpath.SubscriptionResources:
		parents = c.groupsOf(t.Parent)
	case t.RG == "" && t.Sub != "" && !t.ParentIsResource && !strings.EqualFold(t.Type, armpath.TypeResourceGroup):
		// A subscription-wide list of a type covers every resource group.
		parents = append([]string{armpath.Key(t.Parent)}, c.groupsOf(t.Parent)...)
	default:
		if t.ParentIsResource {
			pt, _ := armpath.Parse(t.Parent)
			if err := c.ancestors(pt, false); err != nil {
				return err
			}
			if c.live(armpath.Key(t.Parent)) == nil {
				return NotFound(pt, t.RG)
			}
		} else if err := c.ancestors(t, false); err != nil {
			return err
		}
		parents = []string{armpath.Key(t.Parent)}
	}
	var keys []string
	for _, p := range parents {
		for kid := range c.st.Children(p) {
			rec := c.live(kid)
			if rec == nil || (t.Kind == armpath.Collection && !strings.EqualFold(rec.Type, t.Type)) {
				continue
			}
			if (resourceList || groupList) && filter.filters() && !filter.matches(listedOf(rec)) {
				continue
			}
			keys = append(keys, kid)
		}
	}
	sort.Strings(keys)
	skip := r.URL.Query().Get("$skiptoken")
	start := sort.SearchStrings(keys, skip)
	if skip != "" && start < len(keys) && keys[start] == skip {
		start++
	}
	size := c.cfg.Page()
	if top > 0 {
		size = min(size, top)
	}
	end := min(start+size, len(keys))
	now := time.Now()
	expand := strings.Split(strings.ToLower(r.URL.Query().Get("$expand")), ",")
	items := make([]json.RawMessage, 0, end-start)
	for _, k := range keys[start:end] {
		body := c.render(c.st.Resource(k), now)
		if resourceList {
			body = envelopeOf(body, expand, filter.tag != nil)
		}
		items = append(items, body)
	}
	next := ""
	if end < len(keys) {
		q := r.URL.Query()
		q.Set("$skiptoken", keys[end-1])
		next = BaseURL(r) + r.URL.Path + "?" + q.Encode()
	}
	WriteRaw(w, http.StatusOK, listPage(items, next))
	return nil
}

// listPage is a page of a list: its items (the store's own JSON, put
// together as they are rather than checked and compacted again by
// encoding/json, the most of a large list's cost) and the next page's link.
func listPage(items []json.RawMessage, nextLink string) []byte {
	size := len(`{"value":[]}`) + len(items)
	for _, it := range items {
		size += len(it)
	}
	out := make([]byte, 0, size+len(nextLink)+len(`,"nextLink":""`))
	out = append(out, `{"value":[`...)
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	out = append(out, ']')
	if nextLink != "" {
		link, _ := json.Marshal(nextLink)
		out = append(out, `,"nextLink":`...)
		out = append(out, link...)
	}
	return append(out, '}')
}

// groupsOf lists the keys of the live resource groups of a subscription.
func (c *Core) groupsOf(sub string) []string {
	var out []string
	for kid := range c.st.Children(armpath.Key(sub)) {
		if rec := c.live(kid); rec != nil && strings.EqualFold(rec.Type, armpath.TypeResourceGroup) {
			out = append(out, kid)
		}
	}
	return out
}

// listedOf is what a list filter reads of a record.
func listedOf(rec *store.Record) listed {
	var m struct {
		Location string         `json:"location"`
		Tags     map[string]any `json:"tags"`
	}
	_ = json.Unmarshal(rec.Body, &m)
	t, _ := armpath.Parse(rec.ID)
	return listed{typ: rec.Type, name: rec.ID[strings.LastIndexByte(rec.ID, '/')+1:], location: m.Location, group: t.RG, tags: m.Tags}
}

// envelopeFields are the fields ARM's resource lists return of each
// resource (GenericResourceExpanded): the envelope, never the properties.
var envelopeFields = []string{"id", "name", "type", "location", "extendedLocation", "tags", "kind", "sku", "plan", "identity", "managedBy"}

// envelopeOf is a resource as a resource list shows it: the envelope, with
// createdTime, changedTime and provisioningState when $expand asks for them,
// and no tags when a tag filter chose it (as ARM answers such a filter).
func envelopeOf(body []byte, expand []string, tagFiltered bool) []byte {
	// The top level is scanned once, and only the envelope's members
	// compacted: a list of a large group would otherwise decode every body
	// whole to keep a few of its fields.
	out := map[string][]byte{}
	objects := map[string][]byte{}
	if !eachMember(body, func(key []byte, start, end int) bool {
		switch k := string(key); {
		case slices.Contains(envelopeFields, k):
			if !(k == "tags" && tagFiltered) {
				out[k] = body[start:end]
			}
		case k == "systemData" || k == "properties":
			objects[k] = body[start:end]
		}
		return true
	}) {
		return body
	}
	field := func(object, name string) []byte {
		o := objects[object]
		if start, end, found, _ := memberSpan(o, name); found {
			return o[start:end]
		}
		return []byte("null")
	}
	for _, e := range expand {
		switch strings.TrimSpace(e) {
		case "createdtime":
			out["createdTime"] = field("systemData", "createdAt")
		case "changedtime":
			out["changedTime"] = field("systemData", "lastModifiedAt")
		case "provisioningstate":
			out["provisioningState"] = field("properties", "provisioningState")
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(out)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		if json.Compact(&b, out[k]) != nil {
			return body
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// versionedType is the resource type whose api-versions a request must use:
// the addressed type, or for a POST action the type it acts on; for the
// subscription-level reads, the API they belong to (subscriptions, or the
// resources API of resource groups); "" for the emulator's own
// operation-status paths.
func versionedType(t armpath.Target, method string) string {
	switch t.Kind {
	case armpath.Subscription, armpath.Subscriptions, armpath.Tenants, armpath.Locations:
		return armpath.TypeSubscription
	case armpath.SubscriptionResources, armpath.GroupResources, armpath.TagNames, armpath.GroupAction:
		// The resources API's versions (the tag names API is one of its operation groups).
		return armpath.TypeResourceGroup
	}
	lt := strings.ToLower(t.Type)
	if strings.HasSuffix(lt, "/locations/operations") || strings.HasSuffix(lt, "/locations/operationresults") {
		return ""
	}
	if method == http.MethodPost && t.Kind == armpath.Collection {
		if i := strings.LastIndexByte(t.Type, '/'); i > 0 && strings.Contains(t.Type[:i], "/") {
			return t.Type[:i]
		}
		return ""
	}
	return t.Type
}
